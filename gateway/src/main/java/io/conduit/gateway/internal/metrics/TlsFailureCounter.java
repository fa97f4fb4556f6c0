package io.conduit.gateway.internal.metrics;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.handler.ssl.TlsHandshakeCompletionEvent;

/**
 * Counts the failed TLS handshakes of its channels into an endpoint's {@link EndpointCounters}: placed right after the
 * channel's TLS handler, it sees that handler's {@link TlsHandshakeCompletionEvent} and passes every event on.
 * Sharable: it keeps no state of its own; each count goes to the cell of the channel's event loop.
 */
@ChannelHandler.Sharable
public final class TlsFailureCounter implements ChannelHandler {

    private final EndpointCounters counters;
    private final EndpointCounters.Side side;

    /**
     * @param counters the endpoint's counters
     * @param side     {@code CLIENT} after a listener's TLS handler, {@code UPSTREAM} after an upstream's
     */
    public TlsFailureCounter(EndpointCounters counters, EndpointCounters.Side side) {
        this.counters = counters;
        this.side = side;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof TlsHandshakeCompletionEvent e && !e.isSuccess()) {
            counters.cell(ctx.channel().eventLoop()).tlsHandshakeFailed(side);
        }
        ctx.fireUserEventTriggered(event);
    }
}
