package io.conduit.concurrent;

import java.util.EventListener;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Notified once when a {@link Future} is done.
 *
 * @param <V> the future's result type
 */
@ConsumerType
@FunctionalInterface
public interface FutureListener<V> extends EventListener {
    /**
     * Called once, on the future's executor, when it is done. Exceptions thrown here are logged and dropped
     * from propagation; they do not affect the future or other listeners.
     *
     * @param future the completed future
     */
    void operationComplete(Future<? extends V> future) throws Exception;
}
