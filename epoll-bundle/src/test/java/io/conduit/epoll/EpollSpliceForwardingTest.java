package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static io.conduit.epoll.EpollTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zero-copy forwarding ({@link ZeroCopyForwarding}, {@code splice(2)}) between two epoll TCP channels on one loop:
 * plain client {@code A} → accepted channel {@code source} → (splice) → channel {@code target} → plain server side
 * {@code B}, and back the other way.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EpollSpliceForwardingTest {

    private final EpollTransport transport = EpollTestSupport.transport();
    private IoEventLoopGroup group;
    @TempDir
    Path dir;

    @BeforeAll
    void start() {
        group = EpollTestSupport.group(1); // both channels of a forwarding share a loop
    }

    @AfterAll
    void stop() throws InterruptedException {
        EpollTestSupport.close(group);
    }

    /** The two plain sockets and the two epoll channels between them. */
    private final class Relay implements AutoCloseable {
        final Socket a;
        final Socket b;
        final Channel source;
        final Channel target;
        private final Channel server;
        private final ServerSocket sink;

        Relay() throws Exception {
            sink = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            EndOfStreamForwarder sourceHandler = new EndOfStreamForwarder(accepted);
            server = await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(sourceHandler).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
            EndOfStreamForwarder targetHandler = new EndOfStreamForwarder(null);
            target = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .option(ChannelOption.ALLOW_HALF_CLOSURE, true).handler(targetHandler)
                    .connect(sink.getLocalSocketAddress()));
            b = sink.accept();
            a = new Socket();
            a.connect(server.localAddress(), 5000);
            source = accepted.get(EpollTestSupport.WAIT_SECONDS, TimeUnit.SECONDS);
            sourceHandler.peer = target;
            targetHandler.peer = source;
            a.setSoTimeout(30_000);
            b.setSoTimeout(30_000);
        }

        @Override
        public void close() throws IOException {
            closeAll(source, target, server);
            a.close();
            b.close();
            sink.close();
        }
    }

    /**
     * Relays what reaches the pipeline (read ahead before forwarding began) and, on end of stream (half-closure), shuts
     * the output of the other channel down: what a relay handler does. Sharable
     * only in the sense that each test channel gets its own instance (one connection per server).
     */
    @ChannelHandler.Sharable
    private static final class EndOfStreamForwarder implements ChannelHandler {
        private final CompletableFuture<Channel> active;
        volatile Channel peer;

        EndOfStreamForwarder(CompletableFuture<Channel> active) {
            this.active = active;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(false); // nothing is read through the pipeline before forwarding
            if (active != null) {
                active.complete(ctx.channel());
            }
        }

        /** Input read before forwarding began (read ahead) is delivered here: relay it as a copy. */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            peer.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            peer.flush();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof InputShutdownEvent && peer instanceof DuplexChannel d) {
                d.shutdownOutput();
            }
        }
    }

    /** Byte {@code i} of a test stream. */
    private static byte pattern(long i, int seed) {
        return (byte) (i * 131 + (i >>> 13) + seed);
    }

    private static void writePattern(OutputStream out, long total, int seed) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        for (long off = 0; off < total; ) {
            int n = (int) Math.min(chunk.length, total - off);
            for (int i = 0; i < n; i++) {
                chunk[i] = pattern(off + i, seed);
            }
            out.write(chunk, 0, n);
            off += n;
        }
    }

    /** Reads to end of stream, checking every byte against the pattern. @return bytes read */
    private static long readPattern(InputStream in, int seed) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long off = 0;
        int n;
        while ((n = in.read(chunk)) > 0) {
            for (int i = 0; i < n; i++) {
                if (chunk[i] != pattern(off + i, seed)) {
                    throw new AssertionError("byte " + (off + i) + " differs");
                }
            }
            off += n;
        }
        return off;
    }

    @Test
    void forwardsBothWaysByteExactAndPropagatesEndOfStream() throws Exception {
        long pipesBefore = EpollSplicePipe.PIPES_CREATED.get();
        // one thread per blocking peer: the common pool may have a single worker on a small machine
        ExecutorService peers = Executors.newFixedThreadPool(3);
        try (Relay r = new Relay()) {
            assertInstanceOf(ZeroCopyForwarding.class, r.source);
            assertTrue(((ZeroCopyForwarding) r.source).canForwardTo(r.target));
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            Future<Void> down = ((ZeroCopyForwarding) r.target).forwardTo(r.source);
            long upBytes = 24L << 20;
            long downBytes = 3L << 20;
            CompletableFuture<Long> atB = CompletableFuture.supplyAsync(() -> read(r.b, 1), peers);
            CompletableFuture<Long> atA = CompletableFuture.supplyAsync(() -> read(r.a, 2), peers);
            CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> write(r.b, downBytes, 2), peers);
            writePattern(r.a.getOutputStream(), upBytes, 1);
            r.a.shutdownOutput(); // end of stream: reaches B as EOF, through the pipe
            assertEquals(upBytes, atB.get(60, TimeUnit.SECONDS));
            await(up);
            fromB.get(60, TimeUnit.SECONDS);
            assertEquals(downBytes, atA.get(60, TimeUnit.SECONDS));
            await(down);
            assertEquals(pipesBefore + 2, EpollSplicePipe.PIPES_CREATED.get(), "one pipe per direction");
        } finally {
            peers.shutdownNow();
        }
    }

    private static long read(Socket s, int seed) {
        try {
            return readPattern(s.getInputStream(), seed);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void write(Socket s, long total, int seed) {
        try {
            writePattern(s.getOutputStream(), total, seed);
            s.shutdownOutput();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aSlowReaderStopsTheSourceInsteadOfBuffering() throws Exception {
        long total = 96L << 20;
        try (Relay r = new Relay(); SocketChannel writer = SocketChannel.open()) {
            // A's role is taken by a non-blocking channel (A stays idle), so the test sees when the relay stops
            // taking bytes
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            EndOfStreamForwarder handler = new EndOfStreamForwarder(accepted);
            Channel server = await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(handler).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
            try {
                writer.connect(server.localAddress());
                writer.configureBlocking(false);
                Channel source = accepted.get(EpollTestSupport.WAIT_SECONDS, TimeUnit.SECONDS);
                handler.peer = r.target;
                Future<Void> up = ((ZeroCopyForwarding) source).forwardTo(r.target);

                // B reads nothing: the writer must stall once the kernel buffers and the pipe are full
                ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
                long written = 0;
                int idle = 0;
                while (idle < 200 && written < total) { // 200 idle tries of 5 ms: stalled
                    fill(chunk, written, 1);
                    int n = writer.write(chunk);
                    written += n;
                    if (n == 0) {
                        idle++;
                        Thread.sleep(5);
                    } else {
                        idle = 0;
                    }
                }
                assertTrue(written < 48L << 20, "the relay kept taking bytes while nobody read: " + written
                        + " bytes accepted");
                assertEquals(0, r.target.bytesBeforeWritable(), "no bytes queued in Java on the target");

                // now B reads everything: all bytes arrive, in order, and end of stream follows
                CompletableFuture<Long> atB = CompletableFuture.supplyAsync(() -> read(r.b, 1));
                while (written < total) {
                    fill(chunk, written, 1);
                    int n = writer.write(chunk);
                    written += n;
                    if (n == 0) {
                        Thread.sleep(1);
                    }
                }
                writer.shutdownOutput();
                assertEquals(total, atB.get(60, TimeUnit.SECONDS));
                await(up);
            } finally {
                closeAll(server);
            }
        }
    }

    /** Refills {@code chunk} with the pattern from stream offset {@code offset}, unless it still has bytes left. */
    private static void fill(ByteBuffer chunk, long offset, int seed) {
        if (chunk.hasRemaining() && chunk.position() > 0) {
            return;
        }
        chunk.clear();
        for (int i = 0; i < chunk.capacity(); i++) {
            chunk.put(i, pattern(offset + i, seed));
        }
    }

    @Test
    void aResetClosesBothChannelsAndFailsTheForwarding() throws Exception {
        try (Relay r = new Relay()) {
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            r.a.getOutputStream().write(new byte[1000]);
            r.b.getInputStream().readNBytes(1000); // forwarding runs
            r.a.setSoLinger(true, 0);
            r.a.close(); // RST
            Throwable cause = awaitFailure(up);
            assertInstanceOf(IOException.class, cause);
            assertTrue(String.valueOf(cause.getMessage()).contains("splice"), cause.toString());
            eventually("both channels closed", () -> !r.source.isOpen() && !r.target.isOpen());
        }
    }

    @Test
    void unixAndMixedPairsAreNotSpliced() throws Exception {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("mixed.sock"));
        Channel unixServer = await(new ServerBootstrap().transport(transport).group(group)
                .channelType(ChannelType.UNIX_STREAM).childHandler(new ChannelHandler() { }).bind(address));
        Channel unix = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .handler(new ChannelHandler() { }).connect(address));
        try (Relay r = new Relay()) {
            assertFalse(((ZeroCopyForwarding) r.source).canForwardTo(unix));
            assertFalse(((ZeroCopyForwarding) unix).canForwardTo(r.target));
            assertFalse(((ZeroCopyForwarding) r.source).canForwardTo(r.source));
            assertInstanceOf(UnsupportedOperationException.class,
                    awaitFailure(((ZeroCopyForwarding) unix).forwardTo(r.target)));
            assertTrue(r.source.isOpen() && unix.isOpen(), "a refused forwarding changes nothing");
        } finally {
            closeAll(unix, unixServer);
        }
    }
}
