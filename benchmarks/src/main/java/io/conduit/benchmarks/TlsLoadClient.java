package io.conduit.benchmarks;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The TLS load client: what {@code src/main/c/loadgen.c} is for plain TCP, over TLS 1.3 (Netty's client,
 * {@code SslHandler} on the JDK provider, the same for every server, so it costs every contender the same). It runs
 * in its own JVM and stays up across the steps of one server, so that its JIT is warm; commands come one per line on
 * standard input:
 * <ul>
 *   <li>{@code prepare MODE HOST PORT CONNECTIONS BYTES} with MODE {@code pingpong}, {@code stream} or
 *       {@code handshake}: for the first two, opens the connections and completes their handshakes, then prints
 *       {@code PREPARED}; for {@code handshake} prints it at once;</li>
 *   <li>{@code go MILLIS}: runs the prepared step for MILLIS milliseconds, closes its connections and prints one
 *       {@code RESULT} line with the keys of the native load generator ({@code elapsed_ns}, {@code cpu_ns} of this
 *       JVM, {@code ops} and latency percentiles for ping-pong, {@code bytes} for streaming, {@code ops} = completed
 *       full handshakes for {@code handshake}, where each of CONNECTIONS loops connects, completes a handshake,
 *       closes and connects again; the client keeps no session, so none is resumed).</li>
 * </ul>
 * End of input exits. A failure prints {@code ERROR <text>} and exits with status 2. The client's I/O runs on
 * {@code -Dbench.clientThreads} event loops (default 1).
 */
public final class TlsLoadClient {

    private final EventLoopGroup group;
    private final SslContext ssl;
    private final AtomicLong errors = new AtomicLong();

    // The prepared step: written by the main thread between commands.
    private String mode;
    private InetSocketAddress address;
    private int connections;
    private byte[] payload;
    private final List<Channel> channels = new ArrayList<>();

    private TlsLoadClient(int threads) throws Exception {
        Epoll.ensureAvailability();
        group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("tls-client"),
                EpollIoHandler.newFactory());
        // Trusts any certificate: the servers' self-signed key is made per run; authentication is not measured.
        ssl = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols("TLSv1.3")
                .trustManager(InsecureTrustManagerFactory.INSTANCE).build();
    }

    public static void main(String[] args) throws Exception {
        TlsLoadClient client = new TlsLoadClient(Integer.getInteger("bench.clientThreads", 1));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] w = line.trim().split("\\s+");
                if (w[0].equals("prepare") && w.length == 6) {
                    client.prepare(w[1], w[2], Integer.parseInt(w[3]), Integer.parseInt(w[4]), Integer.parseInt(w[5]));
                    System.out.println("PREPARED");
                } else if (w[0].equals("go") && w.length == 2) {
                    System.out.println(client.go(Long.parseLong(w[1])));
                } else {
                    throw new IllegalArgumentException("unknown command '" + line + "'");
                }
                System.out.flush();
            }
        } catch (Exception e) {
            System.out.println("ERROR " + e);
            System.out.flush();
            e.printStackTrace();
            System.exit(2);
        } finally {
            client.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        System.exit(0);
    }

    private void prepare(String mode, String host, int port, int connections, int bytes) throws Exception {
        this.mode = mode;
        this.address = new InetSocketAddress(host, port);
        this.connections = connections;
        this.payload = new byte[bytes];
        Arrays.fill(payload, (byte) 'z');
        errors.set(0);
        channels.clear();
        switch (mode) {
            case "pingpong":
            case "stream":
                for (int i = 0; i < connections; i++) {
                    channels.add(connect(mode.equals("pingpong") ? new PingPong(bytes) : new Stream()));
                }
                for (Channel ch : channels) {
                    if (!ch.pipeline().get(SslHandler.class).handshakeFuture().await(30, TimeUnit.SECONDS)
                            || !ch.pipeline().get(SslHandler.class).handshakeFuture().isSuccess()) {
                        throw new IllegalStateException("TLS handshake did not complete within 30 s: "
                                + ch.pipeline().get(SslHandler.class).handshakeFuture().cause());
                    }
                }
                break;
            case "handshake":
                break;
            default:
                throw new IllegalArgumentException("unknown mode '" + mode + "': pingpong, stream or handshake");
        }
    }

    /** Connects one channel with a fresh client engine (no peer host and port given: no session is reused). */
    private Channel connect(ChannelInboundHandlerAdapter load) throws InterruptedException {
        ChannelFuture f = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(ssl.newHandler(ch.alloc()), load);
                    }
                }).connect(address);
        if (!f.await(10, TimeUnit.SECONDS) || !f.isSuccess()) {
            throw new IllegalStateException("connect to " + address + " failed: " + f.cause());
        }
        return f.channel();
    }

    private String go(long millis) throws Exception {
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(millis);
        String result;
        switch (mode) {
            case "pingpong": {
                for (Channel ch : channels) {
                    ch.eventLoop().execute(() -> ((PingPong) ch.pipeline().last()).start(ch.pipeline().lastContext(),
                            deadline));
                }
                Thread.sleep(millis);
                long[] all = closeAndCollectLatencies();
                long elapsed = System.nanoTime() - start;
                Arrays.sort(all);
                result = String.format(Locale.ROOT, "RESULT mode=pingpong connections=%d elapsed_ns=%d cpu_ns=%d ops=%d "
                                + "p50_ns=%d p90_ns=%d p99_ns=%d p999_ns=%d max_ns=%d errors=%d", connections, elapsed,
                        processCpuNanos() - cpuStart, all.length, percentile(all, 50), percentile(all, 90),
                        percentile(all, 99), percentile(all, 99.9), all.length == 0 ? 0 : all[all.length - 1],
                        errors.get());
                break;
            }
            case "stream": {
                for (Channel ch : channels) {
                    ch.eventLoop().execute(() -> ((Stream) ch.pipeline().last()).start(ch, payload));
                }
                Thread.sleep(millis);
                long read = 0;
                long written = 0;
                for (Channel ch : channels) {
                    Stream s = (Stream) ch.pipeline().last();
                    read += s.read.get();
                    written += s.written.get();
                }
                long elapsed = System.nanoTime() - start;
                closeAll();
                result = String.format(Locale.ROOT, "RESULT mode=stream connections=%d elapsed_ns=%d cpu_ns=%d bytes=%d "
                        + "written=%d errors=%d", connections, elapsed, processCpuNanos() - cpuStart, read, written,
                        errors.get());
                break;
            }
            default: {
                AtomicLong done = new AtomicLong();
                List<Thread> loops = new ArrayList<>();
                for (int i = 0; i < connections; i++) {
                    Thread t = new Thread(() -> handshakeLoop(deadline, done), "handshake-" + i);
                    t.setDaemon(true);
                    t.start();
                    loops.add(t);
                }
                for (Thread t : loops) {
                    t.join(millis + 30_000);
                }
                long elapsed = System.nanoTime() - start;
                result = String.format(Locale.ROOT, "RESULT mode=handshake connections=%d elapsed_ns=%d cpu_ns=%d ops=%d "
                        + "errors=%d", connections, elapsed, processCpuNanos() - cpuStart, done.get(), errors.get());
            }
        }
        if (errors.get() != 0) {
            throw new IllegalStateException(errors.get() + " connection(s) failed during " + mode + ": " + result);
        }
        return result;
    }

    /** One of the handshake step's loops: connect, complete a full handshake, close, until the deadline. */
    private void handshakeLoop(long deadline, AtomicLong done) {
        while (System.nanoTime() < deadline) {
            try {
                Channel ch = connect(new ChannelInboundHandlerAdapter());
                SslHandler tls = ch.pipeline().get(SslHandler.class);
                boolean ok = tls.handshakeFuture().await(30, TimeUnit.SECONDS) && tls.handshakeFuture().isSuccess();
                ch.close().await(10, TimeUnit.SECONDS);
                if (ok) {
                    done.incrementAndGet();
                } else {
                    errors.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                errors.incrementAndGet();
            }
        }
    }

    private long[] closeAndCollectLatencies() throws InterruptedException {
        List<long[]> parts = new ArrayList<>();
        int total = 0;
        for (Channel ch : channels) {
            PingPong p = (PingPong) ch.pipeline().last();
            // Read on the channel's loop: the latencies are written there.
            long[][] copy = new long[1][];
            ch.eventLoop().submit(() -> {
                copy[0] = Arrays.copyOf(p.latencies, p.count);
            }).await(10, TimeUnit.SECONDS);
            if (copy[0] != null) {
                parts.add(copy[0]);
                total += copy[0].length;
            }
        }
        closeAll();
        long[] all = new long[total];
        int at = 0;
        for (long[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    private void closeAll() throws InterruptedException {
        for (Channel ch : channels) {
            ((Load) ch.pipeline().last()).closing = true;
        }
        for (Channel ch : channels) {
            ch.close().await(10, TimeUnit.SECONDS);
        }
        channels.clear();
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.max(1, Math.round(p / 100.0 * sorted.length));
        return sorted[Math.min(rank, sorted.length) - 1];
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Counts a failed or lost connection; the step then fails. Shared by both load handlers. */
    private abstract class Load extends ChannelInboundHandlerAdapter {
        /** Set before the client closes the connection on purpose: its closing is then no error. */
        volatile boolean closing;

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!closing) {
                errors.incrementAndGet();
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!closing) {
                errors.incrementAndGet();
            }
        }
    }

    /** Sends one message, waits for its echo, records the round trip in nanoseconds, sends again until the deadline. */
    private final class PingPong extends Load {
        private final int messageBytes;
        long[] latencies = new long[1 << 14];  // event loop only
        int count;                             // event loop only
        private int received;                  // event loop only
        private long sentAt;                   // event loop only
        private long deadline;                 // event loop only

        PingPong(int messageBytes) {
            this.messageBytes = messageBytes;
        }

        void start(ChannelHandlerContext ctx, long deadline) {
            this.deadline = deadline;
            send(ctx);
        }

        private void send(ChannelHandlerContext ctx) {
            sentAt = System.nanoTime();
            ctx.writeAndFlush(Unpooled.wrappedBuffer(payload));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received += ((ByteBuf) msg).readableBytes();
            ReferenceCountUtil.release(msg);
            if (received >= messageBytes) {
                received -= messageBytes;
                long now = System.nanoTime();
                if (count == latencies.length) {
                    latencies = Arrays.copyOf(latencies, count * 2);
                }
                latencies[count++] = now - sentAt;
                if (now < deadline && received == 0) {
                    send(ctx);
                }
            }
        }
    }

    /**
     * Writes blocks while fewer than {@value #STREAM_WINDOW_BLOCKS} blocks' worth of bytes are written but not yet
     * echoed back, and counts the bytes echoed. The window bounds what a server without back-pressure queues, so every
     * server streams at the rate it echoes, not at the rate it can read.
     */
    private final class Stream extends Load {
        final AtomicLong read = new AtomicLong();
        final AtomicLong written = new AtomicLong();
        private byte[] block;  // event loop only
        private long issued;   // event loop only: bytes handed to write

        void start(Channel ch, byte[] block) {
            this.block = block;
            writeMore(ch);
        }

        private void writeMore(Channel ch) {
            boolean wrote = false;
            while (!closing && issued - read.get() < (long) STREAM_WINDOW_BLOCKS * block.length) {
                issued += block.length;
                ch.write(Unpooled.wrappedBuffer(block)).addListener(f -> {
                    if (f.isSuccess()) {
                        written.addAndGet(block.length);
                    }
                });
                wrote = true;
            }
            if (wrote) {
                ch.flush();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            read.addAndGet(((ByteBuf) msg).readableBytes());
            ReferenceCountUtil.release(msg);
            if (block != null) {
                writeMore(ctx.channel());
            }
        }
    }

    /** Stream step: blocks in flight per connection. */
    private static final int STREAM_WINDOW_BLOCKS = 8;
}
