package io.conduit.health.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.Result;
import org.apache.felix.hc.api.ResultLog;
import org.junit.jupiter.api.Test;

import io.conduit.metrics.EndpointMetrics;
import io.conduit.transport.Availability;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.TransportSelection.Candidate;
import io.conduit.transport.TransportSelection.Outcome;
import io.conduit.transport.TransportSelection.PreferenceSource;
import io.conduit.transport.UnavailableTransportException;

/** What each health check reports for the situations an operator meets. */
class HealthChecksTest {

    private static final Candidate EPOLL_OK = new Candidate("epoll", true, 100, Availability.available(),
            Outcome.SELECTED, "highest-ranked available native transport");
    private static final Candidate NIO = new Candidate("nio", false, 10, Availability.available(), Outcome.NOT_CHOSEN,
            "'epoll' comes first");

    private static TransportSelection selection(String selected, boolean noNative, Candidate... candidates) {
        return new TransportSelection(selected, "auto", PreferenceSource.DEFAULT, false, noNative, List.of(candidates),
                "the reason", List.of(), selected == null ? new UnavailableTransportException("none", null) : null);
    }

    private static String text(FormattingResultLog log) {
        StringBuilder b = new StringBuilder();
        for (ResultLog.Entry e : log) {
            b.append(e.getStatus()).append(' ').append(e.getMessage()).append('\n');
        }
        return b.toString();
    }

    @Test
    void aNativeSelectionIsOk() {
        FormattingResultLog log = TransportHealthCheck.evaluate(selection("epoll", false, EPOLL_OK, NIO));
        assertEquals(Result.Status.OK, new Result(log).getStatus());
        assertEquals("OK Transport 'epoll' (native) is selected: the reason\n", text(log));
    }

    @Test
    void nioWhileANativeTransportIsInstalledButUnavailableWarnsWithTheCause() {
        Candidate epoll = new Candidate("epoll", true, 100, Availability.unavailable(new UnsatisfiedLinkError("x")),
                Outcome.UNAVAILABLE, "no native library for aarch64: install io.conduit.epoll.linux.aarch64\nmore");
        Candidate nio = new Candidate("nio", false, 10, Availability.available(), Outcome.SELECTED, "fallback");
        FormattingResultLog log = TransportHealthCheck.evaluate(selection("nio", false, epoll, nio));
        assertEquals(Result.Status.WARN, new Result(log).getStatus());
        assertTrue(text(log).contains("WARN The native transport 'epoll' is installed but unavailable, so 'nio' serves"
                + " instead: no native library for aarch64: install io.conduit.epoll.linux.aarch64\n"), text(log));
    }

    @Test
    void nioByTheOperatorsChoiceIsOk() {
        Candidate off = new Candidate("epoll", true, 100, Availability.unavailable(new IllegalStateException("off")),
                Outcome.UNAVAILABLE, "conduit.noNative is set");
        Candidate nio = new Candidate("nio", false, 10, Availability.available(), Outcome.SELECTED, "fallback");
        assertEquals(Result.Status.OK, new Result(TransportHealthCheck.evaluate(selection("nio", true, off, nio)))
                .getStatus());
        Candidate notChosen = new Candidate("epoll", true, 100, Availability.available(), Outcome.NOT_CHOSEN, "pref");
        assertEquals(Result.Status.OK, new Result(TransportHealthCheck.evaluate(selection("nio", false, notChosen,
                nio))).getStatus());
        assertEquals(Result.Status.OK, new Result(TransportHealthCheck.evaluate(selection("nio", false, nio)))
                .getStatus(), "no native transport installed");
    }

    @Test
    void noSelectionIsCritical() {
        FormattingResultLog log = TransportHealthCheck.evaluate(selection(null, false, NIO));
        assertEquals(Result.Status.CRITICAL, new Result(log).getStatus());
        assertEquals("CRITICAL No transport is selected: the reason\n", text(log));
    }

    private static EndpointMetrics endpoint(String name, String transport) {
        return (EndpointMetrics) java.lang.reflect.Proxy.newProxyInstance(HealthChecksTest.class.getClassLoader(),
                new Class<?>[] {EndpointMetrics.class}, (p, m, a) -> switch (m.getName()) {
                    case "getKind" -> "ManagedServer";
                    case "getName" -> name;
                    case "getTransport" -> transport;
                    case "getOpenConnections" -> 3L;
                    default -> 0L;
                });
    }

    @Test
    void anEndpointListeningOnNothingIsCritical() {
        FormattingResultLog ok = EndpointsHealthCheck.evaluate(List.of(endpoint("/127.0.0.1:8080", "epoll")));
        assertEquals("OK ManagedServer /127.0.0.1:8080 listens on 'epoll' (3 connections open)\n", text(ok));
        FormattingResultLog bad = EndpointsHealthCheck.evaluate(List.of(endpoint("/127.0.0.1:8080", "epoll"),
                endpoint("/127.0.0.1:9090", "")));
        assertEquals(Result.Status.CRITICAL, new Result(bad).getStatus());
        assertTrue(text(bad).contains("CRITICAL ManagedServer /127.0.0.1:9090 listens on no transport"), text(bad));
        assertEquals(Result.Status.OK, new Result(EndpointsHealthCheck.evaluate(List.of())).getStatus());
    }

    @Test
    void aLeakReportWarnsForTheWindowThenClears() {
        AtomicLong reports = new AtomicLong();
        AtomicLong clock = new AtomicLong(1_000);
        LeakHealthCheck check = new LeakHealthCheck(reports::get, clock::get, 10);
        assertEquals(Result.Status.OK, check.execute().getStatus());
        reports.set(2);
        clock.addAndGet(TimeUnit.MINUTES.toNanos(1));
        Result warn = check.execute();
        assertEquals(Result.Status.WARN, warn.getStatus());
        assertTrue(warn.toString().contains("2 buffer leak report(s) so far, the latest within the last 10 minutes"),
                warn.toString());
        clock.addAndGet(TimeUnit.MINUTES.toNanos(9));
        assertEquals(Result.Status.WARN, check.execute().getStatus(), "9 minutes later: still within the window");
        clock.addAndGet(TimeUnit.MINUTES.toNanos(1) + 1);
        Result ok = check.execute();
        assertEquals(Result.Status.OK, ok.getStatus(), "10 minutes without a new report");
        assertTrue(ok.toString().contains("No buffer leak reported in the last 10 minutes (2 so far)"), ok.toString());
        reports.set(3);
        assertEquals(Result.Status.WARN, check.execute().getStatus(), "a new report");
        assertThrows(IllegalArgumentException.class, () -> new LeakHealthCheck(reports::get, clock::get, 0));
    }
}
