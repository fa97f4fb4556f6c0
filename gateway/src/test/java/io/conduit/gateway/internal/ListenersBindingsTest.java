package io.conduit.gateway.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

class ListenersBindingsTest {

    @Test
    void udpEndpointsAreMarkedAsStayingOnTheirTransport() throws Exception {
        try (Listeners listeners = new Listeners("echo test")) {
            List<GatewayUri> endpoints = List.of(GatewayUri.parse("tcp://127.0.0.1:7007"),
                    GatewayUri.parse("udp://127.0.0.1:7007"));
            listeners.bindAll(endpoints, d -> d, endpoint -> CompletableFuture.completedFuture(bound(endpoint.kind().isStream()))).get();
            assertEquals(List.of("tcp://127.0.0.1:7007 [nio]",
                    "udp://127.0.0.1:7007 [epoll] (stays on epoll: UDP listeners do not follow swaps)"),
                    listeners.bindings());
        }
    }

    private static Network.Bound bound(boolean stream) {
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
                return stream ? "nio" : "epoll";
            }

            @Override
            public boolean followsSwaps() {
                return stream;
            }
        };
    }
}
