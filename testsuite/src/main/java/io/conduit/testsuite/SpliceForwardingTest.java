package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Zero-copy forwarding ({@link ZeroCopyForwarding}, Linux {@code splice(2)} through a pipe) between two channels of
 * the permutation's server transport on one event loop: plain client {@code A} → accepted channel {@code source} →
 * (splice) → channel {@code target} → plain server side {@code B}, and back the other way. Run by the transports that
 * can splice (epoll, io_uring), each with its own permutation; what only one transport has (its counters of pipes and
 * receive buffers) comes through the hooks below.
 *
 * <p>Every byte is checked against a per-stream pattern; every wait is bounded.
 */
public abstract class SpliceForwardingTest extends AbstractTransportTest {

    /** @return pipes the transport has made for forwardings so far, in this JVM (its test hook) */
    protected abstract long splicePipesCreated();

    /** @return pipes the transport has closed so far, in this JVM (its test hook) */
    protected abstract long splicePipesClosed();

    /**
     * @return bytes the transport had received (into its own buffers) before forwarding began and then moved into a
     *         pipe, so far; {@code -1} when the transport receives nothing ahead of a forwarding (epoll: the socket
     *         keeps them)
     */
    protected long bytesReceivedAheadAndPiped() {
        return -1;
    }

    /**
     * @param group the loops of the transport under test
     * @return receive buffers the transport's sockets hold now (io_uring's ring buffers); 0 where it has none
     */
    protected long receiveBuffersHeld(EventLoopGroup group) {
        return 0;
    }

    /** @return the transport whose channels forward: the permutation's server transport */
    private static Transport transportOf(Combo combo) {
        return combo.serverTransport();
    }

    /**
     * A listener of the transport with one accepted channel ({@code source}) and a channel connected from the
     * source's event loop ({@code target}). Input read ahead before forwarding began is relayed as a copy, and an
     * end of stream is passed on as half-closure, as a relay handler does.
     */
    private final class Pair implements AutoCloseable {
        final Channel server;
        final Channel source;
        final Channel target;

        /**
         * @param upstream   where {@code target} connects to
         * @param connectA   connects the plain client to the listener's address
         * @param sendBuffer {@code SO_SNDBUF} of both channels, or 0 for the default
         */
        Pair(Combo combo, SocketAddress upstream, Consumer<SocketAddress> connectA, int sendBuffer) throws Exception {
            Transport t = transportOf(combo);
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            EndOfStreamForwarder sourceHandler = new EndOfStreamForwarder(accepted);
            ServerBootstrap sb = new ServerBootstrap().transport(t).group(group(t)).channelType(ChannelType.TCP)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childOption(ChannelOption.ALLOCATOR, combo.allocator().allocator())
                    .childHandler(sourceHandler);
            if (sendBuffer > 0) {
                sb.childOption(ChannelOption.SO_SNDBUF, sendBuffer);
            }
            server = AbstractTransportTest.await(sb.bind(loopback()));
            connectA.accept(server.localAddress());
            source = await(accepted, "the accepted source channel");
            EndOfStreamForwarder targetHandler = new EndOfStreamForwarder(null);
            Bootstrap b = new Bootstrap().transport(t).group(source.eventLoop()).channelType(ChannelType.TCP)
                    .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .option(ChannelOption.ALLOCATOR, combo.allocator().allocator())
                    .handler(targetHandler);
            if (sendBuffer > 0) {
                b.option(ChannelOption.SO_SNDBUF, sendBuffer);
            }
            target = AbstractTransportTest.await(b.connect(upstream));
            sourceHandler.peer = target;
            targetHandler.peer = source;
        }

        @Override
        public void close() {
            closeAll(source, target, server);
        }
    }

    /** A {@link Pair} between two plain sockets: {@code a} the client, {@code b} the upstream's accepted side. */
    private final class Relay implements AutoCloseable {
        final Socket a = new Socket();
        final Socket b;
        final Channel source;
        final Channel target;
        private final ServerSocket sink;
        private final Pair pair;

        Relay(Combo combo) throws Exception {
            sink = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            pair = new Pair(combo, sink.getLocalSocketAddress(), address -> {
                try {
                    a.connect(address, 5000);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, 0);
            b = sink.accept();
            source = pair.source;
            target = pair.target;
            a.setSoTimeout(60_000);
            b.setSoTimeout(60_000);
        }

        @Override
        public void close() throws IOException {
            pair.close();
            a.close();
            b.close();
            sink.close();
        }
    }

    /**
     * Relays what reaches the pipeline (read ahead before forwarding began) as a copy and, on end of stream
     * (half-closure), shuts the output of the other channel down: what a relay handler does. Auto-read is turned off
     * when the channel becomes active, so nothing else goes through the pipeline. One instance per channel.
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
            ctx.channel().config().setAutoRead(false);
            if (active != null) {
                active.complete(ctx.channel());
            }
        }

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

    /** Byte {@code i} of test stream {@code seed}. */
    private static byte pattern(long i, int seed) {
        return (byte) (i * 131 + (i >>> 13) + seed * 7);
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
                    throw new AssertionError("stream " + seed + ": byte " + (off + i) + " differs");
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
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Socket s, long total, int seed) {
        try {
            writePattern(s.getOutputStream(), 0, total, seed);
            s.shutdownOutput();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Makes sure every loop of the transport's group runs, so their own descriptors are counted before a test. */
    private void startLoops(Transport t) {
        EventLoopGroup g = group(t);
        for (int i = 0; i < 4; i++) {
            AbstractTransportTest.await(g.next().submit(() -> { }));
        }
    }

    /**
     * 50 MB each way, the end of stream of each direction passed on as half-closure. A sent 300 KB before forwarding
     * began: what the transport had already taken (a receive into its own buffer, on io_uring) arrives first, in
     * order, through the pipe.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void forwardsBothWaysByteExactAndPassesHalfClosureOn(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        long pipesBefore = splicePipesCreated();
        // one thread per blocking peer: the common pool may have a single worker on a small machine
        ExecutorService peers = Executors.newFixedThreadPool(3);
        try (Relay r = new Relay(combo)) {
            assertInstanceOf(ZeroCopyForwarding.class, r.source);
            assertTrue(((ZeroCopyForwarding) r.source).canForwardTo(r.target));
            long upBytes = 50L << 20;
            long downBytes = 50L << 20;
            long early = 300 * 1024;
            writePattern(r.a.getOutputStream(), 0, early, 1);
            Thread.sleep(200); // not a synchronisation: gives a transport that receives ahead the time to do so
            long piped = bytesReceivedAheadAndPiped();
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            Future<Void> down = ((ZeroCopyForwarding) r.target).forwardTo(r.source);
            CompletableFuture<Long> atB = CompletableFuture.supplyAsync(() -> read(r.b, 1), peers);
            CompletableFuture<Long> atA = CompletableFuture.supplyAsync(() -> read(r.a, 2), peers);
            CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> write(r.b, downBytes, 2), peers);
            writePattern(r.a.getOutputStream(), early, upBytes, 1);
            r.a.shutdownOutput(); // end of stream: reaches B as EOF, through the pipe
            assertEquals(upBytes, atB.get(90, TimeUnit.SECONDS));
            AbstractTransportTest.await(up);
            fromB.get(90, TimeUnit.SECONDS);
            assertEquals(downBytes, atA.get(90, TimeUnit.SECONDS));
            AbstractTransportTest.await(down);
            assertEquals(pipesBefore + 2, splicePipesCreated(), "one pipe per direction");
            if (piped >= 0) {
                assertTrue(bytesReceivedAheadAndPiped() > piped,
                        "bytes received before forwarding began went into the pipe first");
            }
        } finally {
            peers.shutdownNow();
        }
    }

    /**
     * B reads nothing: the relay must stop taking bytes from A once the kernel buffers and the pipe are full (no bytes
     * queue in Java), and deliver all 96 MB in order once B reads.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aSlowReaderStopsTheSourceInsteadOfBuffering(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        long total = 96L << 20;
        // A's role is taken by a non-blocking channel w on a second listener (A stays idle), so the test sees when
        // the relay stops taking bytes
        try (Relay r = new Relay(combo); SocketChannel w = SocketChannel.open()) {
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            EndOfStreamForwarder handler = new EndOfStreamForwarder(accepted);
            Transport t = transportOf(combo);
            Channel server = AbstractTransportTest.await(new ServerBootstrap().transport(t)
                    .group(r.source.eventLoop()).channelType(ChannelType.TCP)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(handler).bind(loopback()));
            try {
                w.connect(server.localAddress());
                w.configureBlocking(false);
                Channel source = await(accepted, "the accepted source channel");
                handler.peer = r.target;
                assertTrue(((ZeroCopyForwarding) source).canForwardTo(r.target), "one loop: " + source + ", "
                        + r.target);
                Future<Void> up = ((ZeroCopyForwarding) source).forwardTo(r.target);

                ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
                long written = 0;
                int idle = 0;
                while (idle < 200 && written < total) { // 200 idle tries of 5 ms: stalled
                    fill(chunk, written, 1);
                    int n = w.write(chunk);
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
                    int n = w.write(chunk);
                    written += n;
                    if (n == 0) {
                        Thread.sleep(1);
                    }
                }
                w.shutdownOutput();
                assertEquals(total, atB.get(90, TimeUnit.SECONDS));
                AbstractTransportTest.await(up);
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

    /** A reset of A fails the forwarding with the {@code splice} error and closes both channels. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aResetClosesBothChannelsAndFailsTheForwarding(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        try (Relay r = new Relay(combo)) {
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            r.a.getOutputStream().write(new byte[1000]);
            r.b.getInputStream().readNBytes(1000); // forwarding runs
            r.a.setSoLinger(true, 0);
            r.a.close(); // RST
            Throwable cause = awaitDone(up);
            assertInstanceOf(IOException.class, cause);
            assertTrue(String.valueOf(cause.getMessage()).contains("splice"), cause.toString());
            eventually("both channels closed", () -> !r.source.isOpen() && !r.target.isOpen());
        }
    }

    /** A Unix-domain socket and a TCP socket, or a channel and itself, are refused; a refusal changes nothing. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void unixAndMixedPairsAreNotSpliced(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        Transport t = transportOf(combo);
        UnixDomainSocketAddress address = unixAddress();
        try (Relay r = new Relay(combo)) {
            Channel unixServer = AbstractTransportTest.await(new ServerBootstrap().transport(t)
                    .group(r.source.eventLoop()).channelType(ChannelType.UNIX_STREAM)
                    .childHandler(new ChannelHandler() { }).bind(address));
            Channel unix = AbstractTransportTest.await(new Bootstrap().transport(t).group(r.source.eventLoop())
                    .channelType(ChannelType.UNIX_STREAM).handler(new ChannelHandler() { }).connect(address));
            try {
                assertFalse(((ZeroCopyForwarding) r.source).canForwardTo(unix));
                assertFalse(((ZeroCopyForwarding) unix).canForwardTo(r.target));
                assertFalse(((ZeroCopyForwarding) r.source).canForwardTo(r.source));
                assertInstanceOf(UnsupportedOperationException.class,
                        awaitDone(((ZeroCopyForwarding) unix).forwardTo(r.target)));
                assertTrue(r.source.isOpen() && unix.isOpen(), "a refused forwarding changes nothing");
            } finally {
                closeAll(unix, unixServer);
            }
        }
    }

    /**
     * Both channels closed while 20 MB stream through them in both directions (bytes in the pipes, waits for input
     * and room pending): the pipes and the sockets close, and no descriptor or receive buffer is left.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aCloseMidStreamLeaksNoDescriptorAndNoBuffer(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        startLoops(transportOf(combo));
        long held = receiveBuffersHeld(group(transportOf(combo)));
        long pipesCreated = splicePipesCreated();
        long pipesClosed = splicePipesClosed();
        ExecutorService peers = Executors.newFixedThreadPool(3);
        long before = OpenDescriptors.settledCount();
        try (Relay r = new Relay(combo)) {
            Future<Void> up = ((ZeroCopyForwarding) r.source).forwardTo(r.target);
            Future<Void> down = ((ZeroCopyForwarding) r.target).forwardTo(r.source);
            CompletableFuture<Void> fromA = CompletableFuture.runAsync(() -> write(r.a, 20L << 20, 1), peers);
            CompletableFuture<Void> fromB = CompletableFuture.runAsync(() -> write(r.b, 20L << 20, 2), peers);
            r.b.getInputStream().readNBytes(1 << 20); // both directions stream; then nobody reads
            r.a.getInputStream().readNBytes(1000);
            AbstractTransportTest.await(r.source.close());
            AbstractTransportTest.await(r.target.close());
            assertInstanceOf(io.conduit.channel.ChannelClosedException.class, awaitDone(up));
            assertInstanceOf(io.conduit.channel.ChannelClosedException.class, awaitDone(down));
            r.a.close();
            r.b.close();
            try {
                fromA.get(20, TimeUnit.SECONDS);
                fromB.get(20, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // the writers see their connection closed
            }
        } finally {
            peers.shutdownNow();
        }
        assertEquals(pipesCreated + 2, splicePipesCreated(), "one pipe per direction");
        assertEquals(2, splicePipesClosed() - pipesClosed, "every pipe made was closed");
        assertEquals(before, OpenDescriptors.settledCount(), "descriptors after the close");
        eventually("the receive buffers are back", () -> receiveBuffersHeld(group(transportOf(combo))) == held);
    }

    /** Forwarding pairs of {@link #manyForwardingsWithPausingReadersDeliverEveryByte}. */
    private static final int PAIRS = 8;
    /** Bytes each client sends (and gets back) there. */
    private static final long PAIR_BYTES = 4L << 20;
    /** A client's reader stops reading for {@link #PAUSE_MILLIS} after each this many bytes. */
    private static final long PAUSE_EVERY_BYTES = 512 * 1024;
    private static final long PAUSE_MILLIS = 100;
    /** {@code SO_SNDBUF} of the forwarding channels: well below a full pipe (64 KiB), so drains are partial. */
    private static final int FORWARDING_SEND_BUFFER = 16 * 1024;
    /** The test fails when no client received a byte for this long. */
    private static final long STALL_SECONDS = 10;

    /**
     * Eight relayed connections at once, each client → {@code source} ⇒ {@code target} → an echo upstream → back
     * ({@code target} ⇒ {@code source}) → client, both directions spliced. Each client writes 4 MiB without waiting
     * for the echo (far more than the socket buffers and pipes hold), and its reader stops reading for 100 ms after
     * every 512 KiB. While a reader pauses, the echo's replies fill the source's send buffer, the echo blocks, and the
     * client's writes back up through the pipe; when it resumes, a socket with some room but less than the pipe holds
     * takes part of a drain. The forwarding channels' {@code SO_SNDBUF} is 16 KiB so that drains are partial often.
     * Every byte that returns is checked against the pattern its client sent.
     *
     * <p>The story: on io_uring a partial {@code splice(2)} into the target armed no {@code POLLOUT} poll (only
     * {@code EAGAIN} did); a forwarding that already waited for room then waited for good, since nothing reported room
     * again. A gateway relay with {@code zeroCopy = true} stalled with 10 pipelined connections through an echo
     * upstream after 6–9 MB, the connections never closed. Epoll's edge-triggered {@code EPOLLOUT} comes by itself.
     * The test fails when no client received a byte for {@value #STALL_SECONDS} s, naming every client's progress.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void manyForwardingsWithPausingReadersDeliverEveryByte(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        ExecutorService threads = Executors.newCachedThreadPool();
        List<Pair> pairs = new ArrayList<>();
        List<Socket> clients = new ArrayList<>();
        try (ServerSocket echo = new ServerSocket(0, PAIRS, InetAddress.getLoopbackAddress())) {
            threads.execute(() -> serveEcho(echo, threads));
            AtomicLong[] received = new AtomicLong[PAIRS];
            List<CompletableFuture<Long>> readers = new ArrayList<>();
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            List<Future<Void>> forwardings = new ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                Socket client = new Socket();
                clients.add(client);
                client.setReceiveBufferSize(64 * 1024);
                Pair p = new Pair(combo, echo.getLocalSocketAddress(), address -> {
                    try {
                        client.connect(address, 5000);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, FORWARDING_SEND_BUFFER);
                pairs.add(p);
                assertTrue(((ZeroCopyForwarding) p.source).canForwardTo(p.target));
                forwardings.add(((ZeroCopyForwarding) p.source).forwardTo(p.target));
                forwardings.add(((ZeroCopyForwarding) p.target).forwardTo(p.source));
                int seed = i + 1;
                AtomicLong got = received[i] = new AtomicLong();
                readers.add(CompletableFuture.supplyAsync(() -> readPausing(client, seed, got), threads));
                writers.add(CompletableFuture.runAsync(() -> write(client, PAIR_BYTES, seed), threads));
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new));
            long last = -1;
            long lastProgressNanos = System.nanoTime();
            while (!all.isDone()) {
                long sum = 0;
                for (AtomicLong r : received) {
                    sum += r.get();
                }
                if (sum != last) {
                    last = sum;
                    lastProgressNanos = System.nanoTime();
                } else if (System.nanoTime() - lastProgressNanos > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                    StringBuilder s = new StringBuilder("forwarding stalled: no client received a byte for "
                            + STALL_SECONDS + " s; received of " + PAIR_BYTES + " each:");
                    for (int i = 0; i < PAIRS; i++) {
                        s.append(' ').append(i).append('=').append(received[i].get());
                    }
                    fail(s.toString());
                }
                try {
                    all.get(50, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException notYet) {
                    // poll the progress again
                }
            }
            for (int i = 0; i < PAIRS; i++) {
                assertEquals(PAIR_BYTES, readers.get(i).get(), "client " + i + " got its bytes back, in order");
                writers.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            for (Future<Void> f : forwardings) {
                AbstractTransportTest.await(f); // each ended at its end of stream
            }
        } finally {
            for (Socket c : clients) {
                c.close();
            }
            for (Pair p : pairs) {
                p.close();
            }
            threads.shutdownNow();
        }
    }

    /** Accepts connections until {@code echo} closes; each gets a thread that writes back what it reads. */
    private static void serveEcho(ServerSocket echo, ExecutorService threads) {
        try {
            while (true) {
                Socket s = echo.accept();
                threads.execute(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        byte[] buf = new byte[32 * 1024];
                        int n;
                        while ((n = in.read(buf)) > 0) {
                            out.write(buf, 0, n);
                        }
                        s.shutdownOutput();
                    } catch (IOException e) {
                        // the test closed the connection
                    }
                });
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    /**
     * Reads to end of stream, checking every byte against the pattern, and stops reading for {@link #PAUSE_MILLIS}
     * after every {@link #PAUSE_EVERY_BYTES}. @return bytes read
     */
    private static long readPausing(Socket s, int seed, AtomicLong progress) {
        byte[] chunk = new byte[16 * 1024];
        long off = 0;
        long nextPause = PAUSE_EVERY_BYTES;
        try (InputStream in = s.getInputStream()) {
            int n;
            while ((n = in.read(chunk)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (chunk[i] != pattern(off + i, seed)) {
                        throw new AssertionError("client " + (seed - 1) + ": byte " + (off + i) + " differs");
                    }
                }
                off += n;
                progress.set(off);
                if (off >= nextPause) {
                    nextPause += PAUSE_EVERY_BYTES;
                    Thread.sleep(PAUSE_MILLIS); // the pause itself: the echo's replies back up meanwhile
                }
            }
            return off;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }
}
