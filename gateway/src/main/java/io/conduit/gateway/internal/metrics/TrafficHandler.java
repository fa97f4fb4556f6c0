package io.conduit.gateway.internal.metrics;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;

/**
 * Counts one stream connection (TCP, Unix) into its endpoint's {@link EndpointCounters}: the bytes of every
 * {@link Buffer} read, the bytes of every {@link Buffer} written (handed to the channel, counted when written, whether
 * or not the peer reads them), and, on the client side, the connection itself while it is active. Put it first in the
 * pipeline, so it sees every byte the socket delivers and every byte other handlers write.
 *
 * <p>Bytes a relay moves inside the kernel ({@code zeroCopy}) never pass a pipeline and are not counted.
 *
 * <p>One instance per connection, not sharable; runs on the channel's event loop and counts into that loop's
 * {@link EndpointCounters.Cell}.
 */
public final class TrafficHandler implements ChannelHandler {

    private final EndpointCounters counters;
    private final EndpointCounters.Side side;
    private final boolean countsConnection;
    /** The cell of this channel's loop, found on the first event; loop-confined. */
    private EndpointCounters.Cell cell;
    /** This connection was counted as opened and not yet as closed; loop-confined. */
    private boolean open;

    private TrafficHandler(EndpointCounters counters, EndpointCounters.Side side, boolean countsConnection) {
        this.counters = counters;
        this.side = side;
        this.countsConnection = countsConnection;
    }

    /** @return a counter for an accepted client connection: the connection and its bytes each way */
    public static TrafficHandler client(EndpointCounters counters) {
        return new TrafficHandler(counters, EndpointCounters.Side.CLIENT, true);
    }

    /** @return a counter for a relay's upstream connection: its bytes each way */
    public static TrafficHandler upstream(EndpointCounters counters) {
        return new TrafficHandler(counters, EndpointCounters.Side.UPSTREAM, false);
    }

    private EndpointCounters.Cell cell(ChannelHandlerContext ctx) {
        EndpointCounters.Cell c = cell;
        if (c == null) {
            c = counters.cell(ctx.executor());
            cell = c;
        }
        return c;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (countsConnection && ctx.channel().isActive()) {
            opened(ctx); // added after the channel became active: no channelActive follows
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (countsConnection && !open) {
            opened(ctx);
        }
        ctx.fireChannelActive();
    }

    private void opened(ChannelHandlerContext ctx) {
        open = true;
        cell(ctx).connectionOpened();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed(ctx);
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        closed(ctx);
    }

    private void closed(ChannelHandlerContext ctx) {
        if (open) {
            open = false;
            cell(ctx).connectionClosed();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Buffer b) {
            cell(ctx).received(side, b.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
        if (msg instanceof Buffer b) {
            cell(ctx).sent(side, b.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
