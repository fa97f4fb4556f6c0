package io.conduit.transport;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;

/**
 * What {@link ManagedServer} and {@link ManagedDatagramEndpoint} answer alike, over their {@link SwapEngine}. Not
 * public: its public methods are documented and called as members of the two public classes.
 */
abstract class ManagedEndpoint {

    /** @return the endpoint's swap engine */
    abstract SwapEngine<?> engine();

    /**
     * @return the name of the transport the listener or socket runs on now, or {@code null} (not started, closed,
     *         none)
     */
    public String transportName() {
        return engine().transportName();
    }

    /**
     * @return the transport the listener or socket runs on now (the instance {@link Transports#selected()} returned
     *         when it was bound), or {@code null} (not started, closed, none)
     */
    public Transport transport() {
        return engine().transport();
    }

    /**
     * The transport of one of this endpoint's event loops, so a handler can make further channels (e.g. an upstream
     * connection of a relay) on the loop of the channel it serves, with the matching transport. It names the
     * transport of every channel for its whole life, also of one accepted while a swap is under way.
     *
     * @param loop an event loop, typically {@code ctx.channel().eventLoop()}
     * @return the transport whose group (made by this endpoint) holds {@code loop}, or {@code null} when none does
     *         (not one of this endpoint's loops, or its group was shut down already)
     */
    public Transport transportOf(EventLoop loop) {
        SwapGeneration g = engine().generationOf(loop);
        return g == null ? null : g.transport;
    }

    /** @return succeeds once {@code close()} finished (every group terminated) */
    public Future<Void> closeFuture() {
        return engine().closeFuture();
    }

    @Override
    public String toString() {
        return engine().toString();
    }
}
