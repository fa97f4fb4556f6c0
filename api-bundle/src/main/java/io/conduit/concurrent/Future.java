package io.conduit.concurrent;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The result of an asynchronous operation, with listeners.
 *
 * <p>A future is either pending or done; once done it is exactly one of succeeded, failed or cancelled and
 * never changes again. Listeners added before completion are notified once, in the order they were added,
 * on the future's {@linkplain #executor() executor}; listeners added after completion are notified at once
 * (on the executor when called from outside it). Listener exceptions are logged, never propagated.
 *
 * <p>Threading: every method may be called from any thread. The blocking methods ({@link #sync()},
 * {@link #await(long, TimeUnit)}, {@link #get()}) throw {@link BlockingOperationException} when called from
 * the executor's own thread, because that thread is the one that would complete the future.
 *
 * @param <V> the result type
 */
@ProviderType
public interface Future<V> extends java.util.concurrent.Future<V> {

    /** @return {@code true} when the operation completed successfully */
    boolean isSuccess();

    /** @return the failure of a failed or cancelled future ({@link java.util.concurrent.CancellationException}), else {@code null} */
    Throwable cause();

    /** @return the result of a succeeded future, else {@code null}; never blocks */
    V getNow();

    /** @return {@code true} when {@link #cancel(boolean)} can still succeed */
    boolean isCancellable();

    /**
     * Adds a listener that is notified once when this future is done.
     *
     * @param listener not {@code null}
     * @return this future
     */
    Future<V> addListener(FutureListener<? super V> listener);

    /**
     * Removes a listener added with {@link #addListener(FutureListener)}; no effect if it was not added or
     * has already been notified.
     *
     * @return this future
     */
    Future<V> removeListener(FutureListener<? super V> listener);

    /**
     * Waits until done and rethrows the failure, unchecked, if the future failed.
     *
     * @return this future
     * @throws InterruptedException when interrupted while waiting
     * @throws BlockingOperationException when called on the executor's own thread
     */
    Future<V> sync() throws InterruptedException;

    /**
     * Waits until done or until the timeout elapses.
     *
     * @return {@code true} when the future is done
     * @throws InterruptedException when interrupted while waiting
     * @throws BlockingOperationException when called on the executor's own thread
     */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /** Waits without limit until done; the same errors as {@link #await(long, TimeUnit)}. */
    Future<V> await() throws InterruptedException;

    /**
     * A {@link CompletionStage} view that completes when this future does: normally with the result, or
     * exceptionally with the cause (a {@link java.util.concurrent.CancellationException} when cancelled).
     * Dependent stages run on the future's {@linkplain #executor() executor} (on the completing thread when it has
     * none) unless an async variant is used. The stage cannot be completed by its users; cancelling it cancels
     * this future.
     */
    CompletionStage<V> toCompletionStage();

    /** @return the executor that notifies listeners, or {@code null} when listeners run on the completing thread */
    EventExecutor executor();
}
