package io.conduit.channel.embedded;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.internal.concurrent.DefaultPromise;

/**
 * An {@link EventLoop} without a thread of its own, for tests: tasks queue up until the test calls
 * {@link #runPendingTasks()} (or {@link #runScheduledPendingTasks()} for due scheduled tasks), and then run on
 * the calling thread, which must be the thread that created the loop. {@link #inEventLoop()} is {@code true}
 * on that thread only.
 *
 * <p>Time: scheduled tasks use the loop's own clock {@link #nanoTime()} (real elapsed time since creation plus
 * every {@link #advanceTimeBy(long, TimeUnit)}), so a test can make a 30-second timeout fire at once. Delays
 * up to {@code Long.MAX_VALUE} of any unit are accepted without overflow (such a task never becomes due).
 *
 * <p>Threading: {@link #execute(Runnable)}, {@code schedule*} and {@code submit} may be called from any
 * thread; the {@code run*} methods only from the creating thread. After a shutdown new tasks are rejected with
 * {@link RejectedExecutionException}; the termination future succeeds at once.
 */
public final class EmbeddedEventLoop implements EventLoop {

    private static final System.Logger LOG = System.getLogger(EmbeddedEventLoop.class.getName());

    private final Thread owner = Thread.currentThread();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Scheduled tasks by deadline, then submission order; guarded by itself. */
    private final PriorityQueue<ScheduledTask<?>> scheduled = new PriorityQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final long startNanos = System.nanoTime();
    /** Time added by {@link #advanceTimeBy}; written by any thread. */
    private final AtomicLong offsetNanos = new AtomicLong();
    private final DefaultPromise<Void> termination = new DefaultPromise<>(null);
    private volatile boolean shuttingDown;

    /** Creates a loop owned by the calling thread. */
    public EmbeddedEventLoop() {
    }

    // ---------------------------------------------------------------- test control

    /** @return this loop's clock in nanoseconds: time since creation plus all {@link #advanceTimeBy} calls */
    @Override
    public long nanoTime() {
        long elapsed = System.nanoTime() - startNanos;
        long offset = offsetNanos.get();
        return offset > Long.MAX_VALUE - elapsed ? Long.MAX_VALUE : elapsed + offset; // saturate, never wrap
    }

    /**
     * Moves the loop's clock forward; scheduled tasks that became due run at the next
     * {@link #runScheduledPendingTasks()}.
     *
     * @throws IllegalArgumentException when {@code amount < 0}
     */
    public void advanceTimeBy(long amount, TimeUnit unit) {
        if (amount < 0) {
            throw new IllegalArgumentException("cannot move the clock back: amount " + amount + " " + unit);
        }
        long nanos = unit.toNanos(amount);
        offsetNanos.getAndUpdate(o -> o > Long.MAX_VALUE - nanos ? Long.MAX_VALUE : o + nanos);
    }

    /**
     * Runs queued tasks, including tasks they queue, until the queue is empty. A task that throws is logged at
     * WARNING and does not stop the others.
     *
     * @return how many tasks ran
     * @throws IllegalStateException when called from a thread other than the one that created the loop
     */
    public int runPendingTasks() {
        checkOwner();
        int n = 0;
        for (Runnable task; (task = tasks.poll()) != null; n++) {
            safeRun(task);
        }
        return n;
    }

    /**
     * Runs every scheduled task whose deadline has passed on {@link #nanoTime()}.
     *
     * @return nanoseconds until the next scheduled task is due, or {@code -1} when none is scheduled
     * @throws IllegalStateException when called from a thread other than the one that created the loop
     */
    public long runScheduledPendingTasks() {
        checkOwner();
        long now = nanoTime();
        for (;;) {
            ScheduledTask<?> task;
            synchronized (scheduled) {
                task = scheduled.peek();
                if (task == null) {
                    return -1;
                }
                if (task.deadlineNanos > now) {
                    return task.deadlineNanos - now;
                }
                scheduled.poll();
            }
            safeRun(task);
        }
    }

    /** @return {@code true} when tasks wait in the queue (scheduled tasks not counted) */
    public boolean hasPendingTasks() {
        return !tasks.isEmpty();
    }

    /** @return nanoseconds until the next scheduled task is due (0 if overdue), or {@code -1} when none */
    public long nextScheduledTaskNanos() {
        synchronized (scheduled) {
            ScheduledTask<?> task = scheduled.peek();
            return task == null ? -1 : Math.max(0, task.deadlineNanos - nanoTime());
        }
    }

    private void checkOwner() {
        if (!inEventLoop()) {
            throw new IllegalStateException("run tasks of an EmbeddedEventLoop on the thread that created it ("
                    + owner.getName() + "), not on " + Thread.currentThread().getName());
        }
    }

    private static void safeRun(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "task " + task + " of an EmbeddedEventLoop threw", t);
        }
    }

    // ---------------------------------------------------------------- EventExecutor

    @Override
    public boolean inEventLoop() {
        return Thread.currentThread() == owner;
    }

    @Override
    public boolean inEventLoop(Thread thread) {
        return thread == owner;
    }

    @Override
    public EventLoopGroup parent() {
        return this;
    }

    @Override
    public <V> Promise<V> newPromise() {
        return new DefaultPromise<>(this);
    }

    @Override
    public <V> Future<V> newSucceededFuture(V result) {
        Promise<V> p = newPromise();
        p.trySuccess(result);
        return p;
    }

    @Override
    public <V> Future<V> newFailedFuture(Throwable cause) {
        Promise<V> p = newPromise();
        p.tryFailure(cause);
        return p;
    }

    @Override
    public Iterator<EventExecutor> iterator() {
        return List.<EventExecutor>of(this).iterator();
    }

    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command");
        if (shuttingDown) {
            throw new RejectedExecutionException("EmbeddedEventLoop is shut down; task rejected: " + command);
        }
        tasks.add(command);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return submit(task, null);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        return submit(() -> {
            task.run();
            return result;
        });
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        Objects.requireNonNull(task, "task");
        DefaultPromise<T> promise = new DefaultPromise<>(this);
        execute(() -> {
            if (promise.setUncancellable()) {
                try {
                    promise.trySuccess(task.call());
                } catch (Throwable t) {
                    promise.tryFailure(t);
                }
            }
        });
        return promise;
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> callables)
            throws InterruptedException {
        List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
        for (Callable<T> c : callables) {
            futures.add(submit(c));
        }
        if (inEventLoop()) {
            runPendingTasks();
        }
        for (java.util.concurrent.Future<T> f : futures) {
            ((Future<T>) f).await();
        }
        return futures;
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> callables,
            long timeout, TimeUnit unit) throws InterruptedException {
        List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
        for (Callable<T> c : callables) {
            futures.add(submit(c));
        }
        if (inEventLoop()) {
            runPendingTasks();
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (java.util.concurrent.Future<T> f : futures) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !((Future<T>) f).await(left, TimeUnit.NANOSECONDS)) {
                f.cancel(false);
            }
        }
        return futures;
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> callables) throws InterruptedException, ExecutionException {
        return any(invokeAll(callables));
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> callables, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<java.util.concurrent.Future<T>> futures = invokeAll(callables, timeout, unit);
        for (java.util.concurrent.Future<T> f : futures) {
            if (!f.isCancelled()) {
                return any(futures);
            }
        }
        throw new TimeoutException("no task completed within " + timeout + " " + unit);
    }

    private static <T> T any(List<java.util.concurrent.Future<T>> futures) throws ExecutionException {
        ExecutionException last = new ExecutionException("no task given", null);
        for (java.util.concurrent.Future<T> f : futures) {
            try {
                return f.get();
            } catch (ExecutionException e) {
                last = e;
            } catch (CancellationException | InterruptedException e) {
                last = new ExecutionException(e);
            }
        }
        throw last;
    }

    // ---------------------------------------------------------------- scheduling

    private long deadline(long delay, TimeUnit unit) {
        long delayNanos = Math.max(0, unit.toNanos(delay)); // toNanos saturates
        long now = nanoTime();
        return delayNanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + delayNanos;
    }

    private <V> ScheduledTask<V> schedule(ScheduledTask<V> task) {
        if (shuttingDown) {
            throw new RejectedExecutionException("EmbeddedEventLoop is shut down; scheduled task rejected");
        }
        synchronized (scheduled) {
            scheduled.add(task);
        }
        return task;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        return schedule(new ScheduledTask<>(() -> {
            command.run();
            return null;
        }, deadline(delay, unit), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        return schedule(new ScheduledTask<>(callable, deadline(delay, unit), 0));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        if (period <= 0) {
            throw new IllegalArgumentException("period must be > 0, got " + period + " " + unit);
        }
        return schedule(new ScheduledTask<>(() -> {
            command.run();
            return null;
        }, deadline(initialDelay, unit), Math.max(1, unit.toNanos(period))));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        if (delay <= 0) {
            throw new IllegalArgumentException("delay must be > 0, got " + delay + " " + unit);
        }
        return schedule(new ScheduledTask<>(() -> {
            command.run();
            return null;
        }, deadline(initialDelay, unit), -Math.max(1, unit.toNanos(delay))));
    }

    /** A scheduled task and its future. */
    private final class ScheduledTask<V> extends DefaultPromise<V> implements ScheduledFuture<V>, Runnable {
        private final Callable<V> callable;
        private final long seq = sequence.getAndIncrement();
        /** > 0 fixed rate, < 0 fixed delay, 0 one-shot; nanoseconds. */
        private final long periodNanos;
        /** On {@link #nanoTime()}; changed only while the task is out of the queue, on the owner thread. */
        private long deadlineNanos;

        ScheduledTask(Callable<V> callable, long deadlineNanos, long periodNanos) {
            super(EmbeddedEventLoop.this);
            this.callable = callable;
            this.deadlineNanos = deadlineNanos;
            this.periodNanos = periodNanos;
        }

        @Override
        public void run() {
            if (periodNanos == 0) {
                if (setUncancellable()) {
                    try {
                        trySuccess(callable.call());
                    } catch (Throwable t) {
                        tryFailure(t);
                    }
                }
                return;
            }
            if (isDone()) {
                return;
            }
            try {
                callable.call();
            } catch (Throwable t) {
                tryFailure(t);
                return;
            }
            if (isDone() || shuttingDown) {
                return;
            }
            long base = periodNanos > 0 ? deadlineNanos : nanoTime();
            long step = Math.abs(periodNanos);
            deadlineNanos = step > Long.MAX_VALUE - base ? Long.MAX_VALUE : base + step;
            synchronized (scheduled) {
                scheduled.add(this);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            if (cancelled) {
                synchronized (scheduled) {
                    scheduled.remove(this);
                }
            }
            return cancelled;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(deadlineNanos - nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            if (other == this) {
                return 0;
            }
            if (other instanceof ScheduledTask<?> t) {
                int c = Long.compare(deadlineNanos, t.deadlineNanos);
                return c != 0 ? c : Long.compare(seq, t.seq);
            }
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }

    // ---------------------------------------------------------------- life cycle

    @Override
    public boolean isShuttingDown() {
        return shuttingDown;
    }

    @Override
    public Future<?> shutdownGracefully() {
        return shutdownGracefully(DEFAULT_SHUTDOWN_QUIET_PERIOD_MILLIS, DEFAULT_SHUTDOWN_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Rejects new tasks and terminates at once; queued tasks still run at the next {@link #runPendingTasks()}. */
    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        if (quietPeriod < 0 || timeout < quietPeriod) {
            throw new IllegalArgumentException("need 0 <= quietPeriod <= timeout, got quietPeriod " + quietPeriod
                    + ", timeout " + timeout + " " + unit);
        }
        shuttingDown = true;
        termination.trySuccess(null);
        return termination;
    }

    @Override
    public Future<?> terminationFuture() {
        return termination;
    }

    @Override
    public void shutdown() {
        shutdownGracefully();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdownGracefully();
        List<Runnable> left = new ArrayList<>();
        for (Runnable r; (r = tasks.poll()) != null;) {
            left.add(r);
        }
        synchronized (scheduled) {
            left.addAll(scheduled);
            scheduled.clear();
        }
        return left;
    }

    @Override
    public boolean isShutdown() {
        return shuttingDown;
    }

    @Override
    public boolean isTerminated() {
        return shuttingDown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shuttingDown;
    }

    @Override
    public void close() {
        shutdownGracefully();
    }

    @Override
    public String toString() {
        return "EmbeddedEventLoop(owner " + owner.getName() + ")";
    }
}
