package io.conduit.internal.concurrent;

import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.concurrent.ScheduledFuture;

/**
 * A task scheduled on a {@link SingleThreadEventExecutor}.
 *
 * <p>Time: the deadline is a {@link System#nanoTime()} value computed with saturating arithmetic, so any delay
 * up to {@code Long.MAX_VALUE} of any {@link TimeUnit} is accepted; a deadline of {@code Long.MAX_VALUE} is
 * never due. Deadlines are compared as values, not as differences (which would overflow for such tasks);
 * this assumes, as every JVM's monotonic clock provides, that {@code nanoTime()} does not wrap while the
 * process runs.
 *
 * <p>Repetition: {@code periodNanos == 0} runs once; {@code > 0} fixed rate (next deadline = previous
 * deadline + period); {@code < 0} fixed delay (next deadline = end of the run + |period|). A periodic task's
 * promise only completes when it is cancelled or the task throws.
 *
 * <p>Threading: the deadline and {@link #queueIndex} are changed only on the executor's thread; the deadline
 * is volatile because {@link #getDelay} may be called from any thread. Cancelling from any thread removes the
 * task from the executor's scheduled-task queue (directly on the loop, through the task queue otherwise).
 *
 * @param <V> the result type
 */
public final class ScheduledFutureTask<V> extends PromiseTask<V> implements ScheduledFuture<V> {

    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final SingleThreadEventExecutor scheduler;
    private final long periodNanos;
    /** Tie-breaker so that tasks with equal deadlines run in scheduling order. */
    private final long sequence = SEQUENCE.getAndIncrement();
    private volatile long deadlineNanos;        // written on the loop thread only (after construction)
    int queueIndex = -1;                        // loop thread only; index in ScheduledTaskQueue, -1 = not queued

    ScheduledFutureTask(SingleThreadEventExecutor scheduler, Callable<V> task, long deadlineNanos, long periodNanos) {
        super(scheduler, task);
        this.scheduler = scheduler;
        this.deadlineNanos = deadlineNanos;
        this.periodNanos = periodNanos;
    }

    /** @return {@code a + b}, or {@code Long.MAX_VALUE}/{@code Long.MIN_VALUE} instead of overflowing */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** @return {@code a - b}, saturated instead of overflowing */
    public static long saturatedSub(long a, long b) {
        long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /**
     * @param delay any value; negative means now
     * @return the {@code nanoTime()} deadline {@code delay} from {@code nowNanos}, {@code Long.MAX_VALUE} when that
     *         is beyond the representable range
     */
    public static long deadlineNanos(long nowNanos, long delay, TimeUnit unit) {
        long delayNanos = Math.max(0, unit.toNanos(delay)); // toNanos saturates at Long.MAX_VALUE
        return saturatedAdd(nowNanos, delayNanos);
    }

    /** @return the {@link System#nanoTime()} deadline; {@code Long.MAX_VALUE} = never due */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** @return the period: 0 once, {@code > 0} fixed rate, {@code < 0} fixed delay */
    long periodNanos() {
        return periodNanos;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        long delay = Math.max(0, saturatedSub(deadlineNanos, System.nanoTime()));
        return unit.convert(delay, TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
        if (o == this) {
            return 0;
        }
        if (o instanceof ScheduledFutureTask<?> other) {
            int c = Long.compare(deadlineNanos, other.deadlineNanos);
            return c != 0 ? c : Long.compare(sequence, other.sequence);
        }
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public void run() {
        if (periodNanos == 0) {
            super.run();
            return;
        }
        if (isDone()) {
            return; // cancelled
        }
        try {
            task.call();
        } catch (Throwable t) {
            tryFailure(t);
            return;
        }
        if (isDone() || scheduler.isShutdown()) {
            return;
        }
        deadlineNanos = periodNanos > 0
                ? saturatedAdd(deadlineNanos, periodNanos)
                : saturatedAdd(System.nanoTime(), -periodNanos);
        scheduler.addScheduledOnLoop(this);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            scheduler.removeScheduled(this);
        }
        return cancelled;
    }

    /** Cancels without touching the queue; used when the executor clears its queue itself. */
    void cancelWithoutRemove() {
        super.cancel(false);
    }

    @Override
    public String toString() {
        return super.toString() + "(deadlineNanos: " + deadlineNanos + ", periodNanos: " + periodNanos + ")";
    }
}
