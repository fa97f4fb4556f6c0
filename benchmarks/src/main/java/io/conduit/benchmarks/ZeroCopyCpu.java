package io.conduit.benchmarks;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.FileRegion;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How much CPU one event loop spends per gigabyte of a {@link FileRegion} or of a relay between two of its channels
 * (issue 20: {@code sendfile(2)} and {@code splice(2)} on io_uring against the copies, and against epoll). The client
 * side is plain blocking {@code java.nio} in this JVM, over loopback; the loop thread's CPU time comes from
 * {@link ThreadMXBean}, so the client does not count. Modes:
 * <ul>
 *   <li>{@code file PATH}: each run a new connection gets the whole file as one {@code FileRegion} and closes;</li>
 *   <li>{@code relay-splice MB} and {@code relay-copy MB}: a writer sends MB mebibytes to the loop's source channel,
 *       which forwards them to a target channel connected to a reader, with {@link ZeroCopyForwarding} or as buffers
 *       through the pipeline (auto-read paused while the target is not writable).</li>
 * </ul>
 * Prints one line per run after a warm-up run.
 *
 * <pre>{@code java -cp ... io.conduit.benchmarks.ZeroCopyCpu io_uring file /tmp/1g.bin 3
 * java -cp ... io.conduit.benchmarks.ZeroCopyCpu epoll relay-splice 1024 3}</pre>
 */
public final class ZeroCopyCpu {

    private static final String LOOP_THREAD = "zero-copy-loop";

    private ZeroCopyCpu() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: ZeroCopyCpu TRANSPORT file PATH RUNS | TRANSPORT relay-splice|relay-copy MB RUNS");
            System.exit(2);
        }
        Transport transport = Transports.get(args[0]);
        String mode = args[1];
        int runs = Integer.parseInt(args[3]);
        AtomicReference<Thread> loopThread = new AtomicReference<>();
        EventLoopGroup group = transport.newEventLoopGroup(1, r -> {
            Thread t = new Thread(r, LOOP_THREAD);
            loopThread.set(t);
            return t;
        });
        try {
            for (int run = 0; run <= runs; run++) { // run 0 warms up
                long[] cpu0 = {0, 0};
                long t0 = System.nanoTime();
                long bytes = mode.equals("file")
                        ? file(transport, group, Path.of(args[2]), loopThread, cpu0)
                        : relay(transport, group, Long.parseLong(args[2]) << 20, mode.equals("relay-splice"),
                                loopThread, cpu0);
                long wall = System.nanoTime() - t0;
                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long id = loopThread.get().getId();
                double gb = bytes / 1e9;
                if (run > 0) {
                    System.out.printf(Locale.ROOT, "RESULT transport=%s mode=%s run=%d MBps=%.0f loopUserMsPerGB=%.0f"
                            + " loopCpuMsPerGB=%.0f%n", args[0], mode, run, bytes / 1e6 / (wall / 1e9),
                            (threads.getThreadUserTime(id) - cpu0[0]) / 1e6 / gb,
                            (threads.getThreadCpuTime(id) - cpu0[1]) / 1e6 / gb);
                }
            }
        } finally {
            group.close();
        }
    }

    /** Loop thread user and total CPU time now, into {@code out}. */
    private static void mark(AtomicReference<Thread> loopThread, long[] out) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long id = loopThread.get().getId();
        out[0] = threads.getThreadUserTime(id);
        out[1] = threads.getThreadCpuTime(id);
    }

    private static long file(Transport transport, EventLoopGroup group, Path path, AtomicReference<Thread> loopThread,
            long[] cpu0) throws Exception {
        long size = Files.size(path);
        CompletableFuture<Void> written = new CompletableFuture<>();
        Channel listener = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .childHandler(new Once() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) throws Exception {
                        mark(loopThread, cpu0);
                        ctx.writeAndFlush(FileRegion.of(path)).addListener(f -> {
                            if (f.isSuccess()) {
                                written.complete(null);
                            } else {
                                written.completeExceptionally(f.cause());
                            }
                            ctx.close();
                        });
                    }
                }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
        try (SocketChannel client = SocketChannel.open(listener.localAddress())) {
            long read = drain(client, size);
            written.get(60, TimeUnit.SECONDS);
            if (read != size) {
                throw new IllegalStateException("read " + read + " of " + size + " bytes");
            }
            return read;
        } finally {
            listener.close().sync();
        }
    }

    private static long relay(Transport transport, EventLoopGroup group, long total, boolean splice,
            AtomicReference<Thread> loopThread, long[] cpu0) throws Exception {
        try (ServerSocketChannel sink = ServerSocketChannel.open()) {
            sink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Channel listener = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childHandler(new Once() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) throws Exception {
                            Channel source = ctx.channel();
                            source.config().setAutoRead(false);
                            mark(loopThread, cpu0);
                            new Bootstrap().transport(transport).group(source.eventLoop()).channelType(ChannelType.TCP)
                                    .handler(new Once() {
                                        @Override
                                        public void channelWritabilityChanged(ChannelHandlerContext c) {
                                            if (c.channel().isWritable() && !splice) {
                                                source.config().setAutoRead(true);
                                            }
                                        }
                                    }).connect(sink.getLocalAddress()).addListener(f -> {
                                        Channel target = (Channel) f.getNow();
                                        source.closeFuture().addListener(x -> target.writeAndFlush(
                                                target.alloc().buffer(0)).addListener(y -> target.close()));
                                        if (splice) {
                                            ((ZeroCopyForwarding) source).forwardTo(target);
                                        } else {
                                            source.pipeline().addLast(new CopyTo(target));
                                            source.config().setAutoRead(true);
                                        }
                                    });
                        }
                    }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
            try (SocketChannel writer = SocketChannel.open(listener.localAddress());
                    SocketChannel reader = sink.accept()) {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread w = new Thread(() -> {
                    ByteBuffer block = ByteBuffer.allocateDirect(1 << 20);
                    try {
                        for (long off = 0; off < total; off += block.capacity()) {
                            block.clear();
                            while (block.hasRemaining()) {
                                writer.write(block);
                            }
                        }
                        writer.shutdownOutput();
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }, "relay-writer");
                w.start();
                long read = drain(reader, total);
                w.join();
                if (failure.get() != null || read != total) {
                    throw new IllegalStateException("read " + read + " of " + total + " bytes", failure.get());
                }
                return read;
            } finally {
                listener.close().sync();
            }
        }
    }

    /** Reads to end of stream or {@code expected} bytes. @return bytes read */
    private static long drain(SocketChannel in, long expected) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        long read = 0;
        int n;
        while (read < expected && (n = in.read(buf.clear())) >= 0) {
            read += n;
        }
        return read;
    }

    /** A handler added to one channel per run. */
    @ChannelHandler.Sharable
    private abstract static class Once implements ChannelHandler {
    }

    /** Relays reads to {@code peer} as buffers; pauses auto-read while the peer is not writable. */
    private static final class CopyTo implements ChannelHandler {
        private final Channel peer;

        CopyTo(Channel peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            peer.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            peer.flush();
            if (!peer.isWritable()) {
                ctx.channel().config().setAutoRead(false);
            }
        }
    }
}
