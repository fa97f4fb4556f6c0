package io.conduit.gateway.internal.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelInitializer;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.network.BootstrapNetwork;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.network.Streams;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * A TCP relay with {@code zeroCopy=true}: a curl-like download (a request line up, 40 MiB down, then the server's end
 * of stream) arrives with the same SHA-256, spliced on epoll and io_uring and copied on nio (which cannot splice); a
 * client that resets while both directions are backed up does not keep the upstream connection.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZeroCopyRelayTest {

    private static final int SIZE = 40 << 20;

    @AfterEach
    void clearPreference() {
        Transports.setPreference(null);
    }

    @Test
    void epollSplicesBothDirections() throws Exception {
        long before = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
        download("epoll");
        assertEquals(before + 2, RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "both directions were spliced");
    }

    /** io_uring splices too (issue 20): its sockets have a receive in flight when the relay starts forwarding. */
    @Test
    void ioUringSplicesBothDirections() throws Exception {
        long before = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
        download("io_uring");
        assertEquals(before + 2, RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "both directions were spliced");
    }

    @Test
    void nioFallsBackToCopying() throws Exception {
        long before = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
        download("nio");
        assertEquals(before, RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "nio cannot splice: copied");
    }

    /**
     * Both directions backed up (the client and the upstream each write and read nothing), then one side resets
     * ({@code SO_LINGER} 0). A copying relay learns it when its write to that side fails, and closes the other side
     * once that channel's pending writes flush, or after {@code Streams.closeAfterFlushTimeoutMillis} (set to 1 s
     * here; 30 s by default), since they never will. Zero-copy forwarding must be bounded as well: its splice into
     * the reset side fails, which closes both channels at once (the bytes in the pipes are dropped with the
     * connection). The other side sees its connection reset (it had unread bytes) within the timeout and some slack.
     */
    @ParameterizedTest(name = "{0}, {1} resets")
    @org.junit.jupiter.params.provider.CsvSource({"epoll, client", "epoll, upstream", "io_uring, client",
            "io_uring, upstream", "nio, client", "nio, upstream"})
    void aResetWhileBothDirectionsAreBackedUpClosesTheOtherSideWithinTheFlushTimeout(String transportName,
            String resetting) throws Exception {
        java.lang.reflect.Field timeout = Streams.class.getDeclaredField("closeAfterFlushTimeoutMillis");
        timeout.setAccessible(true); // the test hook is package-private in another package of this module
        long saved = (long) timeout.get(null);
        timeout.set(null, 1_000L);
        Transports.setPreference(transportName);
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newCachedThreadPool();
        Network.Bound bound = null;
        try (ServerSocket origin = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
                Socket client = new Socket()) {
            bound = relayTo(origin, transportName);
            long spliced = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
            client.connect(bound.localAddress(), 5000);
            try (Socket upstream = origin.accept()) {
                CompletableFuture<Long> upstreamWrites = CompletableFuture.supplyAsync(() -> writeUntilFailure(upstream),
                        threads);
                CompletableFuture<Long> clientWrites = CompletableFuture.supplyAsync(() -> writeUntilFailure(client),
                        threads);
                long backedUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (progress(upstream) + progress(client) < 2) { // both writers blocked: everything is full
                    assertTrue(System.nanoTime() - backedUp < 0, "both directions did not back up within 20 s");
                }
                assertEquals(transportName.equals("nio") ? spliced : spliced + 2,
                        RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "spliced where the transport can");
                boolean clientResets = resetting.equals("client");
                Socket reset = clientResets ? client : upstream;
                CompletableFuture<Long> other = clientResets ? upstreamWrites : clientWrites;
                reset.setSoLinger(true, 0);
                reset.close(); // RST
                long resetAfter = System.nanoTime();
                other.handle((n, e) -> null).get(1 + 5, TimeUnit.SECONDS); // the relay closed the other side
                assertTrue(other.isCompletedExceptionally(), "the other side's connection was reset");
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resetAfter);
                System.out.println("[zero-copy relay] " + transportName + ": " + (clientResets ? "upstream" : "client")
                        + " closed " + ms + " ms after the " + resetting + "'s reset");
                (clientResets ? clientWrites : upstreamWrites).handle((n, e) -> null).get(5, TimeUnit.SECONDS);
            }
        } finally {
            timeout.set(null, saved);
            threads.shutdownNow();
            if (bound != null) {
                bound.close();
            }
        }
    }

    /** Socket to its writer's bytes so far, for {@link #progress}; the writers run until their socket fails. */
    private static final Map<Socket, java.util.concurrent.atomic.AtomicLong> WRITTEN =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Writes 64 KiB blocks until the socket fails. @return never: completes exceptionally */
    private static long writeUntilFailure(Socket s) {
        java.util.concurrent.atomic.AtomicLong written = WRITTEN.computeIfAbsent(s,
                k -> new java.util.concurrent.atomic.AtomicLong());
        byte[] block = new byte[64 * 1024];
        try {
            OutputStream out = s.getOutputStream();
            while (true) {
                out.write(block);
                written.addAndGet(block.length);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            WRITTEN.remove(s);
        }
    }

    /**
     * @return 1 when the writer of {@code s} has written something and then nothing for 300 ms (blocked: the
     *         buffers on its way are full), else 0
     */
    private static int progress(Socket s) throws InterruptedException {
        java.util.concurrent.atomic.AtomicLong w = WRITTEN.get(s);
        long before = w == null ? 0 : w.get();
        Thread.sleep(300);
        long after = w == null ? 0 : w.get();
        return after > 0 && after == before ? 1 : 0;
    }

    /** @return a {@code zeroCopy=true} relay on the selected transport, {@code transportName}, to {@code origin} */
    private static Network.Bound relayTo(ServerSocket origin, String transportName) throws Exception {
        RelayConfig config = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0",
                "upstream", "tcp://127.0.0.1:" + origin.getLocalPort(), "zeroCopy", "true"));
        BootstrapNetwork network = new BootstrapNetwork();
        Network.Bound bound = network.listen(config.listen(), RelayFrontendHandler.connectionOptions(config),
                new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new RelayFrontendHandler(config, network));
                    }
                }).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(transportName, bound.transportName());
        return bound;
    }

    private static void download(String transportName) throws Exception {
        Transports.setPreference(transportName);
        Transport transport = Transports.get(transportName);
        assertEquals(transportName, Transports.selected().name(), Transports.selection().explain());
        byte[] file = new byte[SIZE];
        new Random(SIZE).nextBytes(file);
        Network.Bound bound = null;
        try (ServerSocket origin = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> request = CompletableFuture.supplyAsync(() -> serveOnce(origin, file));
            bound = relayTo(origin, transportName);
            try (Socket client = new Socket()) {
                client.connect(bound.localAddress(), 5000);
                client.setSoTimeout(60_000);
                client.getOutputStream().write("GET /big.bin\n".getBytes(StandardCharsets.US_ASCII));
                MessageDigest md = MessageDigest.getInstance("SHA-256");
                long received = 0;
                byte[] buf = new byte[1 << 16];
                try (InputStream in = client.getInputStream()) {
                    int n;
                    while ((n = in.read(buf)) > 0) { // to the end of stream the server's shutdown sends through
                        md.update(buf, 0, n);
                        received += n;
                    }
                }
                assertEquals(SIZE, received);
                assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file)),
                        HexFormat.of().formatHex(md.digest()), "SHA-256 through the " + transportName + " relay");
            }
            assertEquals("GET /big.bin", request.get(10, TimeUnit.SECONDS));
        } finally {
            if (bound != null) {
                bound.close();
            }
        }
    }

    /** Accepts one connection, reads its request line, sends {@code file}, then closes. @return the request line */
    private static String serveOnce(ServerSocket origin, byte[] file) {
        try (Socket s = origin.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setSoTimeout(30_000);
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                line.append((char) c);
            }
            for (int off = 0; off < file.length; off += 1 << 20) {
                out.write(file, off, Math.min(1 << 20, file.length - off));
            }
            s.shutdownOutput();
            assertTrue(in.read() < 0, "the relay forwards the client's close");
            return line.toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
