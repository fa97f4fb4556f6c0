package io.conduit.iouring;

import static io.conduit.iouring.IoUringTestSupport.await;
import static io.conduit.iouring.IoUringTestSupport.awaitFailure;
import static io.conduit.iouring.IoUringTestSupport.closeAll;
import static io.conduit.iouring.IoUringTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

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
 * Zero-copy forwarding ({@link ZeroCopyForwarding}, {@code splice(2)} through a pipe) between two io_uring TCP
 * channels on one loop: plain client {@code A} → accepted channel {@code source} → (splice) → channel {@code target}
 * → plain server side {@code B}, and back the other way. The source had a receive in flight (and bytes in a ring
 * buffer) when forwarding began: those bytes go first, through the pipe, and no receive is submitted after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringSpliceForwardingTest {

    private final Transport transport = IoUringTestSupport.transport();
    private EventLoopGroup group;
    @TempDir
    Path dir;

    @BeforeAll
    void start() {
        group = transport.newEventLoopGroup(1); // both channels of a forwarding share a loop
    }

    @AfterAll
    void stop() throws InterruptedException {
        IoUringTestSupport.close(group);
    }

    /** The two plain sockets and the two io_uring channels between them. */
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
            source = accepted.get(IoUringTestSupport.WAIT_SECONDS, TimeUnit.SECONDS);
            sourceHandler.peer = target;
            targetHandler.peer = source;
            a.setSoTimeout(60_000);
            b.setSoTimeout(60_000);
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
     * Relays what reaches the pipeline (read ahead before forwarding began) and, on end of stream (half-closure),
     * shuts the output of the other channel down: what a relay handler does.
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

    private static void writePattern(OutputStream out, long from, long to, int seed) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        for (long off = from; off < to; ) {
            int n = (int) Math.min(chunk.length, to - off);
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

    private static long read(Socket s, int seed) {
        try {
            return readPattern(s.getInputStream(), seed);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void write(Socket s, long total, int seed) {
        try {
            writePattern(s.getOutputStream(), 0, total, seed);
            s.shutdownOutput();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * 50 MB each way, the end of stream of each direction passed on as half-closure. A sent 300 KB before the
     * forwarding began: the core read some ahead (relayed as a copy), a receive holds more in a ring buffer, and the
     * kernel the rest; all of it arrives first, in order.
     */
    @Test
    void forwardsBothWaysByteExactAndPassesHalfClosureOn() throws Exception {
        long pipesBefore = IoUringSplicePipe.PIPES_CREATED.get();
        ExecutorService peers = Executors.newFixedThreadPool(3);
        try (Relay r = new Relay()) {
            assertInstanceOf(ZeroCopyForwarding.class, r.source);
            assertTrue(((ZeroCopyForwarding) r.source).canForwardTo(r.target));
            long upBytes = 50L << 20;
            long downBytes = 50L << 20;
            long early = 300 * 1024;
            writePattern(r.a.getOutputStream(), 0, early, 1);
            Thread.sleep(200); // read ahead by the core, and a receive completed into a ring buffer
            long piped = IoUringStreamSocket.RECEIVED_BYTES_PIPED.get();
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            Future<Void> down = ((ZeroCopyForwarding) r.target).forwardTo(r.source);
            CompletableFuture<Long> atB = CompletableFuture.supplyAsync(() -> read(r.b, 1), peers);
            CompletableFuture<Long> atA = CompletableFuture.supplyAsync(() -> read(r.a, 2), peers);
            CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> write(r.b, downBytes, 2), peers);
            writePattern(r.a.getOutputStream(), early, upBytes, 1);
            r.a.shutdownOutput(); // end of stream: reaches B as EOF, through the pipe
            assertEquals(upBytes, atB.get(90, TimeUnit.SECONDS));
            await(up);
            fromB.get(90, TimeUnit.SECONDS);
            assertEquals(downBytes, atA.get(90, TimeUnit.SECONDS));
            await(down);
            assertEquals(pipesBefore + 2, IoUringSplicePipe.PIPES_CREATED.get(), "one pipe per direction");
            assertTrue(IoUringStreamSocket.RECEIVED_BYTES_PIPED.get() > piped,
                    "a ring buffer's bytes, received before forwarding began, went into the pipe first");
        } finally {
            peers.shutdownNow();
        }
    }

    @Test
    void aSlowReaderStopsTheSourceInsteadOfBuffering() throws Exception {
        long total = 96L << 20;
        try (Relay r = new Relay(); SocketChannel writer = SocketChannel.open()) {
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            EndOfStreamForwarder handler = new EndOfStreamForwarder(accepted);
            Channel server = await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(handler).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
            try {
                writer.connect(server.localAddress());
                writer.configureBlocking(false);
                Channel source = accepted.get(IoUringTestSupport.WAIT_SECONDS, TimeUnit.SECONDS);
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
                assertEquals(total, atB.get(90, TimeUnit.SECONDS));
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

    /**
     * Both channels closed while 20 MB stream through them in both directions (polls and a send in flight, bytes in
     * the pipes and perhaps a ring buffer): the pipes and the sockets close, and no descriptor or ring buffer is left.
     */
    @Test
    void aCloseMidStreamLeaksNoDescriptorAndNoBuffer() throws Exception {
        long held = IoUringTestSupport.onLoop(group, h -> h.ringBuffersHeld);
        long pipesCreated = IoUringSplicePipe.PIPES_CREATED.get();
        long pipesClosed = IoUringSplicePipe.PIPES_CLOSED.get();
        ExecutorService peers = Executors.newFixedThreadPool(3);
        long before = IoUringTestSupport.openDescriptors();
        try (Relay r = new Relay()) {
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            Future<Void> down = ((ZeroCopyForwarding) r.target).forwardTo(r.source);
            CompletableFuture<Void> fromA = CompletableFuture.runAsync(() -> write(r.a, 20L << 20, 1), peers);
            CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> write(r.b, 20L << 20, 2), peers);
            r.b.getInputStream().readNBytes(1 << 20); // both directions stream; then nobody reads
            r.a.getInputStream().readNBytes(1000);
            Thread.sleep(100);
            await(r.source.close());
            await(r.target.close());
            awaitFailure(up);
            awaitFailure(down);
            r.a.close();
            r.b.close();
            try {
                fromA.get(20, TimeUnit.SECONDS);
                fromB.get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException expected) {
                // the writers see their connection closed
            }
        } finally {
            peers.shutdownNow();
        }
        assertEquals(pipesCreated + 2, IoUringSplicePipe.PIPES_CREATED.get(), "one pipe per direction");
        assertEquals(2, IoUringSplicePipe.PIPES_CLOSED.get() - pipesClosed, "every pipe made was closed");
        assertEquals(before, IoUringTestSupport.settledDescriptors(before), "descriptors after the close");
        eventually("the ring buffers are back", () -> IoUringTestSupport.onLoop(group, h -> h.ringBuffersHeld) == held);
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
