package io.conduit.internal.channel;

import java.net.SocketAddress;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;

/**
 * The head of every pipeline: performs outbound operations through {@link DefaultChannelPipeline#io}; reads again
 * after active and read-complete when auto-read is on.
 * Its pipeline is {@link HandlerContext#pipeline}: no second reference to the pipeline per channel.
 */
final class HeadContext extends HandlerContext implements ChannelHandler {
    HeadContext(DefaultChannelPipeline pipeline) {
        super(pipeline, null, "head", null, HandlerMasks.ALL);
    }

    @Override
    public ChannelHandler handler() {
        return this;
    }

    private void readIfAutoRead() {
        Channel channel = pipeline.channel;
        if (channel.config().isAutoRead()) {
            channel.read();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        readIfAutoRead();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.fireChannelReadComplete();
        readIfAutoRead();
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, Promise<Void> promise) {
        pipeline.io.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
            Promise<Void> promise) {
        pipeline.io.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, Promise<Void> promise) {
        pipeline.io.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, Promise<Void> promise) {
        pipeline.io.close(promise);
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        pipeline.io.read();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
        pipeline.io.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        pipeline.io.flush();
    }
}
