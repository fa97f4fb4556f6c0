package io.conduit.internal.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class SingleThreadEventExecutorTest {

    private final List<EventExecutor> toStop = new ArrayList<>();

    private DefaultEventLoop newLoop(String name) {
        DefaultEventLoop loop = new DefaultEventLoop(null, new DefaultThreadFactory(name), name);
        toStop.add(loop);
        return loop;
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        for (EventExecutor e : toStop) {
            e.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
        for (EventExecutor e : toStop) {
            assertTrue(e.terminationFuture().await(10, TimeUnit.SECONDS), "did not terminate: " + e);
        }
    }

    private static <T> T onLoop(EventExecutor loop, Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    @Test
    void threadStartsOnFirstTaskAndIsANamedNonDaemonLoopThread() throws Exception {
        DefaultEventLoop loop = newLoop("lazy");
        assertNull(loop.thread());
        String info = onLoop(loop, () -> {
            Thread t = Thread.currentThread();
            return (t instanceof LoopThread) + " " + t.isDaemon() + " " + t.getName() + " " + loop.inEventLoop();
        });
        assertTrue(info.matches("true false lazy-\\d+-0 true"), info);
        assertFalse(loop.inEventLoop());
    }

    private static void assertNull(Object o) {
        assertTrue(o == null, "expected null: " + o);
    }

    @Test
    void tasksRunInSubmissionOrderAndExceptionsDoNotStopTheLoop() throws Exception {
        DefaultEventLoop loop = newLoop("order");
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            loop.execute(() -> {
                seen.add(n);
                if (n == 50) {
                    throw new IllegalStateException("task failure (expected by the test)");
                }
            });
        }
        Future<List<Integer>> copy = loop.submit(() -> new ArrayList<>(seen));
        assertEquals(100, copy.get(5, TimeUnit.SECONDS).size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i, copy.getNow().get(i));
        }
    }

    @Test
    void submitAndInvokeAllReturnConduitFutures() throws Exception {
        DefaultEventLoop loop = newLoop("submit");
        Future<String> f = loop.submit(() -> "x");
        assertEquals("x", f.get(5, TimeUnit.SECONDS));
        List<java.util.concurrent.Future<Integer>> all = loop.invokeAll(List.of(() -> 1, () -> 2));
        assertEquals(2, all.get(1).get());
        assertTrue(all.get(0) instanceof Future);
        Future<?> failed = loop.submit(() -> {
            throw new IllegalArgumentException("bad");
        });
        failed.await(5, TimeUnit.SECONDS);
        assertTrue(failed.cause() instanceof IllegalArgumentException);
    }

    @Test
    void tenMillisecondTaskRunsOnTimeBesideNeverDueTasksAndTheLoopDoesNotSpin() throws Exception {
        DefaultEventLoop loop = newLoop("maxdelay");
        onLoop(loop, () -> null); // start
        ScheduledFuture<?> maxNanos = loop.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        ScheduledFuture<?> maxDays = loop.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.DAYS);
        long start = System.nanoTime();
        ScheduledFuture<Long> soon = loop.schedule(System::nanoTime, 10, TimeUnit.MILLISECONDS);
        long ranAt = soon.get(5, TimeUnit.SECONDS);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(ranAt - start);
        assertTrue(elapsedMillis >= 9 && elapsedMillis < 2_000, "10 ms task ran after " + elapsedMillis + " ms");

        assertTrue(maxNanos.getDelay(TimeUnit.DAYS) > 100_000, "delay " + maxNanos.getDelay(TimeUnit.DAYS));
        assertTrue(maxDays.getDelay(TimeUnit.DAYS) > 100_000);
        assertFalse(maxNanos.isDone());
        assertFalse(maxDays.isDone());
        assertTrue(maxNanos.compareTo(soon) > 0);

        long before = loop.iterations();
        Thread.sleep(300);
        long spins = loop.iterations() - before;
        assertTrue(spins <= 3, "loop went round " + spins + " times in 300 ms with only never-due tasks");
        assertEquals(2, onLoop(loop, loop::scheduledTaskCount));
        assertFalse(maxNanos.isDone());
    }

    @Test
    void scheduleAcceptsEveryHugeDelayAndNegativeMeansNow() throws Exception {
        DefaultEventLoop loop = newLoop("huge");
        for (TimeUnit unit : TimeUnit.values()) {
            assertFalse(loop.schedule(() -> { }, Long.MAX_VALUE, unit).isDone());
            assertFalse(loop.schedule(() -> { }, Long.MAX_VALUE / 3, unit).isDone());
        }
        assertEquals("now", loop.schedule(() -> "now", -5, TimeUnit.DAYS).get(5, TimeUnit.SECONDS));
        assertEquals(Long.MAX_VALUE, ScheduledFutureTask.deadlineNanos(Long.MAX_VALUE - 5, 10, TimeUnit.NANOSECONDS));
        assertEquals(Long.MAX_VALUE, ScheduledFutureTask.deadlineNanos(1, Long.MAX_VALUE, TimeUnit.DAYS));
        assertEquals(Long.MIN_VALUE + 10, ScheduledFutureTask.deadlineNanos(Long.MIN_VALUE, 10, TimeUnit.NANOSECONDS));
        assertEquals(Long.MAX_VALUE, ScheduledFutureTask.saturatedSub(Long.MAX_VALUE, -1));
        assertEquals(Long.MIN_VALUE, ScheduledFutureTask.saturatedSub(Long.MIN_VALUE, 1));
    }

    @Test
    void fixedRateTaskRepeatsUntilCancelled() throws Exception {
        DefaultEventLoop loop = newLoop("rate");
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch five = new CountDownLatch(5);
        ScheduledFuture<?> f = loop.scheduleAtFixedRate(() -> {
            runs.incrementAndGet();
            five.countDown();
        }, 0, 20, TimeUnit.MILLISECONDS);
        assertTrue(five.await(5, TimeUnit.SECONDS));
        assertTrue(f.cancel(false));
        assertTrue(f.isCancelled());
        int after = onLoop(loop, runs::get);
        Thread.sleep(100);
        assertEquals(after, runs.get());
        assertEquals(0, onLoop(loop, loop::scheduledTaskCount));
    }

    @Test
    void fixedDelayTaskRepeatsAndStopsWhenItThrows() throws Exception {
        DefaultEventLoop loop = newLoop("delay");
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> f = loop.scheduleWithFixedDelay(() -> {
            if (runs.incrementAndGet() == 3) {
                throw new IllegalStateException("third run fails (expected by the test)");
            }
        }, 1, 5, TimeUnit.MILLISECONDS);
        f.await(5, TimeUnit.SECONDS);
        assertTrue(f.cause() instanceof IllegalStateException);
        assertEquals(3, runs.get());
        assertEquals(0, onLoop(loop, loop::scheduledTaskCount));
        assertThrows(IllegalArgumentException.class, () -> loop.scheduleAtFixedRate(() -> { }, 0, 0, TimeUnit.SECONDS));
    }

    @Test
    void cancelledScheduledTasksAreRemovedFromTheQueue() throws Exception {
        DefaultEventLoop loop = newLoop("cancel");
        List<ScheduledFuture<?>> tasks = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            tasks.add(loop.schedule(() -> { }, 1 + i % 7, TimeUnit.HOURS));
        }
        assertEquals(10_000, onLoop(loop, loop::scheduledTaskCount));
        for (ScheduledFuture<?> t : tasks) {
            assertTrue(t.cancel(false));
        }
        assertEquals(0, onLoop(loop, loop::scheduledTaskCount));
        // cancelled on the loop thread itself
        assertEquals(0, onLoop(loop, () -> {
            ScheduledFuture<?> t = loop.schedule(() -> { }, 1, TimeUnit.HOURS);
            t.cancel(false);
            return loop.scheduledTaskCount();
        }));
        // cancelled before the cross-thread add reached the loop
        ScheduledFuture<?> raced = loop.schedule(() -> { }, 1, TimeUnit.HOURS);
        raced.cancel(false);
        assertEquals(0, onLoop(loop, loop::scheduledTaskCount));
    }

    @Test
    void gracefulShutdownWaitsForAQuietPeriodAndAcceptsTasksDuringIt() throws Exception {
        DefaultEventLoop loop = newLoop("quiet");
        onLoop(loop, () -> null);
        long start = System.nanoTime();
        Future<?> termination = loop.shutdownGracefully(300, 5_000, TimeUnit.MILLISECONDS);
        assertTrue(loop.isShuttingDown());
        assertFalse(loop.isShutdown());
        Thread.sleep(100);
        assertFalse(termination.isDone());
        Future<String> late = loop.submit(() -> "accepted during the quiet period");
        assertEquals("accepted during the quiet period", late.get(5, TimeUnit.SECONDS));
        assertTrue(termination.await(5, TimeUnit.SECONDS));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= 390 && millis < 3_000, "terminated after " + millis + " ms");
        assertTrue(loop.isTerminated());
    }

    @Test
    void gracefulShutdownTimeoutEndsAQuietPeriodThatNeverComes() throws Exception {
        DefaultEventLoop loop = newLoop("timeout");
        // The loop itself keeps adding a task every millisecond, so the quiet period can never pass, however
        // slowly the test thread is scheduled on a loaded machine: only the timeout can end the shutdown.
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable busy = new Runnable() {
            @Override
            public void run() {
                if (stop.get()) {
                    return;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                try {
                    loop.execute(this);
                } catch (RejectedExecutionException shutDown) {
                    // the timeout ended the shutdown
                }
            }
        };
        onLoop(loop, () -> null);
        loop.execute(busy);
        long start = System.nanoTime();
        Future<?> termination = loop.shutdownGracefully(200, 600, TimeUnit.MILLISECONDS);
        assertTrue(termination.await(10, TimeUnit.SECONDS));
        stop.set(true);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= 590 && millis < 10_000, "terminated after " + millis + " ms");
    }

    @Test
    void scheduledTasksAreCancelledByShutdown() throws Exception {
        DefaultEventLoop loop = newLoop("cancel-on-shutdown");
        ScheduledFuture<?> f = loop.schedule(() -> { }, 1, TimeUnit.HOURS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        assertTrue(f.isCancelled());
    }

    @Test
    void tasksAreRejectedAfterShutdownWithAClearMessage() throws Exception {
        DefaultEventLoop loop = newLoop("reject");
        onLoop(loop, () -> null);
        assertTrue(loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS));
        RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> loop.execute(() -> { }));
        assertTrue(e.getMessage().contains("reject") && e.getMessage().contains("terminated"), e.getMessage());
        assertThrows(RejectedExecutionException.class, () -> loop.submit(() -> "x"));
        assertThrows(RejectedExecutionException.class, () -> loop.schedule(() -> { }, 1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> loop.shutdownGracefully(2, 1, TimeUnit.SECONDS));
    }

    @Test
    void shutdownWithoutQuietPeriodRejectsAtOnceButRunsQueuedTasks() throws Exception {
        DefaultEventLoop loop = newLoop("shutdown-now");
        CountDownLatch gate = new CountDownLatch(1);
        loop.execute(() -> {
            try {
                gate.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Future<String> queued = loop.submit(() -> "still ran");
        loop.shutdown();
        assertTrue(loop.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> loop.execute(() -> { }));
        gate.countDown();
        assertEquals("still ran", queued.get(5, TimeUnit.SECONDS));
        assertTrue(loop.awaitTermination(5, TimeUnit.SECONDS));
    }

    @Test
    void neverStartedExecutorTerminatesAtOnce() throws Exception {
        DefaultEventLoop loop = newLoop("never");
        assertTrue(loop.shutdownGracefully(1, 2, TimeUnit.SECONDS).isDone());
        assertTrue(loop.isTerminated());
        assertNull(loop.thread());
        assertThrows(RejectedExecutionException.class, () -> loop.execute(() -> { }));
    }

    @Test
    void terminationHooksRunOnTheLoopThreadBeforeTerminationCompletes() throws Exception {
        EventLoopGroup group = EventExecutors.newGroup(1, "hooks");
        toStop.add(group.next());
        AtomicReference<String> hookThread = new AtomicReference<>();
        String loopThread = onLoop(group.next(), () -> {
            LoopThread t = LoopThread.current();
            assertNotNull(t);
            t.onTermination(() -> hookThread.set(Thread.currentThread().getName()));
            return t.getName();
        });
        assertTrue(loopThread.matches("hooks-\\d+-0"), loopThread);
        java.util.concurrent.CompletableFuture<String> atTermination = new java.util.concurrent.CompletableFuture<>();
        group.terminationFuture().addListener(f -> atTermination.complete(String.valueOf(hookThread.get())));
        group.close();
        assertTrue(group.isTerminated());
        assertEquals(loopThread, hookThread.get());
        // listeners may still be running when close() returns: wait for ours
        assertEquals(loopThread, atTermination.get(5, TimeUnit.SECONDS));
    }

    @Test
    void groupIsRoundRobinAndTerminatesAsAWhole() throws Exception {
        EventLoopGroup group = EventExecutors.newGroup(3, "rr");
        List<EventExecutor> picked = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            picked.add(group.next());
        }
        assertEquals(picked.subList(0, 3), picked.subList(3, 6));
        assertEquals(3, new java.util.HashSet<>(picked).size());
        int count = 0;
        for (EventExecutor e : group) {
            assertTrue(e.parent() == group);
            count++;
        }
        assertEquals(3, count);
        for (EventExecutor e : picked.subList(0, 2)) {
            onLoop(e, () -> null); // start two of three
        }
        Future<?> termination = group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        assertTrue(termination.await(5, TimeUnit.SECONDS));
        assertTrue(group.isTerminated());
        assertThrows(RejectedExecutionException.class, () -> group.execute(() -> { }));
        assertThrows(io.conduit.concurrent.BlockingOperationException.class, () -> {
            EventLoopGroup g2 = EventExecutors.newGroup(1, "self-close");
            try {
                Throwable t = g2.next().submit(() -> {
                    g2.close();
                    return null;
                }).await().cause();
                if (t instanceof RuntimeException re) {
                    throw re;
                }
            } finally {
                g2.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
            }
        });
    }

    @Test
    void everyAcceptedTaskRunsExactlyOnceWhenShutdownRacesWithProducers() throws Exception {
        for (int round = 0; round < 20; round++) {
            DefaultEventLoop loop = newLoop("race");
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < 100_000; i++) {
                            loop.execute(ran::incrementAndGet);
                            accepted.incrementAndGet();
                        }
                    } catch (RejectedExecutionException expected) {
                        // shut down: stop producing
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                t.start();
                producers.add(t);
            }
            go.countDown();
            Thread.sleep(round % 3);
            assertTrue(loop.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
            for (Thread t : producers) {
                t.join(10_000);
            }
            assertEquals(accepted.get(), ran.get(), "round " + round);
        }
    }
}
