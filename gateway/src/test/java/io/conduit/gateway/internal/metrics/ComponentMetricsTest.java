package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.FakeNetwork;
import io.conduit.gateway.internal.metrics.EndpointCounters.Side;
import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.network.Network;
import org.junit.jupiter.api.Test;

class ComponentMetricsTest {

    private static Network.Bound bound(String transport) {
        return new Network.Bound() {
            @Override
            public SocketAddress localAddress() {
                return new InetSocketAddress("127.0.0.1", 6380);
            }

            @Override
            public void close() {
            }

            @Override
            public String transportName() {
                return transport;
            }
        };
    }

    private static List<String> lines(String text, String family) {
        return text.lines().filter(l -> l.startsWith(family)).toList();
    }

    @Test
    void aRelaysEndpointIsOneLabelledSeriesPerFamilyWithItsUpstream() throws Exception {
        GatewayUri listen = GatewayUri.parse("tcp://127.0.0.1:6380");
        GatewayUri upstream = GatewayUri.parse("tcp://127.0.0.1:6379");
        try (Listeners listeners = new Listeners("relay r.cfg")) {
            ComponentMetrics metrics = new ComponentMetrics("relay", "r.cfg", upstream, listeners);
            EndpointCounters counters = metrics.endpoint(listen);
            listeners.bindAll(List.of(listen), d -> d, new FakeNetwork(),
                    e -> CompletableFuture.completedFuture(bound("epoll"))).get();
            EmbeddedChannel loop = new EmbeddedChannel();
            EndpointCounters.Cell cell = counters.cell(loop.eventLoop());
            cell.connectionOpened();
            cell.received(Side.CLIENT, 5);
            cell.sent(Side.UPSTREAM, 5);
            cell.received(Side.UPSTREAM, 3);
            cell.sent(Side.CLIENT, 3);
            cell.connected(2_000_000);
            cell.connectFailed();
            Exposition x = new Exposition();
            metrics.collect(x);
            String text = x.text();
            String labels = "kind=\"relay\",config=\"r.cfg\",listen=\"tcp://127.0.0.1:6380\"";
            String up = labels + ",upstream=\"tcp://127.0.0.1:6379\"";
            assertEquals(List.of("conduit_gateway_endpoint_listening{" + labels + "} 1"),
                    lines(text, "conduit_gateway_endpoint_listening"));
            assertEquals(List.of("conduit_gateway_endpoint_transport_info{" + labels + ",transport=\"epoll\"} 1"),
                    lines(text, "conduit_gateway_endpoint_transport_info"));
            assertEquals(List.of("conduit_gateway_connections_open{" + labels + "} 1"),
                    lines(text, "conduit_gateway_connections_open"));
            assertEquals(List.of("conduit_gateway_client_received_bytes_total{" + labels + "} 5"),
                    lines(text, "conduit_gateway_client_received_bytes_total"));
            assertEquals(List.of("conduit_gateway_upstream_sent_bytes_total{" + up + "} 5"),
                    lines(text, "conduit_gateway_upstream_sent_bytes_total"));
            assertEquals(List.of("conduit_gateway_upstream_received_bytes_total{" + up + "} 3"),
                    lines(text, "conduit_gateway_upstream_received_bytes_total"));
            assertEquals(List.of("conduit_gateway_upstream_connect_failures_total{" + up + "} 1"),
                    lines(text, "conduit_gateway_upstream_connect_failures_total"));
            assertTrue(text.contains("conduit_gateway_upstream_connect_duration_seconds_bucket{" + up
                    + ",le=\"0.001\"} 0\n"), text);
            assertTrue(text.contains("conduit_gateway_upstream_connect_duration_seconds_bucket{" + up
                    + ",le=\"0.0025\"} 1\n"), text);
            assertTrue(text.contains("conduit_gateway_upstream_connect_duration_seconds_count{" + up + "} 1\n"), text);
            assertTrue(text.contains("conduit_gateway_upstream_connect_duration_seconds_sum{" + up + "} 0.002\n"), text);
            assertTrue(text.contains("# TYPE conduit_gateway_connections_total counter\n"), text);
            assertFalse(text.contains("datagrams"), "a TCP endpoint has no datagram families:\n" + text);
            loop.finishAndReleaseAll();
        }
    }

    @Test
    void anEndpointNotListeningIsZeroWithoutATransportAndAnEchoHasNoUpstreamFamilies() throws Exception {
        GatewayUri tcp = GatewayUri.parse("tcp://127.0.0.1:7007");
        GatewayUri udp = GatewayUri.parse("udp://127.0.0.1:7007");
        try (Listeners listeners = new Listeners("echo e.cfg")) {
            ComponentMetrics metrics = new ComponentMetrics("echo", "e.cfg", null, listeners);
            metrics.endpoint(tcp);
            metrics.endpoint(udp);
            listeners.bindAll(List.of(tcp, udp), d -> d, new FakeNetwork(), e -> e.kind().isStream()
                    ? CompletableFuture.completedFuture(bound("nio"))
                    : CompletableFuture.failedFuture(new java.net.BindException("Address already in use"))).get();
            Exposition x = new Exposition();
            metrics.collect(x);
            String text = x.text();
            assertEquals(List.of(
                    "conduit_gateway_endpoint_listening{kind=\"echo\",config=\"e.cfg\",listen=\"tcp://127.0.0.1:7007\"} 1",
                    "conduit_gateway_endpoint_listening{kind=\"echo\",config=\"e.cfg\",listen=\"udp://127.0.0.1:7007\"} 0"),
                    lines(text, "conduit_gateway_endpoint_listening"));
            assertEquals(1, lines(text, "conduit_gateway_endpoint_transport_info").size(), text);
            assertEquals(1, lines(text, "conduit_gateway_client_received_datagrams_total").size(), text);
            assertFalse(text.contains("upstream"), text);
        }
    }
}
