package io.conduit.concurrent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A {@link Future} of a task scheduled on an {@link EventExecutor}.
 *
 * @param <V> the result type
 */
@ProviderType
public interface ScheduledFuture<V> extends Future<V>, java.util.concurrent.ScheduledFuture<V> {
}
