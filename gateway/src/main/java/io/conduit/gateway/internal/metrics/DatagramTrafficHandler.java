package io.conduit.gateway.internal.metrics;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.Promise;

/**
 * Counts the datagrams of a UDP endpoint's channel into its {@link EndpointCounters}: each {@link DatagramPacket} read
 * (from a client) and written (to a client), with its payload bytes. Put it first in the pipeline.
 *
 * <p>Sharable: a UDP endpoint has one channel per transport, two at once during a swap, each on its own loop. Each
 * event counts into the cell of the loop it runs on (one concurrent map lookup per datagram).
 */
@ChannelHandler.Sharable
public final class DatagramTrafficHandler implements ChannelHandler {

    private final EndpointCounters counters;

    /** @param counters the endpoint's counters */
    public DatagramTrafficHandler(EndpointCounters counters) {
        this.counters = counters;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof DatagramPacket p) {
            counters.cell(ctx.executor()).datagramReceived(p.content().readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
        if (msg instanceof DatagramPacket p) {
            counters.cell(ctx.executor()).datagramSent(p.content().readableBytes());
        }
        ctx.write(msg, promise);
    }
}
