package io.conduit.internal.channel;

import java.net.SocketAddress;

import io.conduit.concurrent.Promise;

/**
 * What the head of a pipeline calls to perform outbound operations: the boundary between the pipeline and
 * the channel core (or an embedded channel). Every method is called on the channel's event loop; each must
 * complete its promise (or, for {@link #read()} and {@link #flush()}, report failures through the pipeline)
 * and never leave a promise pending once the channel has closed.
 */
public interface ChannelIoOperations {

    void bind(SocketAddress localAddress, Promise<Void> promise);

    void connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise);

    /**
     * A connect with {@code promise} entered the pipeline ({@code ChannelPipeline.connect},
     * {@code ChannelHandlerContext.connect} or {@code Channel.connect}); called on the entering thread (any
     * thread), before the connect travels towards the head, also when {@code promise} is already cancelled, and
     * once per entry (a handler passing the same promise on calls it again). A cancel may stop the connect on its
     * way, before {@link #connect} is ever called: this is where a channel that closes on a cancelled connect
     * starts watching the promise. Default: nothing.
     */
    default void connectEntered(Promise<Void> promise) {
    }

    void disconnect(Promise<Void> promise);

    void close(Promise<Void> promise);

    /** Begins a read operation when none is pending; no effect on a closed channel. */
    void read();

    /** Adds {@code msg} to the outbound buffer, or fails the promise and releases {@code msg}. */
    void write(Object msg, Promise<Void> promise);

    /** Writes what was added before this call. */
    void flush();
}
