package io.conduit.concurrent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A group of {@link EventLoop}s. Transports create them ({@code Transport.newEventLoopGroup}); each channel
 * is registered with one loop of a group for its whole life.
 */
@ProviderType
public interface EventLoopGroup extends EventExecutorGroup {
    @Override
    EventLoop next();
}
