package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.ScheduledFuture;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The loop's wait in {@code io_uring_enter} and what ends it: a task from another thread (the eventfd read that is
 * always pending), a scheduled task (the wait's timeout, {@code IORING_ENTER_EXT_ARG}) and shutdown. The loop's ring
 * enters by its registered index where the kernel has {@code IORING_REGISTER_RING_FDS} (Linux 5.18).
 */
@Timeout(60)
class IoUringEventLoopTest {

    @Test
    void theLoopsRingIsRegisteredWithItsThreadWhereTheKernelHasIt() throws Exception {
        EventLoopGroup g = IoUringTestSupport.transport().newEventLoopGroup(1);
        try {
            boolean registered = IoUringTestSupport.await(
                    g.next().submit(() -> IoUringIoHandler.onThisThread().ring().registered()));
            assertEquals(IoUringTestSupport.kernelAtLeast(5, 18), registered, "Linux 5.18+ registers the ring");
        } finally {
            IoUringTestSupport.close(g);
        }
    }

    /**
     * Each task is submitted after the loop found nothing to do and went to wait without a deadline, so only the
     * wake-up ends that wait: a lost one would leave the task waiting for good.
     */
    @Test
    void aTaskFromAnotherThreadEndsTheLoopsWaitPromptly() throws Exception {
        EventLoopGroup g = IoUringTestSupport.transport().newEventLoopGroup(1);
        try {
            EventLoop loop = g.next();
            IoUringTestSupport.await(loop.submit(() -> { }));
            long[] latencyNanos = new long[40];
            for (int i = 0; i < latencyNanos.length; i++) {
                Thread.sleep(5);
                long submitted = System.nanoTime();
                var ran = loop.submit(System::nanoTime);
                assertTrue(ran.await(5, TimeUnit.SECONDS),
                        "task " + i + " did not run within 5 s: the wake-up was lost");
                latencyNanos[i] = ran.getNow() - submitted;
            }
            Arrays.sort(latencyNanos);
            long median = latencyNanos[latencyNanos.length / 2];
            assertTrue(median < 50_000_000L, "median wake-up latency " + median / 1000 + " µs; all: "
                    + Arrays.toString(latencyNanos));
        } finally {
            IoUringTestSupport.close(g);
        }
    }

    @Test
    void aScheduledTaskEndsTheWaitOnTime() throws Exception {
        EventLoopGroup g = IoUringTestSupport.transport().newEventLoopGroup(1);
        try {
            EventLoop loop = g.next();
            IoUringTestSupport.await(loop.submit(() -> { }));
            for (long delayMillis : new long[] {1, 20, 100}) {
                long scheduled = System.nanoTime();
                ScheduledFuture<Long> f = loop.schedule(System::nanoTime, delayMillis, TimeUnit.MILLISECONDS);
                long tookNanos = IoUringTestSupport.await(f) - scheduled;
                assertTrue(tookNanos >= TimeUnit.MILLISECONDS.toNanos(delayMillis), "ran early: " + tookNanos + " ns");
                assertTrue(tookNanos < TimeUnit.MILLISECONDS.toNanos(delayMillis + 1_000),
                        "a task due in " + delayMillis + " ms ran after " + tookNanos / 1000 + " µs");
            }
        } finally {
            IoUringTestSupport.close(g);
        }
    }

    @Test
    void aWaitingLoopShutsDown() throws Exception {
        EventLoopGroup g = IoUringTestSupport.transport().newEventLoopGroup(2);
        for (var loop : g) {
            IoUringTestSupport.await(loop.submit(() -> { }));
        }
        Thread.sleep(20); // both loops wait
        long start = System.nanoTime();
        assertTrue(g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS), "terminated");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "without a quiet period it ends at once");
        assertTrue(g.isTerminated());
    }
}
