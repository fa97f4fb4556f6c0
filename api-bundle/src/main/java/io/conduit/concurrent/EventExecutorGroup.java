package io.conduit.concurrent;

import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A group of {@link EventExecutor}s with a common life cycle.
 *
 * <p>Scheduling accepts every non-negative delay up to {@code Long.MAX_VALUE} of any unit without overflow:
 * such a deadline is simply never reached. Negative delays mean "now".
 *
 * <p>Shutdown: {@link #shutdownGracefully(long, long, TimeUnit)} lets each executor finish its queue and
 * waits for a quiet period without new tasks (bounded by a timeout) before terminating. {@link #close()} is
 * a graceful shutdown with the default quiet period (2 s) and timeout (15 s) that waits for termination.
 * A task submitted during the quiet period is still accepted, runs, and restarts the quiet period; tasks
 * submitted once an executor has shut down (quiet period over, timeout reached, or {@link #shutdown()} called)
 * are rejected with {@link java.util.concurrent.RejectedExecutionException}. Scheduled tasks that are not yet
 * due are cancelled when the shutdown begins.
 * All methods may be called from any thread.
 */
@ProviderType
public interface EventExecutorGroup extends ScheduledExecutorService, Iterable<EventExecutor>, AutoCloseable {

    /** Default quiet period of {@link #shutdownGracefully()}, in milliseconds. */
    long DEFAULT_SHUTDOWN_QUIET_PERIOD_MILLIS = 2_000;
    /** Default timeout of {@link #shutdownGracefully()}, in milliseconds. */
    long DEFAULT_SHUTDOWN_TIMEOUT_MILLIS = 15_000;

    /** @return the next executor of the group, chosen round-robin */
    EventExecutor next();

    /** @return {@code true} once a shutdown has begun */
    boolean isShuttingDown();

    /** Graceful shutdown with the default quiet period and timeout; returns {@link #terminationFuture()}. */
    Future<?> shutdownGracefully();

    /**
     * Begins a graceful shutdown.
     *
     * @param quietPeriod time without new tasks before terminating; {@code 0} terminates as soon as the queue is empty
     * @param timeout the longest time to wait for a quiet period, after which the executor terminates anyway
     * @param unit the unit of both
     * @return {@link #terminationFuture()}
     * @throws IllegalArgumentException when {@code quietPeriod < 0} or {@code timeout < quietPeriod}
     */
    Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit);

    /** @return a future that succeeds when every executor of the group has terminated */
    Future<?> terminationFuture();

    @Override
    Future<?> submit(Runnable task);

    @Override
    <T> Future<T> submit(Runnable task, T result);

    @Override
    <T> Future<T> submit(Callable<T> task);

    @Override
    ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit);

    @Override
    <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit);

    @Override
    ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit);

    @Override
    ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit);

    /**
     * Shuts down gracefully with the defaults and waits for termination.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    @Override
    void close() throws InterruptedException;
}
