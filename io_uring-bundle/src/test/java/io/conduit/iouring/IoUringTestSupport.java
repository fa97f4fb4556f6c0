package io.conduit.iouring;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.testsuite.Waits;
import io.conduit.transport.Transport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/** Helpers of the io_uring splice and file region tests: the transport, bounded waits, a recording handler. */
final class IoUringTestSupport {

    static final long WAIT_SECONDS = 30;

    private IoUringTestSupport() {
    }

    /** @return the io_uring transport; fails (never skips) when it cannot load here */
    static Transport transport() {
        return new IoUringTransportProvider().transport();
    }

    static void close(EventLoopGroup group) throws InterruptedException {
        Waits.shutdown(group);
    }

    static <T> T await(Future<T> f) {
        return Waits.await(f, WAIT_SECONDS);
    }

    static Throwable awaitFailure(Future<?> f) {
        return Waits.awaitFailure(f, WAIT_SECONDS);
    }

    /**
     * @return the sum of {@code counter} over the loops of {@code group}, each read on its own loop (the handler's
     *         counters are plain fields only the loop thread touches)
     */
    static long onLoop(EventLoopGroup group, java.util.function.ToLongFunction<IoUringIoHandler> counter) {
        long sum = 0;
        for (io.conduit.concurrent.EventExecutor loop : group) {
            sum += await(loop.submit(() -> counter.applyAsLong(IoUringIoHandler.onThisThread())));
        }
        return sum;
    }

    /** @return whether the running kernel ({@code os.version}) is at least {@code major.minor} */
    static boolean kernelAtLeast(int major, int minor) {
        String[] version = System.getProperty("os.version").split("[.-]");
        int ma = Integer.parseInt(version[0]);
        return ma > major || ma == major && Integer.parseInt(version[1]) >= minor;
    }

    static void eventually(String what, BooleanSupplier condition) {
        Waits.eventually(what, WAIT_SECONDS, condition);
    }

    static void closeAll(Channel... channels) {
        Waits.closeAll(channels);
    }

    /** @return the descriptors this process has open now */
    static long openDescriptors() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    /** @return the descriptor count once it is at most {@code expected} again, or what it is after 10 s */
    static long settledDescriptors(long expected) throws InterruptedException, IOException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long n = openDescriptors();
        while (n > expected && System.nanoTime() - end < 0) {
            Thread.sleep(20);
            n = openDescriptors();
        }
        return n;
    }

    /** Collects the bytes of stream reads; thread-safe. */
    @ChannelHandler.Sharable
    static class Bytes implements ChannelHandler {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try (Buffer b = (Buffer) msg) {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                synchronized (out) {
                    out.write(a, 0, a.length);
                }
            }
        }

        byte[] bytes() {
            synchronized (out) {
                return out.toByteArray();
            }
        }

        int size() {
            synchronized (out) {
                return out.size();
            }
        }
    }
}
