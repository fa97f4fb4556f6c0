package io.conduit.gateway.internal.relay;

import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.gateway.internal.network.Streams;

/**
 * One direction of a stream relay: what its channel reads is written to the {@code peer} channel. A relayed
 * connection has two of them, one on the client side and one on the upstream side, each naming the other channel.
 *
 * <ul>
 *   <li><b>Back-pressure</b>: after a write leaves the peer unwritable (its outbound bytes above the high water mark,
 *       {@code WRITE_BUFFER_WATER_MARK}), this channel stops reading ({@code AUTO_READ} off); when this channel itself
 *       becomes writable again it turns reading of the peer back on. Memory per direction is thereby bounded by about
 *       the high water mark plus one read batch.</li>
 *   <li><b>Half-closure</b>: an end of stream on this channel ({@link InputShutdownEvent}, which needs
 *       {@code ALLOW_HALF_CLOSURE}) is forwarded as a {@code shutdown(SHUT_WR)} of the peer once what was written to
 *       the peer is flushed; a channel whose both directions are shut closes.</li>
 *   <li><b>Close</b>: when this channel closes (reset, error, or both directions done) the peer is closed after its
 *       pending writes are flushed, or after 30 s if they are not; meanwhile the peer is read again and what it sends
 *       is dropped.</li>
 * </ul>
 *
 * <p>Both channels of a relayed connection run on one event loop (the relay connects upstream with the client
 * channel's loop), so the handlers need no synchronisation. Not sharable.
 */
public final class RelayHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    /** The other channel of the connection; writes go there. Final, set at construction. */
    private final Channel peer;

    /** @param peer the channel this handler's channel relays to */
    public RelayHandler(Channel peer) {
        this.peer = java.util.Objects.requireNonNull(peer, "peer");
    }

    /** @return the channel this handler writes to */
    public Channel peer() {
        return peer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!peer.isActive()) {
            ReferenceCounted.safeRelease(msg);
            return;
        }
        peer.write(msg);
        if (!peer.isWritable()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        peer.flush();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && peer.isOpen()) {
            Streams.resumeReading(peer);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof InputShutdownEvent) {
            Streams.shutdownOutputAfterFlush(peer);
            Streams.closeIfShutdown(ctx.channel());
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Streams.closeAfterFlush(peer);
        if (peer.isOpen()) {
            // the peer's input has nowhere to go now (channelRead drops it): read it, or a peer that waits for us to
            // take its output before it takes ours would keep both directions stuck
            Streams.resumeReading(peer);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "relay: closing " + ctx.channel() + " and " + peer + " after "
                + cause);
        ctx.close();
    }
}
