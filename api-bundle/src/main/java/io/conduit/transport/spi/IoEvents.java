package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Readiness callbacks from a transport's poller to the shared channel core (channels made by
 * {@link io.conduit.transport.spi.core.IoChannels}).
 * The core implements this; an {@link IoSocket} reports to it after {@link IoSocket#register(io.conduit.concurrent.EventLoop, IoEvents)}.
 *
 * <p>Threading: every method is called on the channel's event-loop thread only, and only for interest
 * bits set with {@link IoSocket#interestOps(int)} (a transport may report readiness spuriously; the core
 * tolerates that: a read or write that makes no progress is harmless).
 */
@ProviderType
public interface IoEvents {

    /** Input is ready ({@code EPOLLIN}, {@code OP_READ}/{@code OP_ACCEPT}), or end-of-stream / an error. */
    void readReady();

    /** The socket accepts more output ({@code EPOLLOUT}, {@code OP_WRITE}). */
    void writeReady();

    /** A non-blocking connect finished, successfully or not ({@code OP_CONNECT}); call {@link IoStreamSocket#finishConnect()}. */
    void connectReady();

    /** The loop is shutting down ({@link IoHandler#prepareToDestroy()}): close the channel. */
    void loopShuttingDown();
}
