package io.conduit.channel;

import java.net.SocketAddress;

import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Outbound operations shared by {@link Channel} (starts at the pipeline's tail), {@link ChannelPipeline}
 * (tail) and {@link ChannelHandlerContext} (the handler before the context).
 *
 * <p>All methods may be called from any thread; the operation runs on the executor of the handler that
 * receives it. Each returns (or completes) a promise that fails with the I/O error, a
 * {@link ChannelClosedException} when the channel is closed, or a cancellation; it never stays pending
 * forever once the channel has closed.
 *
 * <p>Cancellation (any thread, any time): a promise cancelled before its operation reached the channel stops
 * the operation quietly on its way (a message is released). The channel makes the promise of a bind,
 * disconnect or close uncancellable when it starts the operation, so {@code cancel} returning {@code true}
 * means that operation did not and will not happen; once {@code cancel} returns {@code false} the promise
 * reports the outcome. A connect differs: cancelling a pending connect of a stream channel closes the channel,
 * whether the connect was still on its way through the pipeline or pending at the socket (a half-made
 * connection cannot be taken back), and the close names the cancel as its reason. A write cancelled after it
 * reached the channel's outbound buffer is still written (its bytes are part of the stream).
 */
@ProviderType
public interface ChannelOutboundInvoker {

    Future<Void> bind(SocketAddress localAddress);

    Future<Void> connect(SocketAddress remoteAddress);

    Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress);

    Future<Void> disconnect();

    Future<Void> close();

    Future<Void> bind(SocketAddress localAddress, Promise<Void> promise);

    Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise);

    Future<Void> disconnect(Promise<Void> promise);

    Future<Void> close(Promise<Void> promise);

    /** Requests input once; see {@link ChannelHandler#read(ChannelHandlerContext)}. */
    ChannelOutboundInvoker read();

    /** Queues {@code msg}; the future completes when it was written to the socket at a later flush, or fails. */
    Future<Void> write(Object msg);

    Future<Void> write(Object msg, Promise<Void> promise);

    ChannelOutboundInvoker flush();

    Future<Void> writeAndFlush(Object msg);

    Future<Void> writeAndFlush(Object msg, Promise<Void> promise);

    /** @return a new promise for this channel's operations (listeners run on the channel's event loop) */
    Promise<Void> newPromise();
}
