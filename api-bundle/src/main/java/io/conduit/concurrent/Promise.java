package io.conduit.concurrent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A writable {@link Future}. The {@code set*} methods throw {@link IllegalStateException} when the promise is
 * already done; the {@code try*} methods return {@code false} instead. Any thread may complete a promise.
 *
 * @param <V> the result type
 */
@ProviderType
public interface Promise<V> extends Future<V> {

    /** @throws IllegalStateException when already done (the message names the current state) */
    Promise<V> setSuccess(V result);

    /** @return {@code true} when this call completed the promise */
    boolean trySuccess(V result);

    /** @throws IllegalStateException when already done */
    Promise<V> setFailure(Throwable cause);

    /** @return {@code true} when this call completed the promise */
    boolean tryFailure(Throwable cause);

    /**
     * Makes the promise impossible to cancel.
     *
     * @return {@code true} when it is now uncancellable and not cancelled; {@code false} when it was already cancelled
     */
    boolean setUncancellable();

    @Override
    Promise<V> addListener(FutureListener<? super V> listener);

    @Override
    Promise<V> removeListener(FutureListener<? super V> listener);

    @Override
    Promise<V> sync() throws InterruptedException;

    @Override
    Promise<V> await() throws InterruptedException;
}
