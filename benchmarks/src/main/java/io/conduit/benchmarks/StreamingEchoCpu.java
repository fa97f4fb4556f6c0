package io.conduit.benchmarks;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How much CPU the event loop of an echo server spends per gigabyte streamed through it: one loop of the named
 * transport ({@link ConduitEchoServer.Echo}, pooled allocator) echoes one loopback connection whose JDK client
 * (a writer and a reader thread, blocking {@code java.nio}) streams {@code bench.gigabytes} GB (10^9 bytes) in
 * 64 KiB blocks, after a warm-up of {@code bench.warmupGigabytes}. Prints the loop thread's user and total CPU
 * time per GB ({@link ThreadMXBean}, so the client and other processes sharing the cores do not count) and the
 * throughput. Leak detection follows {@code -Dconduit.leakDetection} as in production; run it once per mode (in
 * separate JVMs) and compare, with {@code -XX:StartFlightRecording} for {@code jdk.ExecutionSample}s of the
 * loop thread ({@value #LOOP_THREAD}).
 *
 * <pre>{@code java -cp ... io.conduit.benchmarks.StreamingEchoCpu epoll}</pre>
 */
public final class StreamingEchoCpu {

    /** Name of the server's single event-loop thread. */
    static final String LOOP_THREAD = "echo-loop";
    private static final int BLOCK = 64 * 1024;

    private StreamingEchoCpu() {
    }

    public static void main(String[] args) throws Exception {
        String transportName = args.length > 0 ? args[0] : "epoll";
        double gigabytes = Double.parseDouble(System.getProperty("bench.gigabytes", "4"));
        double warmup = Double.parseDouble(System.getProperty("bench.warmupGigabytes", "2"));
        Transport transport = Transports.get(transportName);
        AtomicReference<Thread> loopThread = new AtomicReference<>();
        EventLoopGroup group = transport.newEventLoopGroup(1, r -> {
            Thread t = new Thread(r, LOOP_THREAD);
            loopThread.set(t);
            return t;
        });
        try {
            Channel listener = new ServerBootstrap().transport(transport).group(group)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ConduitEchoServer.Echo(new AtomicInteger(), true))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
            InetSocketAddress address = (InetSocketAddress) listener.localAddress();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            try (SocketChannel client = SocketChannel.open(address)) {
                client.socket().setTcpNoDelay(true);
                stream(client, (long) (warmup * 1e9));
                long id = loopThread.get().getId();
                long user0 = threads.getThreadUserTime(id);
                long cpu0 = threads.getThreadCpuTime(id);
                long t0 = System.nanoTime();
                long bytes = stream(client, (long) (gigabytes * 1e9));
                long wall = System.nanoTime() - t0;
                double gb = bytes / 1e9;
                double userMsPerGb = (threads.getThreadUserTime(id) - user0) / 1e6 / gb;
                double cpuMsPerGb = (threads.getThreadCpuTime(id) - cpu0) / 1e6 / gb;
                System.out.printf(Locale.ROOT, "RESULT transport=%s leakDetection=%s gigabytes=%.2f "
                        + "loopUserMsPerGB=%.1f loopCpuMsPerGB=%.1f MBps=%.0f%n", transportName,
                        System.getProperty("conduit.leakDetection", "simple"), gb, userMsPerGb, cpuMsPerGb,
                        bytes / 1e6 / (wall / 1e9));
            }
            listener.close().sync();
        } finally {
            group.close();
        }
    }

    /** Writes {@code total} bytes (rounded up to whole blocks) and reads the echo of all of them back. */
    private static long stream(SocketChannel client, long total) throws Exception {
        long blocks = (total + BLOCK - 1) / BLOCK;
        long expected = blocks * BLOCK;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            ByteBuffer block = ByteBuffer.allocateDirect(BLOCK);
            try {
                for (long i = 0; i < blocks; i++) {
                    block.clear();
                    while (block.hasRemaining()) {
                        client.write(block);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "stream-writer");
        writer.start();
        ByteBuffer in = ByteBuffer.allocateDirect(BLOCK);
        long read = 0;
        while (read < expected) {
            in.clear();
            int n = client.read(in);
            if (n < 0) {
                throw new IllegalStateException("the echo server closed after " + read + " of " + expected + " bytes");
            }
            read += n;
        }
        writer.join();
        if (failure.get() != null) {
            throw new IllegalStateException("the writer failed", failure.get());
        }
        return read;
    }
}
