package io.conduit.health.internal;

import java.util.List;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.service.component.annotations.Component;

import io.conduit.metrics.EndpointMetrics;
import io.conduit.transport.Transports;

/**
 * Whether every running {@code ManagedServer} and {@code ManagedDatagramEndpoint} listens: CRITICAL for each one
 * that listens on no transport (its last bind failed, e.g. the address is taken; the log of
 * {@code io.conduit.transport} says why), OK with one line per endpoint otherwise, and OK when none runs.
 *
 * <p>Tags {@code conduit} and {@code systemready}. Stateless; reads {@link Transports#metrics()} on each run.
 */
@Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Conduit endpoints",
    HealthCheck.TAGS + "=conduit", HealthCheck.TAGS + "=systemready"})
public final class EndpointsHealthCheck implements HealthCheck {

    @Override
    public Result execute() {
        return new Result(evaluate(Transports.metrics().endpoints()));
    }

    /** @return the result log for {@code endpoints} (see the class comment) */
    static FormattingResultLog evaluate(List<EndpointMetrics> endpoints) {
        FormattingResultLog log = new FormattingResultLog();
        if (endpoints.isEmpty()) {
            log.info("No ManagedServer or ManagedDatagramEndpoint is running");
            return log;
        }
        for (EndpointMetrics e : endpoints) {
            if (e.getTransport().isEmpty()) {
                log.critical("{} {} listens on no transport: its last bind failed (the log of io.conduit.transport"
                        + " says why, e.g. the address is taken)", e.getKind(), e.getName());
            } else {
                log.info("{} {} listens on '{}' ({} connections open)", e.getKind(), e.getName(), e.getTransport(),
                        e.getOpenConnections());
            }
        }
        return log;
    }
}
