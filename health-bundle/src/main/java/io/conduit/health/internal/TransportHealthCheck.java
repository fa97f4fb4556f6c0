package io.conduit.health.internal;

import java.util.List;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.service.component.annotations.Component;

import io.conduit.transport.TransportSelection;
import io.conduit.transport.TransportSelection.Candidate;
import io.conduit.transport.TransportSelection.Outcome;
import io.conduit.transport.Transports;

/**
 * Whether the platform runs on the transport it should: CRITICAL when no transport is selected, WARN when a Java
 * transport is selected although a native one is installed but unavailable (a missing or wrong-architecture
 * library, {@code sun.misc.Unsafe} denied, an old kernel), OK otherwise — also when the operator chose the Java
 * transport (a preference, {@code conduit.noNative}). Each result names the transports and the cause.
 *
 * <p>Tags {@code conduit} and {@code systemready}. Stateless; reads {@link Transports#selection()} on each run.
 */
@Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Conduit transport",
    HealthCheck.TAGS + "=conduit", HealthCheck.TAGS + "=systemready"})
public final class TransportHealthCheck implements HealthCheck {

    @Override
    public Result execute() {
        return new Result(evaluate(Transports.selection()));
    }

    /** @return the result log for {@code s} (see the class comment) */
    static FormattingResultLog evaluate(TransportSelection s) {
        FormattingResultLog log = new FormattingResultLog();
        if (s.failure() != null) {
            log.critical("No transport is selected: {}", s.reason());
            return log;
        }
        Candidate selected = s.candidate(s.selectedName()).orElseThrow();
        if (selected.isNative()) {
            log.info("Transport '{}' (native) is selected: {}", selected.name(), s.reason());
            return log;
        }
        List<Candidate> natives = s.candidates().stream().filter(Candidate::isNative).toList();
        if (natives.isEmpty()) {
            log.info("Transport '{}' (Java) is selected; no native transport is installed", selected.name());
            return log;
        }
        log.info("Transport '{}' (Java) is selected: {}", selected.name(), s.reason());
        for (Candidate n : natives) {
            if (n.outcome() != Outcome.UNAVAILABLE) {
                log.info("The native transport '{}' is available; the preference '{}' chose '{}'", n.name(),
                        s.preference(), selected.name());
            } else if (s.noNative()) {
                log.info("The native transport '{}' is off (conduit.noNative)", n.name());
            } else {
                log.warn("The native transport '{}' is installed but unavailable, so '{}' serves instead: {}", n.name(),
                        selected.name(), firstLine(n.reason()));
            }
        }
        return log;
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
