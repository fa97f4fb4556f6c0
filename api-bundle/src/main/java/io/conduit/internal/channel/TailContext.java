package io.conduit.internal.channel;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;

/** The tail: the end of every inbound event. Keeps no second reference to its pipeline, as {@link HeadContext}. */
final class TailContext extends HandlerContext implements ChannelHandler {
    TailContext(DefaultChannelPipeline pipeline) {
        super(pipeline, null, "tail", null, HandlerMasks.ALL);
    }

    @Override
    public ChannelHandler handler() {
        return this;
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) {
    }

    @Override
    public void channelUnregistered(ChannelHandlerContext ctx) {
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        pipeline.onUnhandledMessage(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        pipeline.onUnhandledUserEvent(event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        pipeline.onUnhandledException(cause);
    }
}
