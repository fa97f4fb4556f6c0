package io.conduit.gateway.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
        FakeNetwork network = new FakeNetwork() {
            @Override
            public AutoCloseable onTransportChange(Runnable onChange) {
                change[0] = onChange;
                return () -> change[0] = null;
            }
        };
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
