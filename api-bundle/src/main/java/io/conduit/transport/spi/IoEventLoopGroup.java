package io.conduit.transport.spi;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.internal.concurrent.MultithreadEventLoopGroup;
import io.conduit.internal.metrics.PlatformMetrics;

/**
 * The shared I/O event loop group for transports: {@code nThreads} {@link IoEventLoop}s, each driving one
 * {@link IoHandler} made by the {@link IoHandlerFactory} on that loop's thread.
 *
 * <h2>What each loop does</h2>
 * Round after round, on its own thread:
 * <ol>
 * <li>{@link IoHandler#run(IoHandlerContext)} with {@link IoHandlerContext#canBlock()} {@code true} only when no
 * task is queued and no scheduled task is due (never under {@link Options#busyWait(boolean) busy-wait}), and a
 * deadline equal to the earliest scheduled task's ({@code Long.MAX_VALUE} for a task that is never due; the
 * handler must clamp what it hands to the kernel);</li>
 * <li>due scheduled tasks and queued tasks, at most {@link Options#maxTasksPerRun(int)} per round;</li>
 * <li>when shutting down: {@link IoHandler#prepareToDestroy()} (again only if tasks ran since the last call),
 * until the quiet period or timeout of {@link #shutdownGracefully(long, long, TimeUnit)} is over; then, once,
 * {@link IoHandler#destroy()}.</li>
 * </ol>
 * A task added from another thread while the loop may be blocked in {@code run} calls {@link IoHandler#wakeup()};
 * an atomic flag makes that at most one wake-up per blocking {@code run}.
 *
 * <h2>Threading</h2>
 * Every method of this class may be called from any thread. {@link IoHandler} methods other than
 * {@code wakeup} run only on the loop's thread. {@link #close()} must not be called from a loop thread of this
 * group (it would wait for itself) and throws {@link io.conduit.concurrent.BlockingOperationException} there.
 */
public final class IoEventLoopGroup implements EventLoopGroup {

    /**
     * Immutable tuning of an {@link IoEventLoopGroup}; start from {@link #defaults()}.
     */
    public static final class Options {
        private static final Options DEFAULTS = new Options(false, 1024);

        private final boolean busyWait;
        private final int maxTasksPerRun;

        private Options(boolean busyWait, int maxTasksPerRun) {
            this.busyWait = busyWait;
            this.maxTasksPerRun = maxTasksPerRun;
        }

        /** @return blocking waits, at most 1024 tasks per round */
        public static Options defaults() {
            return DEFAULTS;
        }

        /**
         * @param busyWait {@code true}: {@link IoHandlerContext#canBlock()} is always {@code false}, so the
         *        handler polls without blocking (no context switches, one core spent per loop) and no
         *        {@link IoHandler#wakeup()} is ever needed
         * @return new options
         */
        public Options busyWait(boolean busyWait) {
            return new Options(busyWait, maxTasksPerRun);
        }

        /**
         * @param maxTasksPerRun tasks run between two {@link IoHandler#run} calls, {@code >= 1}
         * @return new options
         * @throws IllegalArgumentException when {@code maxTasksPerRun < 1}
         */
        public Options maxTasksPerRun(int maxTasksPerRun) {
            if (maxTasksPerRun < 1) {
                throw new IllegalArgumentException("maxTasksPerRun " + maxTasksPerRun + " must be >= 1");
            }
            return new Options(busyWait, maxTasksPerRun);
        }

        /** @return whether busy-wait is on */
        public boolean isBusyWait() {
            return busyWait;
        }

        /** @return the task batch per round */
        public int maxTasksPerRun() {
            return maxTasksPerRun;
        }

        @Override
        public String toString() {
            return "Options[busyWait=" + busyWait + ", maxTasksPerRun=" + maxTasksPerRun + "]";
        }
    }

    private final MultithreadEventLoopGroup<SingleThreadIoEventLoop> delegate;

    /**
     * Same as {@link #IoEventLoopGroup(int, ThreadFactory, IoHandlerFactory, Options)} with {@link Options#defaults()}.
     */
    public IoEventLoopGroup(int nThreads, ThreadFactory threadFactory, IoHandlerFactory handlerFactory) {
        this(nThreads, threadFactory, handlerFactory, Options.defaults());
    }

    /**
     * Creates the loops; their threads start on their first task.
     *
     * @param nThreads number of loops; {@code 0} means twice the available processors
     * @param threadFactory makes each loop's thread; {@code null} means
     *        {@link EventExecutors#newThreadFactory(String) EventExecutors.newThreadFactory("conduit-io")}.
     *        Use loop threads ({@code LoopThread}s) so per-loop caches and {@link IoEventLoop#current()} work.
     * @param handlerFactory called once per loop, on the loop's thread, before anything else runs there
     * @param options tuning
     * @throws IllegalArgumentException when {@code nThreads < 0}
     */
    public IoEventLoopGroup(int nThreads, ThreadFactory threadFactory, IoHandlerFactory handlerFactory, Options options) {
        this(nThreads, threadFactory, handlerFactory, options, null);
    }

    /** {@link IoTransportSupport#newGroup}: the loops add to {@code transportName}'s metrics ({@code null}: unnamed). */
    IoEventLoopGroup(int nThreads, ThreadFactory threadFactory, IoHandlerFactory handlerFactory, Options options,
            String transportName) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads " + nThreads + " must be >= 0 (0 = default)");
        }
        Objects.requireNonNull(handlerFactory, "handlerFactory");
        Objects.requireNonNull(options, "options");
        ThreadFactory tf = threadFactory != null ? threadFactory : EventExecutors.newThreadFactory("conduit-io");
        int n = nThreads == 0 ? MultithreadEventLoopGroup.defaultThreads() : nThreads;
        this.delegate = new MultithreadEventLoopGroup<>(n, (group, i) -> new SingleThreadIoEventLoop(this, tf, handlerFactory,
                options.isBusyWait(), options.maxTasksPerRun(), "io-loop-" + i,
                transportName == null ? PlatformMetrics.UNNAMED : transportName));
    }

    /** @return the loops, in creation order; immutable */
    public List<? extends IoEventLoop> loops() {
        return delegate.loops();
    }

    @Override
    public IoEventLoop next() {
        return delegate.next();
    }

    @Override
    public Iterator<EventExecutor> iterator() {
        return delegate.iterator();
    }

    @Override
    public boolean isShuttingDown() {
        return delegate.isShuttingDown();
    }

    @Override
    public Future<?> shutdownGracefully() {
        return delegate.shutdownGracefully();
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        return delegate.shutdownGracefully(quietPeriod, timeout, unit);
    }

    @Override
    public Future<?> terminationFuture() {
        return delegate.terminationFuture();
    }

    @Override
    public void close() throws InterruptedException {
        delegate.close();
    }

    @Override
    public void shutdown() {
        delegate.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        return delegate.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return delegate.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return delegate.awaitTermination(timeout, unit);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return delegate.submit(task);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return delegate.submit(task, result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return delegate.submit(task);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return delegate.schedule(command, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return delegate.schedule(callable, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return delegate.scheduleAtFixedRate(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return delegate.scheduleWithFixedDelay(command, initialDelay, delay, unit);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
            throws InterruptedException {
        return delegate.invokeAll(tasks);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout,
            TimeUnit unit) throws InterruptedException {
        return delegate.invokeAll(tasks, timeout, unit);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return delegate.invokeAny(tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return delegate.invokeAny(tasks, timeout, unit);
    }

    @Override
    public void execute(Runnable command) {
        delegate.execute(command);
    }

    @Override
    public String toString() {
        return "IoEventLoopGroup[" + delegate.loops().size() + " loops]";
    }
}
