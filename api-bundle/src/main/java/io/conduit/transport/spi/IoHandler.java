package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The poller of one I/O event loop: {@code epoll_wait}, {@code kevent}, or a {@link java.nio.channels.Selector}.
 * Transports implement it; the shared event loop ({@link IoEventLoopGroup}) drives it.
 *
 * <p>Threading: every method except {@link #wakeup()} is called only on the loop's own thread.
 * {@link #wakeup()} may be called from any thread at any time, also concurrently with {@link #run}.
 */
@ConsumerType
public interface IoHandler {

    /**
     * Waits for I/O when {@link IoHandlerContext#canBlock()} allows it, at most until the context's
     * deadline (or until {@link #wakeup()}), then handles every ready event. Loop thread only.
     *
     * @return the number of I/O events handled
     */
    int run(IoHandlerContext context);

    /**
     * Makes a blocked or the next {@link #run} return promptly. Any thread; cheap when no one is blocked.
     */
    void wakeup();

    /** The loop is shutting down: close the channels still registered. Loop thread only; may be called more than once. */
    void prepareToDestroy();

    /** Frees the poller's resources (descriptors, native memory). Loop thread only; called once, last. */
    void destroy();
}
