package io.conduit.channel;

import java.net.SocketAddress;

import io.conduit.concurrent.Promise;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Handles or intercepts the events of a {@link ChannelPipeline}.
 *
 * <p>One interface for both directions. <b>Inbound</b> events ({@code channel*}, {@code userEventTriggered},
 * {@code exceptionCaught}) travel from the head of the pipeline (the transport) towards the tail;
 * <b>outbound</b> operations ({@code bind}, {@code connect}, {@code write}, {@code flush}, {@code read},
 * {@code close}, …) travel from the tail towards the head, which performs the I/O. Every method has a
 * default implementation that forwards to the next handler through the context, so a handler overrides only
 * what it cares about.
 *
 * <p>Threading: every method is called on the context's {@link ChannelHandlerContext#executor() executor}
 * — the channel's event loop, or the executor the handler was added with — one call at a time, in event
 * order. A handler instance that is added to more than one pipeline must be thread-safe and say so with
 * {@link Sharable}.
 *
 * <p>Messages are reference counted ({@link io.conduit.buffer.Buffer}): whoever consumes a message instead of
 * forwarding it releases it. Exceptions thrown from inbound methods are passed to
 * {@link #exceptionCaught(ChannelHandlerContext, Throwable)} of the same handler; exceptions thrown from
 * outbound methods fail the operation's promise.
 */
@ConsumerType
public interface ChannelHandler {

    /** Called after the handler was added to a pipeline, before it sees any event. */
    default void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    }

    /** Called after the handler was removed from its pipeline; it sees no event afterwards. */
    default void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
    }

    /** The channel was registered with its event loop. */
    default void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        ctx.fireChannelRegistered();
    }

    /** The channel was deregistered from its event loop. */
    default void channelUnregistered(ChannelHandlerContext ctx) throws Exception {
        ctx.fireChannelUnregistered();
    }

    /** The channel became active (connected, bound). */
    default void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.fireChannelActive();
    }

    /** The channel became inactive (closed or disconnected); fired once, after every pending read was delivered. */
    default void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ctx.fireChannelInactive();
    }

    /** A message was read; the receiver owns it (release it or pass it on). */
    default void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        ctx.fireChannelRead(msg);
    }

    /** The current read operation ended (one or more {@code channelRead} calls came before). */
    default void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        ctx.fireChannelReadComplete();
    }

    /** A user or transport event, e.g. {@link InputShutdownEvent}. Reference-counted events are released by the consumer. */
    default void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        ctx.fireUserEventTriggered(event);
    }

    /** {@link Channel#isWritable()} changed (a water mark was crossed). */
    default void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        ctx.fireChannelWritabilityChanged();
    }

    /** An inbound handler or the transport raised {@code cause}. */
    default void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        ctx.fireExceptionCaught(cause);
    }

    /** Outbound: bind the channel to {@code localAddress}. */
    default void bind(ChannelHandlerContext ctx, SocketAddress localAddress, Promise<Void> promise) throws Exception {
        ctx.bind(localAddress, promise);
    }

    /** Outbound: connect to {@code remoteAddress}, optionally from {@code localAddress} ({@code null} = any). */
    default void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
            Promise<Void> promise) throws Exception {
        ctx.connect(remoteAddress, localAddress, promise);
    }

    /** Outbound: disconnect (datagram channels); closes stream channels. */
    default void disconnect(ChannelHandlerContext ctx, Promise<Void> promise) throws Exception {
        ctx.disconnect(promise);
    }

    /** Outbound: close the channel. */
    default void close(ChannelHandlerContext ctx, Promise<Void> promise) throws Exception {
        ctx.close(promise);
    }

    /** Outbound: ask for more input (needed when {@link ChannelOption#AUTO_READ} is off). */
    default void read(ChannelHandlerContext ctx) throws Exception {
        ctx.read();
    }

    /** Outbound: add {@code msg} to the outbound buffer; it is written at the next flush. */
    default void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) throws Exception {
        ctx.write(msg, promise);
    }

    /** Outbound: write everything added since the last flush. */
    default void flush(ChannelHandlerContext ctx) throws Exception {
        ctx.flush();
    }

    /**
     * Marks a handler whose single instance may be added to several pipelines (it keeps no per-channel state
     * or guards it). Adding an unmarked instance twice fails with {@link IllegalArgumentException}.
     */
    @java.lang.annotation.Documented
    @java.lang.annotation.Inherited
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.TYPE)
    @interface Sharable {
    }
}
