package io.conduit.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class IoEventLoopGroupTest {

    /** Blocks on a semaphore for the context's delay (clamped to 30 s) when allowed; records every call. */
    static final class FakeHandler implements IoHandler {
        final Semaphore wake = new Semaphore(0);
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger blockingRuns = new AtomicInteger();
        final AtomicInteger wakeups = new AtomicInteger();
        final AtomicInteger prepares = new AtomicInteger();
        final AtomicInteger destroys = new AtomicInteger();
        final AtomicLong lastDelayNanos = new AtomicLong();
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<String> offLoopCalls = new CopyOnWriteArrayList<>();
        volatile Thread loopThread;
        volatile boolean blocked;
        /** the next run throws this, as a handler whose bundle's classes are gone would */
        volatile LinkageError failNextRun;

        private void checkThread(String what) {
            if (Thread.currentThread() != loopThread) {
                offLoopCalls.add(what + " on " + Thread.currentThread().getName());
            }
        }

        @Override
        public int run(IoHandlerContext context) {
            checkThread("run");
            runs.incrementAndGet();
            LinkageError gone = failNextRun;
            if (gone != null) {
                throw gone;
            }
            events.add(context.canBlock() ? "run:block" : "run:poll");
            if (context.canBlock()) {
                blockingRuns.incrementAndGet();
                long delay = context.delayNanos(System.nanoTime());
                lastDelayNanos.set(delay);
                long wait = delay < 0 ? TimeUnit.SECONDS.toNanos(30) : Math.min(delay, TimeUnit.SECONDS.toNanos(30));
                blocked = true;
                try {
                    wake.tryAcquire(wait, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    blocked = false;
                }
            }
            wake.drainPermits();
            return 0;
        }

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
            wake.release();
        }

        @Override
        public void prepareToDestroy() {
            checkThread("prepareToDestroy");
            prepares.incrementAndGet();
            events.add("prepareToDestroy");
        }

        @Override
        public void destroy() {
            checkThread("destroy");
            destroys.incrementAndGet();
            events.add("destroy");
        }
    }

    private final List<FakeHandler> handlers = Collections.synchronizedList(new ArrayList<>());
    private final List<IoEventLoopGroup> groups = new ArrayList<>();

    private IoEventLoopGroup newGroup(int n, IoEventLoopGroup.Options options) {
        IoEventLoopGroup g = new IoEventLoopGroup(n, EventExecutors.newThreadFactory("io-test"), () -> {
            FakeHandler h = new FakeHandler();
            h.loopThread = Thread.currentThread();
            handlers.add(h);
            return h;
        }, options);
        groups.add(g);
        return g;
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (IoEventLoopGroup g : groups) {
            g.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
        for (IoEventLoopGroup g : groups) {
            assertTrue(g.terminationFuture().await(10, TimeUnit.SECONDS));
        }
        for (FakeHandler h : handlers) {
            assertEquals(List.of(), h.offLoopCalls);
        }
    }

    private static FakeHandler handlerOf(IoEventLoop loop) throws Exception {
        return (FakeHandler) loop.submit(loop::ioHandler).get(5, TimeUnit.SECONDS);
    }

    private static void awaitBlocked(FakeHandler h) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!h.blocked) {
            assertTrue(System.nanoTime() < end, "handler never blocked");
            Thread.sleep(1);
        }
    }

    @Test
    void handlerIsCreatedOnTheLoopThreadAndCurrentNamesTheLoop() throws Exception {
        IoEventLoopGroup group = newGroup(2, IoEventLoopGroup.Options.defaults());
        IoEventLoop loop = group.next();
        assertNull(loop.ioHandler());
        assertSame(loop, loop.submit(IoEventLoop::current).get(5, TimeUnit.SECONDS));
        assertNull(IoEventLoop.current());
        assertSame(group, loop.parent());
        assertTrue(loop.submit(() -> Thread.currentThread().getName()).get(5, TimeUnit.SECONDS).matches("io-test-\\d+-0"));
        assertTrue(handlerOf(loop).loopThread.getName().startsWith("io-test-"));
        assertEquals(2, group.loops().size());
    }

    @Test
    void wakeupFromAnotherThreadUnblocksTheHandler() throws Exception {
        IoEventLoop loop = newGroup(1, IoEventLoopGroup.Options.defaults()).next();
        FakeHandler h = handlerOf(loop);
        awaitBlocked(h);
        long start = System.nanoTime();
        Future<String> f = loop.submit(() -> "ran");
        assertEquals("ran", f.get(5, TimeUnit.SECONDS));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 2_000, "task waited " + millis + " ms for the blocked handler");
        assertTrue(h.wakeups.get() >= 1);
        assertTrue(h.lastDelayNanos.get() == -1, "no scheduled task: delay must be -1, was " + h.lastDelayNanos.get());
    }

    @Test
    void aBurstOfTasksWhileTheLoopIsBusyCausesNoWakeup() throws Exception {
        IoEventLoop loop = newGroup(1, IoEventLoopGroup.Options.defaults()).next();
        FakeHandler h = handlerOf(loop);
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
            busy.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(busy.await(5, TimeUnit.SECONDS));
        int before = h.wakeups.get();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 1_000; i++) {
            loop.execute(ran::incrementAndGet);
        }
        assertEquals(before, h.wakeups.get(), "tasks added while the loop runs tasks must not wake the handler");
        release.countDown();
        loop.submit(() -> null).get(5, TimeUnit.SECONDS);
        assertEquals(1_000, ran.get());
    }

    @Test
    void canBlockIsFalseWhileTasksArePending() throws Exception {
        IoEventLoop loop = newGroup(1, IoEventLoopGroup.Options.defaults().maxTasksPerRun(1)).next();
        FakeHandler h = handlerOf(loop);
        awaitBlocked(h);
        CountDownLatch second = new CountDownLatch(1);
        int wakeupsBefore = h.wakeups.get();
        long start = System.nanoTime();
        loop.execute(() -> {
            h.events.add("first");
            loop.execute(() -> { // queued by the loop itself: no wakeup, so the next run must not block
                h.events.add("second");
                second.countDown();
            });
        });
        assertTrue(second.await(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));
        List<String> ev = List.copyOf(h.events);
        int first = ev.indexOf("first");
        int sec = ev.indexOf("second");
        assertEquals("run:poll", ev.get(sec - 1), "run between the two tasks: " + ev.subList(first, sec + 1));
        // the cross-thread execute wakes the handler at most once (not at all if the loop was already awake);
        // the execute from the loop itself never does
        assertTrue(h.wakeups.get() <= wakeupsBefore + 1, "wakeups " + wakeupsBefore + " -> " + h.wakeups.get());
    }

    @Test
    void scheduledTaskRunsOnTimeBesideNeverDueTasksWithoutSpinning() throws Exception {
        IoEventLoop loop = newGroup(1, IoEventLoopGroup.Options.defaults()).next();
        FakeHandler h = handlerOf(loop);
        ScheduledFuture<?> never1 = loop.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        ScheduledFuture<?> never2 = loop.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.DAYS);
        long start = System.nanoTime();
        ScheduledFuture<Long> soon = loop.schedule(System::nanoTime, 10, TimeUnit.MILLISECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(soon.get(5, TimeUnit.SECONDS) - start);
        assertTrue(millis >= 9 && millis < 2_000, "10 ms task ran after " + millis + " ms");
        awaitBlocked(h);
        int runsBefore = h.runs.get();
        Thread.sleep(300);
        int runs = h.runs.get() - runsBefore;
        assertTrue(runs <= 2, "IoHandler.run called " + runs + " times in 300 ms with only never-due tasks");
        assertTrue(h.lastDelayNanos.get() > TimeUnit.DAYS.toNanos(365), "delay " + h.lastDelayNanos.get());
        assertFalse(never1.isDone());
        assertFalse(never2.isDone());
    }

    @Test
    void busyWaitNeverLetsTheHandlerBlockAndNeedsNoWakeup() throws Exception {
        IoEventLoop loop = newGroup(1, IoEventLoopGroup.Options.defaults().busyWait(true)).next();
        FakeHandler h = handlerOf(loop);
        for (int i = 0; i < 50; i++) {
            loop.submit(() -> null).get(5, TimeUnit.SECONDS);
        }
        Thread.sleep(20);
        assertTrue(h.runs.get() > 50);
        assertEquals(0, h.blockingRuns.get());
        assertEquals(0, h.wakeups.get());
        assertTrue(IoEventLoopGroup.Options.defaults().busyWait(true).isBusyWait());
    }

    @Test
    void shutdownCallsPrepareToDestroyThenDestroyOnceOnTheLoopThread() throws Exception {
        IoEventLoopGroup group = newGroup(1, IoEventLoopGroup.Options.defaults());
        FakeHandler h = handlerOf(group.next());
        awaitBlocked(h);
        Future<?> termination = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        assertTrue(termination.await(5, TimeUnit.SECONDS));
        assertEquals(1, h.prepares.get());
        assertEquals(1, h.destroys.get());
        List<String> ev = h.events;
        assertEquals("destroy", ev.get(ev.size() - 1));
        assertEquals("prepareToDestroy", ev.get(ev.size() - 2));
        assertTrue(group.isTerminated());
        assertEquals(List.of(), h.offLoopCalls);
    }

    /**
     * A handler whose run throws a LinkageError (its transport's classes are gone) ends its loop: no retry can load
     * the classes. An io_uring loop kept on a refreshed revision retried every 100 ms for good, logging a stack trace
     * each time, while its connections hung (IoUringSwapTortureTest). The handler still gets prepareToDestroy, so it
     * closes its channels, then destroy.
     */
    @Test
    void aLinkageErrorFromTheHandlerEndsTheLoopAndItsHandlerIsStillDestroyed() throws Exception {
        IoEventLoopGroup group = newGroup(1, IoEventLoopGroup.Options.defaults());
        FakeHandler h = handlerOf(group.next());
        awaitBlocked(h);
        h.failNextRun = new NoClassDefFoundError("io/conduit/test/Gone");
        group.next().execute(() -> { });
        assertTrue(group.terminationFuture().await(5, TimeUnit.SECONDS), "the loop ended");
        int runs = h.runs.get();
        Thread.sleep(300);
        assertEquals(runs, h.runs.get(), "no run after the failure");
        assertEquals(1, h.prepares.get());
        assertEquals(1, h.destroys.get());
        assertEquals(List.of("prepareToDestroy", "destroy"), h.events.subList(h.events.size() - 2, h.events.size()));
    }

    @Test
    void handlerRunsDuringTheQuietPeriodAndTasksThenStillRun() throws Exception {
        IoEventLoopGroup group = newGroup(1, IoEventLoopGroup.Options.defaults());
        IoEventLoop loop = group.next();
        FakeHandler h = handlerOf(loop);
        long start = System.nanoTime();
        Future<?> termination = group.shutdownGracefully(200, 5_000, TimeUnit.MILLISECONDS);
        Thread.sleep(50);
        assertEquals("late", loop.submit(() -> "late").get(5, TimeUnit.SECONDS));
        assertTrue(termination.await(5, TimeUnit.SECONDS));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= 240 && millis < 3_000, "terminated after " + millis + " ms");
        assertTrue(h.prepares.get() >= 1);
        assertEquals(1, h.destroys.get());
        assertTrue(h.runs.get() < 50, "the loop spun during the quiet period: " + h.runs.get() + " runs");
    }
}
