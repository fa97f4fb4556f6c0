package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.transport.ChannelType;

import java.io.Closeable;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Accepting while the process is out of descriptors ({@code EMFILE}): the listener stays open, the error is
 * fired once for the burst, the loop does not spin, and the queued connections are accepted once descriptors
 * are free again. Descriptor pressure is raised inside this JVM by opening {@code /dev/null} until the limit
 * (bounded by {@link #MAX_DESCRIPTORS}).
 */
public abstract class AcceptBackoffTest extends AbstractTransportTest {

    /** Upper bound of descriptors this test opens; a higher limit fails the test with a message. */
    static final int MAX_DESCRIPTORS = 200_000;

    /** Counts accept errors and passes accepted channels on. */
    @ChannelHandler.Sharable
    static final class AcceptErrors implements ChannelHandler {
        final AtomicInteger errors = new AtomicInteger();
        volatile Throwable last;

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.incrementAndGet();
            last = cause;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void acceptUnderEmfileKeepsTheServerOpenReportsOnceAndResumes(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        // Load what the JDK opens lazily (time-zone data used by log formatting) before descriptors run out, so the
        // test measures the transport, not a first log line failing with EMFILE inside the JDK.
        java.time.ZonedDateTime.now();
        AcceptErrors errors = new AcceptErrors();
        AtomicInteger accepted = new AtomicInteger();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.incrementAndGet();
            }
        }, b -> b.handler(errors));
        InetSocketAddress address = (InetSocketAddress) server.localAddress();
        long loopThreadId = await(submitOnLoop(server));
        int clients = 3;
        List<SocketChannel> sockets = new ArrayList<>();
        List<Closeable> ballast = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                sockets.add(SocketChannel.open()); // descriptors taken before the pressure
            }
            // The previous permutation's loops may still be closing their descriptors: one freed during the
            // pressure let an accept through and started a second burst (a loaded CI run). Wait until the count
            // of this process's descriptors holds still.
            OpenDescriptors.settledCount();
            Path devNull = Path.of("/dev/null");
            try {
                while (ballast.size() < MAX_DESCRIPTORS) {
                    ballast.add(FileChannel.open(devNull, StandardOpenOption.READ));
                }
                throw new AssertionError("opened " + MAX_DESCRIPTORS + " descriptors without reaching the limit;"
                        + " lower the open-files limit (ulimit -n) to run this test");
            } catch (IOException limitReached) {
                assertTrue(String.valueOf(limitReached.getMessage()).contains("Too many open files"),
                        limitReached.toString());
            }
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long cpuBefore = threads.getThreadCpuTime(loopThreadId);
            for (SocketChannel s : sockets) {
                s.connect(address); // completes in the kernel backlog; accept(2) then fails with EMFILE
            }
            long pressureStart = System.nanoTime();
            while (errors.errors.get() == 0 && System.nanoTime() - pressureStart < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(5);
            }
            Thread.sleep(600); // several back-off periods
            long cpuMillis = TimeUnit.NANOSECONDS.toMillis(threads.getThreadCpuTime(loopThreadId) - cpuBefore);
            int errorsDuringBurst = errors.errors.get();
            boolean open = server.isOpen();
            int acceptedDuringPressure = accepted.get();
            // free the descriptors before asserting, so a failure does not starve the rest of the JVM
            for (Closeable c : ballast) {
                c.close();
            }
            ballast.clear();
            assertEquals(1, errorsDuringBurst, "one error per burst, got " + errorsDuringBurst + ": " + errors.last);
            assertTrue(open, "the listener stays open under EMFILE");
            assertEquals(0, acceptedDuringPressure);
            assertTrue(cpuMillis < 300, "the loop spun: " + cpuMillis + " ms CPU in ~0.6 s of EMFILE");
            eventually("the queued connections accepted after descriptors were freed",
                    () -> accepted.get() == clients);
            assertTrue(server.isOpen());
        } finally {
            for (Closeable c : ballast) {
                c.close();
            }
            for (SocketChannel s : sockets) {
                s.close();
            }
            closeAll(server);
        }
    }

    private static io.conduit.concurrent.Future<Long> submitOnLoop(Channel ch) {
        io.conduit.concurrent.Promise<Long> p = ch.eventLoop().newPromise();
        ch.eventLoop().execute(() -> p.trySuccess(Thread.currentThread().getId()));
        return p;
    }

}
