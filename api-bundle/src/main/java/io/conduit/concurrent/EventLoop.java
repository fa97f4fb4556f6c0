package io.conduit.concurrent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An {@link EventExecutor} that also performs the I/O of the channels registered with it. All I/O events
 * and pipeline events of such a channel run on this loop's thread (unless a handler was added with an
 * executor of its own).
 */
@ProviderType
public interface EventLoop extends EventExecutor, EventLoopGroup {
    @Override
    default EventLoop next() {
        return this;
    }

    @Override
    EventLoopGroup parent();
}
