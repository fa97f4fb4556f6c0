package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.conduit.gateway.internal.FakeNetwork;
import io.conduit.gateway.internal.LogCapture;
import io.conduit.gateway.internal.status.GatewayStatus;
import org.junit.jupiter.api.Test;

class ListenersBindingsTest {

    /** Each binding line names the transport its endpoint is on at the time of the call, UDP as TCP. */
    @Test
    void everyEndpointShowsTheTransportItIsOnNow() throws Exception {
        String[] transport = {"epoll"};
        try (Listeners listeners = new Listeners("echo test")) {
            List<GatewayUri> endpoints = List.of(GatewayUri.parse("tcp://127.0.0.1:7007"),
                    GatewayUri.parse("udp://127.0.0.1:7007"));
            listeners.bindAll(endpoints, d -> d, new FakeNetwork(),
                    endpoint -> CompletableFuture.completedFuture(bound(transport)))
                    .get();
            assertEquals(List.of("tcp://127.0.0.1:7007 [epoll]", "udp://127.0.0.1:7007 [epoll]"),
                    listeners.bindings());
            transport[0] = "nio"; // both moved on a swap
            assertEquals(List.of("tcp://127.0.0.1:7007 [nio]", "udp://127.0.0.1:7007 [nio]"), listeners.bindings());
            transport[0] = null; // no listener or socket now, and the Bound does not say why
            assertEquals(List.of(), listeners.bindings(), "an endpoint with no transport is not listening");
            assertEquals(List.of("cannot listen on tcp://127.0.0.1:7007: it has no listener or socket now (see the "
                    + "log); it listens again on the next transport change", "cannot listen on udp://127.0.0.1:7007: "
                    + "it has no listener or socket now (see the log); it listens again on the next transport change"),
                    listeners.failures());
        }
    }

    /**
     * A relay file added while the gateway ran started listening without a line: the launcher's banner shows what
     * listens at start, and nothing showed what came later. A component told to announce its binds (after the banner,
     * or outside the launcher) logs one INFO line per endpoint, as the banner shows it, and one line when its
     * configuration goes away or changes; before the banner it logs none.
     */
    @Test
    void anEndpointBoundAfterTheBannerIsOneInfoLineAndItsEndIsOneToo() throws Exception {
        List<GatewayUri> endpoints = List.of(GatewayUri.parse("tcp://127.0.0.1:7007"),
                GatewayUri.parse("udp://127.0.0.1:7007"));
        try (LogCapture log = new LogCapture()) {
            Listeners atStart = new Listeners("relay r.cfg");
            atStart.announceBinds(() -> false); // the banner is still to come: it shows them
            atStart.bindAll(endpoints, d -> d + " -> tcp://127.0.0.1:6379", new FakeNetwork(),
                    endpoint -> CompletableFuture.completedFuture(bound(new String[] {"epoll"}))).get();
            assertEquals(List.of(), log.messages());
            atStart.close(null); // the bundle or the framework stops
            assertEquals(List.of(), log.messages());

            Listeners late = new Listeners("relay r.cfg");
            late.announceBinds(() -> true);
            late.bindAll(endpoints, d -> d + " -> tcp://127.0.0.1:6379", new FakeNetwork(),
                    endpoint -> CompletableFuture.completedFuture(bound(new String[] {"epoll"}))).get();
            assertEquals(List.of("INFO relay r.cfg: listening on tcp://127.0.0.1:7007 -> tcp://127.0.0.1:6379, on "
                    + "transport 'epoll'", "INFO relay r.cfg: listening on udp://127.0.0.1:7007 -> "
                    + "tcp://127.0.0.1:6379, on transport 'epoll'"), log.messages());
            late.close(io.conduit.gateway.internal.config.ConfigurationFiles.deactivated(
                    org.osgi.service.component.ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_DELETED));
            assertEquals("INFO relay r.cfg: its configuration was removed; it no longer listens on tcp://127.0.0.1:7007"
                    + " -> tcp://127.0.0.1:6379, udp://127.0.0.1:7007 -> tcp://127.0.0.1:6379",
                    log.messages().get(2));
            assertEquals(3, log.messages().size());
        }
        assertEquals("its configuration changed", io.conduit.gateway.internal.config.ConfigurationFiles.deactivated(
                org.osgi.service.component.ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_MODIFIED));
        assertEquals(null, io.conduit.gateway.internal.config.ConfigurationFiles.deactivated(
                org.osgi.service.component.ComponentConstants.DEACTIVATION_REASON_BUNDLE_STOPPED));
    }

    /**
     * What the component adds to an endpoint (here: its certificate) is asked for whenever the endpoint is shown, so a
     * certificate reloaded after the bind is the one shown ({@code conduit:gateway} showed the one of bind time).
     */
    @Test
    void whatAnEndpointIsShownWithIsReadWhenItIsShown() throws Exception {
        String[] certificate = {"certificate CN=old"};
        try (Listeners listeners = new Listeners("echo test")) {
            listeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7007")), d -> d + " (" + certificate[0] + ")",
                    new FakeNetwork(), endpoint -> CompletableFuture.completedFuture(bound(new String[] {"epoll"})))
                    .get();
            assertEquals(List.of("tcp://127.0.0.1:7007 (certificate CN=old)"), listeners.listening());
            certificate[0] = "certificate CN=renewed";
            assertEquals(List.of("tcp://127.0.0.1:7007 (certificate CN=renewed)"), listeners.listening());
            assertEquals(List.of("tcp://127.0.0.1:7007 (certificate CN=renewed) [epoll]"), listeners.bindings());
        }
    }

    /**
     * An endpoint whose transport went away (e.g. every transport bundle stopped) is a problem with the reason its
     * {@link Network.Bound#problem()} gives, and no longer a binding; the others stay listening. Once it has a
     * transport again it is listening again.
     */
    @Test
    void anEndpointWithoutATransportNowIsAProblemWithItsReasonAndNotABinding() throws Exception {
        String[] tcp = {"epoll"};
        String[] udp = {"epoll"};
        try (Listeners listeners = new Listeners("echo test")) {
            listeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7007"), GatewayUri.parse("udp://127.0.0.1:7007")),
                    d -> d, new FakeNetwork(), endpoint -> CompletableFuture.completedFuture(endpoint.kind().isStream()
                            ? bound(tcp, "no transport is selected (test)") : bound(udp, "no transport is selected (test)")))
                    .get();
            udp[0] = null;
            GatewayStatus.Now now = listeners.now();
            assertEquals(List.of("tcp://127.0.0.1:7007 [epoll]"), now.bindings());
            assertEquals(List.of("cannot listen on udp://127.0.0.1:7007: no transport is selected (test)"),
                    now.failures());
            assertEquals(now.bindings(), listeners.bindings());
            assertEquals(now.failures(), listeners.failures());
            tcp[0] = null;
            assertEquals(List.of(), listeners.bindings());
            assertEquals(2, listeners.failures().size(), listeners.failures().toString());
            tcp[0] = "nio";
            udp[0] = "nio";
            assertEquals(List.of("tcp://127.0.0.1:7007 [nio]", "udp://127.0.0.1:7007 [nio]"), listeners.bindings());
            assertEquals(List.of(), listeners.failures());
        }
    }

    @Test
    void anEndpointListedTwiceListensOnceAndTheSecondSaysSo() throws Exception {
        java.util.concurrent.atomic.AtomicInteger binds = new java.util.concurrent.atomic.AtomicInteger();
        try (Listeners listeners = new Listeners("echo test")) {
            listeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7007"), GatewayUri.parse("udp://127.0.0.1:7007"),
                    GatewayUri.parse("tcp://127.0.0.1:7007"), GatewayUri.parse("tcp://localhost:7007")), d -> d,
                    new FakeNetwork(), endpoint -> {
                        binds.incrementAndGet();
                        return CompletableFuture.completedFuture(bound(new String[] {"nio"}));
                    }).get();
            assertEquals(2, binds.get(), "tcp and udp once each");
            List<String> failures = listeners.failures();
            assertEquals(2, failures.size(), failures.toString());
            assertEquals("cannot listen on tcp://127.0.0.1:7007: it is listed twice in 'listen'; it listens once: "
                    + "remove the second entry", failures.get(0));
            org.junit.jupiter.api.Assertions.assertTrue(failures.get(1).contains("listed twice")
                    && failures.get(1).contains("(also as tcp://127.0.0.1:7007)"), failures.get(1));
        }
    }

    @Test
    void anEndpointTheSelectedTransportCannotServeIsBoundWhenOneThatCanIsSelected() throws Exception {
        String[] selected = {"nio"};
        Runnable[] change = new Runnable[1];
        FakeNetwork network = watchedBy(change);
        int[] updates = {0};
        try (Listeners listeners = new Listeners("echo test")) {
            listeners.onChange(() -> updates[0]++);
            GatewayUri name = GatewayUri.parse("unix:@conduit-test");
            listeners.bindAll(List.of(name), d -> d, network, endpoint -> selected[0].equals("epoll")
                    ? CompletableFuture.completedFuture(bound(selected))
                    : CompletableFuture.failedFuture(new Network.NotOnThisTransport("not on " + selected[0]))).get();
            assertEquals(List.of("cannot listen on unix:@conduit-test: not on nio"), listeners.failures());
            org.junit.jupiter.api.Assertions.assertNotNull(change[0], "it waits for a transport change");
            selected[0] = "kqueue";
            change[0].run();
            assertEquals(List.of("cannot listen on unix:@conduit-test: not on kqueue"), listeners.failures());
            selected[0] = "epoll";
            change[0].run();
            assertEquals(List.of(), listeners.failures());
            assertEquals(List.of("unix:@conduit-test [epoll]"), listeners.bindings());
            assertEquals(2, updates[0], "the status is updated after each new outcome");
            org.junit.jupiter.api.Assertions.assertNull(change[0], "nothing waits any more: the watch is closed");
        }
    }

    /**
     * An address in use (another process still holds the port) is one WARNING saying it is tried again; the endpoint
     * is bound again by a timer, without a warning per attempt, and listens once the address is free (one INFO line,
     * the status updated). Other bind errors are not tried again.
     *
     * <p>The address stays taken until the test has read the first outcome and seen a retry: a fixed number of failed
     * attempts let a loaded machine, slower than three 20 ms periods between two statements, see the bind succeed
     * before the first assertion.
     */
    @Test
    void anAddressInUseIsTriedAgainUntilItBindsWithOneWarningAndOneInfoLine() throws Exception {
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger updates = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean(true);
        GatewayUri tcp = GatewayUri.parse("tcp://127.0.0.1:7007");
        GatewayUri denied = GatewayUri.parse("tcp://127.0.0.1:7");
        try (LogCapture log = new LogCapture(); Listeners listeners = new Listeners("echo test", 20)) {
            listeners.onChange(updates::incrementAndGet);
            GatewayUri udp = GatewayUri.parse("udp://127.0.0.1:7007");
            listeners.bindAll(List.of(tcp, udp, denied), d -> d, new FakeNetwork(), endpoint -> {
                if (endpoint.equals(udp)) {
                    return CompletableFuture.completedFuture(bound(new String[] {"nio"}));
                }
                if (endpoint.equals(denied)) {
                    return CompletableFuture.failedFuture(new java.net.BindException("Permission denied"));
                }
                attempts.incrementAndGet();
                return taken.get()
                        ? CompletableFuture.failedFuture(new java.net.BindException("ManagedServer cannot listen on "
                                + "/127.0.0.1:7007 (transport 'nio'): address already in use: another socket listens "
                                + "there (Address already in use); stop it or configure another port"))
                        : CompletableFuture.completedFuture(bound(new String[] {"nio"}));
            }).get();
            String inUse = "cannot listen on tcp://127.0.0.1:7007: BindException: ManagedServer cannot listen on "
                    + "/127.0.0.1:7007 (transport 'nio'): address already in use: another socket listens there "
                    + "(Address already in use); stop it or configure another port; it is tried again every 20 ms";
            String deniedLine = "cannot listen on tcp://127.0.0.1:7: BindException: Permission denied";
            assertEquals(java.util.Set.of(inUse, deniedLine), java.util.Set.copyOf(listeners.failures()),
                    "a retry may have run already (20 ms), which lists its outcome last");
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (attempts.get() < 3) {
                org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() - deadline < 0, "tried again");
                Thread.sleep(5);
            }
            assertEquals(java.util.Set.of(inUse, deniedLine), java.util.Set.copyOf(listeners.failures()),
                    "the same outcome, not a line per attempt");
            taken.set(false);
            while (listeners.bindings().size() < 2) {
                org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() - deadline < 0,
                        "bound once the address is free: " + listeners.failures());
                Thread.sleep(5);
            }
            org.junit.jupiter.api.Assertions.assertTrue(updates.get() >= 1, "the status is updated");
            assertEquals(List.of("tcp://127.0.0.1:7007 [nio]", "udp://127.0.0.1:7007 [nio]"), listeners.bindings(),
                    "in the order of 'listen', although udp bound first");
            assertEquals(List.of(deniedLine), listeners.failures());
            int attemptsUntilBound = attempts.get();
            while (log.messages().size() < 3) { // the INFO line follows the binding, outside the lock
                org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() - deadline < 0, "logged: "
                        + log.messages());
                Thread.sleep(5);
            }
            assertEquals(List.of("WARNING echo test: " + inUse, "WARNING echo test: " + deniedLine,
                    "INFO echo test: listening on tcp://127.0.0.1:7007 now, on transport 'nio'"), log.messages());
            Thread.sleep(100);
            assertEquals(attemptsUntilBound, attempts.get(), "no attempt after it bound; a denied bind is not tried "
                    + "again");
        }
    }

    @Test
    void closingStopsTheRetriesOfAnAddressInUse() throws Exception {
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        Listeners listeners = new Listeners("echo test", 20);
        listeners.bindAll(List.of(GatewayUri.parse("unix:/tmp/conduit-listeners-test.sock")), d -> d,
                new FakeNetwork(), endpoint -> {
                    attempts.incrementAndGet();
                    return CompletableFuture.failedFuture(new io.conduit.channel.AddressBindException(
                            "unix:/tmp/conduit-listeners-test.sock is in use: a socket listens on it",
                            io.conduit.channel.AddressBindException.Reason.IN_USE,
                            java.net.UnixDomainSocketAddress.of("/tmp/conduit-listeners-test.sock"), null));
                }).get();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (attempts.get() < 2) {
            org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() - deadline < 0, "tried again");
            Thread.sleep(5);
        }
        listeners.close();
        int after = attempts.get();
        Thread.sleep(200);
        org.junit.jupiter.api.Assertions.assertTrue(attempts.get() <= after + 1,
                "at most the attempt running at close: " + after + " -> " + attempts.get());
        assertEquals(List.of(), listeners.bindings());
    }

    /** A bind that finds no transport selected (its bundles stopped meanwhile) waits for the next transport change. */
    @Test
    void aBindThatFindsNoTransportIsBoundOnTheNextTransportChange() throws Exception {
        Runnable[] change = new Runnable[1];
        FakeNetwork network = watchedBy(change);
        boolean[] selected = {false};
        try (Listeners listeners = new Listeners("echo test")) {
            listeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7007")), d -> d, network, endpoint -> selected[0]
                    ? CompletableFuture.completedFuture(bound(new String[] {"epoll"}))
                    : CompletableFuture.failedFuture(new io.conduit.transport.UnavailableTransportException(
                            "ManagedServer /127.0.0.1:7007: no transport is selected (test)", null))).get();
            assertEquals(List.of("cannot listen on tcp://127.0.0.1:7007: UnavailableTransportException: ManagedServer "
                    + "/127.0.0.1:7007: no transport is selected (test); it listens as soon as a transport is selected"),
                    listeners.failures());
            org.junit.jupiter.api.Assertions.assertNotNull(change[0], "it waits for a transport change");
            selected[0] = true;
            change[0].run();
            assertEquals(List.of("tcp://127.0.0.1:7007 [epoll]"), listeners.bindings());
            assertEquals(List.of(), listeners.failures());
        }
    }

    /**
     * A component whose configuration failed (a bind error, a bad configuration) and whose next instance, made for the
     * changed configuration, listens: one INFO line per endpoint that listens now and did not before. A configuration
     * change of a component that had no problem, or of one whose problem stays, logs nothing of the kind.
     */
    @Test
    void aComponentThatFailedAndListensAfterItsConfigurationChangedSaysSoOnce() throws Exception {
        EarlierFailures record = new EarlierFailures();
        GatewayUri tcp = GatewayUri.parse("tcp://127.0.0.1:7007");
        GatewayUri udp = GatewayUri.parse("udp://127.0.0.1:7007");
        String fixed = "INFO echo fix: listening on tcp://127.0.0.1:7007 now, on transport 'nio' (it did not listen "
                + "before the configuration changed)";
        try (LogCapture log = new LogCapture()) {
            try (Listeners failing = new Listeners("echo fix", 20, record)) {
                failing.bindAll(List.of(tcp, udp), d -> d, new FakeNetwork(), endpoint -> endpoint.equals(tcp)
                        ? CompletableFuture.failedFuture(new java.net.BindException("Permission denied"))
                        : CompletableFuture.completedFuture(bound(new String[] {"nio"}))).get();
            }
            try (Listeners working = new Listeners("echo fix", 20, record)) {
                working.bindAll(List.of(tcp, udp), d -> d, new FakeNetwork(),
                        endpoint -> CompletableFuture.completedFuture(bound(new String[] {"nio"}))).get();
                assertEquals(List.of("WARNING echo fix: cannot listen on tcp://127.0.0.1:7007: BindException: "
                        + "Permission denied", fixed), log.messages(), "udp listened before: no line for it");
            }
            try (Listeners again = new Listeners("echo fix", 20, record)) {
                again.bindAll(List.of(tcp), d -> d, new FakeNetwork(),
                        endpoint -> CompletableFuture.completedFuture(bound(new String[] {"nio"}))).get();
            }
            assertEquals(2, log.messages().size(), "no problem before this change: " + log.messages());

            Listeners bad = new Listeners("echo fix", 20, record);
            bad.fail("bad configuration: 'listen' is missing");
            bad.close();
            try (Listeners stillBad = new Listeners("echo other", 20, record)) {
                stillBad.fail("bad configuration: 'listen' is missing");
            }
            try (Listeners working = new Listeners("echo fix", 20, record)) {
                working.bindAll(List.of(tcp), d -> d, new FakeNetwork(),
                        endpoint -> CompletableFuture.completedFuture(bound(new String[] {"nio"}))).get();
            }
            List<String> lines = log.messages();
            assertEquals(5, lines.size(), lines.toString());
            assertEquals(fixed, lines.get(4), "after a bad configuration, fixed: " + lines);
        }
        try (LogCapture log = new LogCapture(); Listeners plain = new Listeners("echo other", 20)) {
            plain.bindAll(List.of(tcp), d -> d, new FakeNetwork(),
                    endpoint -> CompletableFuture.completedFuture(bound(new String[] {"nio"}))).get();
            assertEquals(List.of(), log.messages(), "without a record, nothing is remembered");
        }
    }

    @Test
    void onlyABindExceptionSayingInUseCountsAsAnAddressInUse() {
        org.junit.jupiter.api.Assertions.assertTrue(Listeners.inUse(new java.util.concurrent.CompletionException(
                new java.net.BindException("Address already in use"))));
        org.junit.jupiter.api.Assertions.assertFalse(Listeners.inUse(new java.net.BindException("Permission denied")));
        org.junit.jupiter.api.Assertions.assertFalse(Listeners.inUse(new java.io.IOException("in use")));
        org.junit.jupiter.api.Assertions.assertFalse(Listeners.inUse(null));
    }

    /**
     * @param change where the network puts the transport-change callback while it is watched ({@code null} once the
     *               watch is closed)
     */
    private static FakeNetwork watchedBy(Runnable[] change) {
        return new FakeNetwork() {
            @Override
            public AutoCloseable onTransportChange(Runnable onChange) {
                change[0] = onChange;
                return () -> change[0] = null;
            }
        };
    }

    private static Network.Bound bound(String[] transport) {
        return bound(transport, null);
    }

    /** @param problem what {@link Network.Bound#problem()} says while {@code transport[0]} is {@code null} */
    private static Network.Bound bound(String[] transport, String problem) {
        return new Network.Bound() {
            @Override
            public String problem() {
                return transport[0] == null ? problem : null;
            }

            @Override
            public SocketAddress localAddress() {
                return new InetSocketAddress("127.0.0.1", 7007);
            }

            @Override
            public void close() {
            }

            @Override
            public String transportName() {
                return transport[0];
            }
        };
    }
}
