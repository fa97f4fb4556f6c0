package io.conduit.gateway.internal.echo;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.gateway.internal.network.Streams;

/**
 * Echoes what a stream (TCP, Unix) or datagram (UDP) channel reads back to its sender.
 *
 * <ul>
 *   <li>Streams: every buffer read is written back, flushed at the end of each read batch. Back-pressure: when the
 *       channel turns unwritable (its outbound bytes above the high water mark) reading stops, and resumes when it
 *       is writable again, so one connection holds at most about a high water mark plus one read batch. On an end of
 *       stream ({@link InputShutdownEvent}, with {@code ALLOW_HALF_CLOSURE}) the echo is flushed, the output is shut
 *       down, and the channel closes.</li>
 *   <li>Datagrams: each {@link DatagramPacket} is sent back to its sender, unchanged (empty datagrams too).</li>
 * </ul>
 *
 * <p>Sharable: it keeps no per-connection state (the state is the channel's writability and auto-read). Called on
 * the channel's event loop.
 */
@ChannelHandler.Sharable
public final class EchoHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof DatagramPacket p) {
            if (p.sender() == null) {
                p.close();
                return;
            }
            ctx.write(new DatagramPacket(p.content(), p.sender()));
        } else {
            ctx.write(msg);
        }
        if (!ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            Streams.resumeReading(ctx.channel());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof InputShutdownEvent) {
            Streams.shutdownOutputAfterFlush(ctx.channel());
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "echo: closing " + ctx.channel() + " after " + cause);
        if (ctx.channel() instanceof DuplexChannel) {
            ctx.close(); // a stream connection; a datagram listener stays open (e.g. after ICMP port unreachable)
        }
    }
}
