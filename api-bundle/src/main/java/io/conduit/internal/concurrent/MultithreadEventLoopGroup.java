package io.conduit.internal.concurrent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.concurrent.BlockingOperationException;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;

/**
 * A fixed set of event loops: {@link #next()} is round-robin, life-cycle calls go to every loop,
 * {@link #terminationFuture()} succeeds when every loop has terminated. Task methods go to {@link #next()}.
 * Thread-safe.
 *
 * @param <L> the loop type
 */
public class MultithreadEventLoopGroup<L extends EventLoop> implements EventLoopGroup {

    private final List<L> loops;                                   // immutable
    private final AtomicInteger nextIndex = new AtomicInteger();   // round-robin cursor
    private final DefaultPromise<Void> terminationFuture = new DefaultPromise<>(null);

    /**
     * @param nThreads number of loops, {@code >= 1}
     * @param loopFactory makes loop {@code i}; its parent should be the group the user sees
     */
    public MultithreadEventLoopGroup(int nThreads, LoopFactory<L> loopFactory) {
        if (nThreads < 1) {
            throw new IllegalArgumentException("nThreads " + nThreads + " must be >= 1");
        }
        List<L> list = new ArrayList<>(nThreads);
        try {
            for (int i = 0; i < nThreads; i++) {
                list.add(loopFactory.newLoop(this, i));
            }
        } catch (RuntimeException | Error e) {
            for (L l : list) {
                l.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            }
            throw e;
        }
        loops = Collections.unmodifiableList(list);
        AtomicInteger remaining = new AtomicInteger(nThreads);
        for (L l : loops) {
            l.terminationFuture().addListener(f -> {
                if (remaining.decrementAndGet() == 0) {
                    terminationFuture.trySuccess(null);
                }
            });
        }
    }

    /**
     * Makes the loops of a group.
     *
     * @param <L> the loop type
     */
    @FunctionalInterface
    public interface LoopFactory<L extends EventLoop> {
        /**
         * @param group the group being built (not yet usable), for use as the loop's parent
         * @param index the loop's index, from 0
         * @return the new loop
         */
        L newLoop(MultithreadEventLoopGroup<L> group, int index);
    }

    /** @return the loops, in creation order; immutable */
    public List<L> loops() {
        return loops;
    }

    /** @return the default number of loops: twice the available processors */
    public static int defaultThreads() {
        return 2 * Runtime.getRuntime().availableProcessors();
    }

    @Override
    public L next() {
        return loops.get(Math.floorMod(nextIndex.getAndIncrement(), loops.size()));
    }

    @Override
    public Iterator<EventExecutor> iterator() {
        return Collections.<EventExecutor>unmodifiableList(loops).iterator();
    }

    @Override
    public boolean isShuttingDown() {
        for (L l : loops) {
            if (!l.isShuttingDown()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Future<?> shutdownGracefully() {
        return shutdownGracefully(DEFAULT_SHUTDOWN_QUIET_PERIOD_MILLIS, DEFAULT_SHUTDOWN_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        for (L l : loops) {
            l.shutdownGracefully(quietPeriod, timeout, unit);
        }
        return terminationFuture;
    }

    @Override
    public Future<?> terminationFuture() {
        return terminationFuture;
    }

    @Override
    public void close() throws InterruptedException {
        for (L l : loops) {
            if (l.inEventLoop()) {
                throw new BlockingOperationException("close() of a group from its own loop thread "
                        + Thread.currentThread().getName() + " would wait for itself; call shutdownGracefully() instead");
            }
        }
        shutdownGracefully();
        terminationFuture.await();
    }

    @Override
    public void shutdown() {
        for (L l : loops) {
            l.shutdown();
        }
    }

    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> all = new ArrayList<>();
        for (L l : loops) {
            all.addAll(l.shutdownNow());
        }
        return all;
    }

    @Override
    public boolean isShutdown() {
        for (L l : loops) {
            if (!l.isShutdown()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean isTerminated() {
        for (L l : loops) {
            if (!l.isTerminated()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminationFuture.await(timeout, unit);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return next().submit(task);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return next().submit(task, result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return next().submit(task);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return next().schedule(command, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return next().schedule(callable, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return next().scheduleAtFixedRate(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return next().scheduleWithFixedDelay(command, initialDelay, delay, unit);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
            throws InterruptedException {
        return next().invokeAll(tasks);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout,
            TimeUnit unit) throws InterruptedException {
        return next().invokeAll(tasks, timeout, unit);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return next().invokeAny(tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return next().invokeAny(tasks, timeout, unit);
    }

    @Override
    public void execute(Runnable command) {
        next().execute(command);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + loops.size() + " loops]";
    }
}
