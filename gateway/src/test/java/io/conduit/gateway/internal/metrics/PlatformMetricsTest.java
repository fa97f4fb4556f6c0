package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.transport.ManagedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The platform's families in a scrape, over the real platform: a ManagedServer echo's transport read and wrote
 * exactly the bytes a plain socket sent, the endpoint's swap counters and the allocator are there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlatformMetricsTest {

    /** Echoes what it reads. */
    private static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

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
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new Echo());
        InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
        try {
            String t = "transport=\"" + server.transportName() + "\"";
            String before = scrape();
            byte[] data = new byte[50_000];
            try (Socket s = new Socket(address.getAddress(), address.getPort())) {
                OutputStream out = s.getOutputStream();
                out.write(data);
                out.flush();
                InputStream in = s.getInputStream();
                assertEquals(data.length, in.readNBytes(data.length).length);
            }
            String after = scrape();
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
