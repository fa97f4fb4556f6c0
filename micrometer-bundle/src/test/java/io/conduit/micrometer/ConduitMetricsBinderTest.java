package io.conduit.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.conduit.testsuite.EchoHandler;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transports;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The binder over the real platform (the nio transport on the class path): a ManagedServer echo gets its endpoint
 * meters at a refresh, the transport's byte counters move by exactly what a plain socket sent and got back, and a
 * closed endpoint's meters go at the next refresh.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConduitMetricsBinderTest {

    private static double counter(SimpleMeterRegistry r, String name, String... tags) {
        FunctionCounter c = r.find(name).tags(tags).functionCounter();
        return c == null ? Double.NaN : c.count();
    }

    @Test
    void theMetersFollowAnEchoAndItsManagedServer() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ConduitMetricsBinder binder = new ConduitMetricsBinder(Transports::metrics, Duration.ZERO,
                Duration.ZERO)) {
            binder.bindTo(registry);
            ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new EchoHandler());
            InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
            String transport = server.transportName();
            binder.refresh();
            String endpoint = "/127.0.0.1:" + address.getPort();
            assertEquals(0, counter(registry, "conduit.endpoint.connections.accepted", "kind", "ManagedServer",
                    "endpoint", endpoint));
            double readBefore = counter(registry, "conduit.transport.read", "transport", transport);
            double writtenBefore = counter(registry, "conduit.transport.written", "transport", transport);

            byte[] data = new byte[100_000];
            Arrays.fill(data, (byte) 7);
            Socket s = new Socket(address.getAddress(), address.getPort());
            try (s) {
                s.getOutputStream().write(data);
                assertEquals(data.length, s.getInputStream().readNBytes(data.length).length);
                Gauge open = registry.find("conduit.endpoint.connections.open").tags("endpoint", endpoint).gauge();
                assertEquals(1, open.value(), "one connection open now");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (counter(registry, "conduit.endpoint.connections.open", "endpoint", endpoint) != 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, counter(registry, "conduit.endpoint.connections.accepted", "endpoint", endpoint));
            assertEquals(data.length, counter(registry, "conduit.transport.read", "transport", transport)
                    - readBefore, "the server read what the socket sent");
            assertEquals(data.length, counter(registry, "conduit.transport.written", "transport", transport)
                    - writtenBefore, "and wrote it back");
            assertTrue(counter(registry, "conduit.transport.loop.busy", "transport", transport) > 0);
            assertTrue(registry.find("conduit.allocator.direct.pooled").gauge().value() >= 0);

            server.close().await(10, TimeUnit.SECONDS);
            binder.refresh();
            assertNull(registry.find("conduit.endpoint.connections.accepted").tags("endpoint", endpoint)
                    .functionCounter(), "a closed endpoint's meters go at the next refresh");
        }
    }

    @Test
    void negativeDurationsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ConduitMetricsBinder(Transports::metrics,
                Duration.ofSeconds(-1), Duration.ZERO));
    }
}
