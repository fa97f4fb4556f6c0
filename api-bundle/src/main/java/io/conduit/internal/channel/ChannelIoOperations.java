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

    void disconnect(Promise<Void> promise);

    void close(Promise<Void> promise);

    /** Begins a read operation when none is pending; no effect on a closed channel. */
    void read();

    /** Adds {@code msg} to the outbound buffer, or fails the promise and releases {@code msg}. */
    void write(Object msg, Promise<Void> promise);

    /** Writes what was added before this call. */
    void flush();
}
