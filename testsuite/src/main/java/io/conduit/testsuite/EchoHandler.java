package io.conduit.testsuite;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;

/** Writes back what it reads, flushing at the end of each read operation. Sharable. */
@ChannelHandler.Sharable
public final class EchoHandler implements ChannelHandler {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ctx.write(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
