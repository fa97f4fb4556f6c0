package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.conduit.testsuite.EchoHandler;
import io.conduit.testsuite.SocketRoundTrip;
import io.conduit.transport.ManagedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The platform's families in a scrape, over the real platform: a ManagedServer echo's transport read and wrote
 * exactly the bytes a plain socket sent, the endpoint's swap counters and the allocator are there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlatformMetricsTest {

    private static String scrape() {
        Exposition e = new Exposition();
        new PlatformMetrics().collect(e);
        return e.text();
    }

    private static long sample(String text, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "}") + " (\\S+)$").matcher(text);
        assertTrue(m.find(), name + "{" + labels + "} in\n" + text);
        return (long) Double.parseDouble(m.group(1));
    }

    @Test
    void aScrapeHasTheTransportsEndpointsAndAllocatorOfThePlatform() throws Exception {
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new EchoHandler());
        InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
        try {
            String t = "transport=\"" + server.transportName() + "\"";
            String before = scrape();
            byte[] data = new byte[50_000];
            SocketRoundTrip.echo(address, data);
            // the loop counts a write after its system call returned, so the client may see the bytes first
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String after = scrape();
            while (sample(after, "conduit_transport_written_bytes_total", t)
                    - sample(before, "conduit_transport_written_bytes_total", t) < data.length
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
                after = scrape();
            }
            assertEquals(data.length, sample(after, "conduit_transport_read_bytes_total", t)
                    - sample(before, "conduit_transport_read_bytes_total", t));
            assertEquals(data.length, sample(after, "conduit_transport_written_bytes_total", t)
                    - sample(before, "conduit_transport_written_bytes_total", t));
            assertEquals(1, sample(after, "conduit_transport_accepted_connections_total", t)
                    - sample(before, "conduit_transport_accepted_connections_total", t));
            String endpoint = "kind=\"ManagedServer\",address=\"/127.0.0.1:" + address.getPort() + "\"";
            assertEquals(0, sample(after, "conduit_managed_swaps_total", endpoint));
            assertTrue(sample(after, "conduit_allocator_leak_reports_total", "allocator=\"pooled\"") >= 0);
            assertTrue(after.contains("# TYPE conduit_transport_loop_busy_seconds_total counter\n"), after);
        } finally {
            server.close().await(10, TimeUnit.SECONDS);
        }
    }
}
