package io.conduit.gateway.internal.relay;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.handler.logging.RateLimitedLog;
import io.conduit.handler.ssl.ClientHello;

/**
 * SNI routing without termination ({@code sni.routes}): holds a client's first bytes until they hold its TLS
 * ClientHello, reads the server name from it ({@link ClientHello}), fires a {@link Route} with the upstream of that
 * name (or the relay's {@code upstream} when the name is not listed, the client sends none, or the bytes are not TLS),
 * then passes the bytes on unchanged and leaves the pipeline. The {@link RelayFrontendHandler} after it connects on
 * the {@link Route} and forwards the held bytes first.
 *
 * <p>Memory per connection is bounded by one TLS record ({@link ClientHello#MAX_RECORD_BYTES}). A client that sends
 * no complete first record within the timeout, or ends its stream before, is closed and counted in one rate-limited
 * line. Not sharable; runs on the channel's event loop.
 */
public final class SniRouteHandler implements ChannelHandler {

    /** How long a client has to send its first TLS record, in milliseconds. */
    static final long CLIENT_HELLO_TIMEOUT_MILLIS = 10_000;

    /**
     * The user event that tells where a connection goes.
     *
     * @param serverName the server name of the ClientHello, or {@code null} when it carried none
     * @param upstream   the upstream to connect to
     */
    public record Route(String serverName, GatewayUri upstream) {
    }

    private final Map<String, GatewayUri> routes;
    private final GatewayUri otherwise;
    /** Clients closed before a route was chosen; shared by the relay's connections. */
    private final RateLimitedLog closedLog;
    /** The bytes held so far (write mode); loop-confined. */
    private ByteBuffer held = ByteBuffer.allocate(512);
    /** The timeout of the first record; loop-confined. */
    private ScheduledFuture<?> timeout;

    /**
     * @param routes    upstreams by lower-case server name
     * @param otherwise the upstream of every other connection
     * @param closedLog where clients closed before routing are counted
     */
    public SniRouteHandler(Map<String, GatewayUri> routes, GatewayUri otherwise, RateLimitedLog closedLog) {
        this.routes = routes;
        this.otherwise = otherwise;
        this.closedLog = closedLog;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        timeout = ctx.executor().schedule(() -> giveUp(ctx, "sent no complete TLS ClientHello within "
                + CLIENT_HELLO_TIMEOUT_MILLIS + " ms"), CLIENT_HELLO_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Buffer in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            int n = in.readableBytes();
            if (held.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(held.position() + n, held.capacity() * 2));
                held.flip();
                bigger.put(held);
                held = bigger;
            }
            for (ByteBuffer part : in.nioBuffers(in.readerIndex(), n)) {
                held.put(part);
            }
        } finally {
            in.release();
        }
        String name = ClientHello.serverName(held.duplicate().flip());
        if (name == ClientHello.NEED_MORE) {
            if (held.position() >= ClientHello.MAX_RECORD_BYTES) {
                name = null; // cannot happen for a record header's length; never hold more
            } else {
                return;
            }
        }
        route(ctx, new Route(name, upstreamFor(name)));
    }

    /**
     * @param name the ClientHello's server name in lower case; null without one
     * @return the route of the exact name, else of {@code *.} and the name's domain (one label: {@code *.example}
     *         takes {@code a.example}, not {@code a.b.example}), else the relay's {@code upstream}
     */
    GatewayUri upstreamFor(String name) {
        if (name == null) {
            return otherwise;
        }
        GatewayUri to = routes.get(name);
        int dot = name.indexOf('.');
        if (to == null && dot > 0) {
            to = routes.get("*" + name.substring(dot));
        }
        return to != null ? to : otherwise;
    }

    private void route(ChannelHandlerContext ctx, Route route) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        ctx.fireUserEventTriggered(route);
        held.flip();
        Buffer bytes = ctx.alloc().buffer(Math.max(1, held.remaining()));
        bytes.writeBytes(held);
        held = null;
        ctx.fireChannelRead(bytes);
        ctx.fireChannelReadComplete();
        ctx.pipeline().remove(this);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof InputShutdownEvent && held != null) {
            giveUp(ctx, "ended its stream before a complete TLS ClientHello");
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    private void giveUp(ChannelHandlerContext ctx, String what) {
        if (!ctx.channel().isOpen()) {
            return;
        }
        String client = RelayFrontendHandler.describeClient(ctx.channel());
        closedLog.occurred(() -> "SNI routing on " + ctx.channel().localAddress() + ": client " + client + " " + what
                + "; closed it");
        ctx.close();
    }
}
