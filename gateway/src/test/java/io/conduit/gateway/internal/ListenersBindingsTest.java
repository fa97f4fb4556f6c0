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
            listeners.bindAll(endpoints, d -> d, endpoint -> CompletableFuture.completedFuture(bound(transport)))
                    .get();
            assertEquals(List.of("tcp://127.0.0.1:7007 [epoll]", "udp://127.0.0.1:7007 [epoll]"),
                    listeners.bindings());
            transport[0] = "nio"; // both moved on a swap
            assertEquals(List.of("tcp://127.0.0.1:7007 [nio]", "udp://127.0.0.1:7007 [nio]"), listeners.bindings());
            transport[0] = null;
            assertEquals(List.of("tcp://127.0.0.1:7007 [closed]", "udp://127.0.0.1:7007 [closed]"),
                    listeners.bindings());
        }
    }

    private static Network.Bound bound(String[] transport) {
        return new Network.Bound() {
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
