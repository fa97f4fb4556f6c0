package io.conduit.concurrent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An executor that runs every task on one thread at a time, in submission order (scheduled tasks in
 * deadline order). It is its own one-element {@link EventExecutorGroup}.
 */
@ProviderType
public interface EventExecutor extends EventExecutorGroup {

    /** @return {@code true} when the calling thread is this executor's thread */
    boolean inEventLoop();

    /**
     * The clock that this executor's scheduled delays are measured on, for handlers that compare times with
     * their own scheduled tasks (idle and write timeouts, rate limits). Values are nanoseconds from an arbitrary
     * origin; compare two values only by their difference, as with {@link System#nanoTime()}. May be called
     * from any thread.
     *
     * @return now in nanoseconds; {@link System#nanoTime()} unless the executor keeps its own clock (a test
     *         loop such as {@link io.conduit.channel.embedded.EmbeddedEventLoop} does)
     */
    default long nanoTime() {
        return System.nanoTime();
    }

    /** @return {@code true} when {@code thread} is this executor's thread */
    boolean inEventLoop(Thread thread);

    /** @return the group this executor belongs to (itself when it has none) */
    EventExecutorGroup parent();

    /** @return a new pending promise whose listeners run on this executor */
    <V> Promise<V> newPromise();

    /** @return a future already succeeded with {@code result} */
    <V> Future<V> newSucceededFuture(V result);

    /** @return a future already failed with {@code cause} */
    <V> Future<V> newFailedFuture(Throwable cause);

    @Override
    default EventExecutor next() {
        return this;
    }
}
