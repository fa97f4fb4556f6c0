package io.conduit.gateway.internal;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.Future;
import io.conduit.handler.logging.RateLimitedLog;

/**
 * The first handler of an accepted client connection of a stream relay: connects to the upstream on the client's
 * event loop, then puts a {@link RelayHandler} on each side and starts reading both.
 *
 * <p>What the client sends while the upstream connect is pending is kept here and written upstream first, in order;
 * once it exceeds {@code write.buffer.high} bytes, reading of the client pauses until the upstream is there, so
 * the memory bound holds. (The channel is not accepted with {@code AUTO_READ} off: the nio core then holds early
 * input itself, and with it about a third of relayed connections never read again after the first delivery —
 * see the report of the gateway branch.) When the connect fails or times out ({@code connect.timeout.ms}) the client
 * is closed and the relay's {@link RateLimitedLog} counts it (the first such client gets a line at once); so it does
 * when the connect cannot even start (the client's transport went away during a swap).
 * When the client goes away while connecting, the connect is cancelled. With {@code zeroCopy=true}, each direction
 * whose channels allow it is then forwarded inside the kernel ({@link ZeroCopyForwarding}). Not sharable (one per
 * connection).
 */
public final class RelayFrontendHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");
    /** Directions of relayed connections that were handed to zero-copy forwarding (test hook). */
    static final AtomicLong ZERO_COPY_DIRECTIONS = new AtomicLong();

    private final RelayConfig config;
    private final Network network;
    /** The relay's log of clients closed because the upstream was unreachable; shared by its connections. */
    private final RateLimitedLog unreachable;
    /** The pending upstream connect; loop-confined. */
    private Future<Channel> connecting;
    /** Client input that arrived before the upstream was connected; loop-confined. */
    private final ArrayDeque<Object> early = new ArrayDeque<>();
    /** Bytes in {@link #early}; loop-confined. */
    private long earlyBytes;
    /** The client half-closed before the upstream was connected; loop-confined. */
    private boolean earlyEndOfInput;

    /**
     * @param config  the relay's configuration
     * @param network where the upstream channel comes from
     */
    RelayFrontendHandler(RelayConfig config, Network network) {
        this(config, network, unreachableLog());
    }

    /**
     * @param config      the relay's configuration
     * @param network     where the upstream channel comes from
     * @param unreachable the relay's {@link #unreachableLog()}, shared by all its connections
     */
    RelayFrontendHandler(RelayConfig config, Network network, RateLimitedLog unreachable) {
        this.config = config;
        this.network = network;
        this.unreachable = unreachable;
    }

    /**
     * @return a new log for the clients one relay closes because its upstream was unreachable: INFO, the first at
     *         once, then a count at most every {@value RateLimitedLog#DEFAULT_INTERVAL_SECONDS} s (a refusing upstream
     *         once wrote a line per client)
     */
    static RateLimitedLog unreachableLog() {
        return new RateLimitedLog(LOG, System.Logger.Level.INFO);
    }

    /** @return options of both sides of a relayed connection: half-closure, water marks, connect timeout */
    static Map<ChannelOption<?>, Object> connectionOptions(RelayConfig config) {
        Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
        options.put(ChannelOption.ALLOW_HALF_CLOSURE, Boolean.TRUE);
        options.put(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(config.writeBufferLowBytes(), config.writeBufferHighBytes()));
        return options;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Channel client = ctx.channel();
        Map<ChannelOption<?>, Object> options = connectionOptions(config);
        options.put(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.connectTimeoutMillis());
        Future<Channel> f;
        try {
            f = network.connect(config.upstream(), client.eventLoop(), options, new RelayHandler(client));
        } catch (RuntimeException e) {
            // e.g. the client's transport went away during a swap: counted with the unreachable upstreams, so a burst
            // of clients makes one line, not one each
            String who = describeClient(client);
            unreachable.occurred(() -> "relay " + config.name() + ": cannot connect to " + config.upstream() + ": "
                    + e.getMessage() + "; closed client " + who);
            client.close();
            return;
        }
        connecting = f;
        f.addListener(done -> {
            connecting = null;
            if (done.isSuccess()) {
                Channel upstream = done.getNow();
                if (!client.isActive()) {
                    upstream.close();
                    return;
                }
                Object m;
                while ((m = early.poll()) != null) {
                    upstream.write(m);
                }
                earlyBytes = 0;
                upstream.flush();
                ctx.pipeline().replace(ctx.name(), "relay", new RelayHandler(upstream));
                if (earlyEndOfInput) {
                    Streams.shutdownOutputAfterFlush(upstream);
                }
                if (config.zeroCopy()) {
                    if (!earlyEndOfInput) {
                        forwardZeroCopy(client, upstream);
                    }
                    forwardZeroCopy(upstream, client);
                }
                if (!client.config().isAutoRead() && upstream.isWritable()) {
                    Streams.resumeReading(client);
                }
            } else if (!done.isCancelled()) {
                String who = describeClient(client);
                Throwable cause = done.cause();
                unreachable.occurred(() -> "relay " + config.name() + ": upstream " + config.upstream()
                        + " unreachable (" + cause + "); closed client " + who);
                client.close();
            }
        });
        ctx.fireChannelActive();
    }

    /**
     * @return the client for a log line: its address ({@code /127.0.0.1:40312}, a socket file path, an abstract
     *         name); a Unix client whose socket has no name (the usual case: clients rarely bind) is
     *         {@code an unnamed Unix socket (pid 4242, uid 1000)}, with the peer's credentials where the transport
     *         reads them ({@code SO_PEERCRED}), else with the connection's channel id
     */
    static String describeClient(Channel client) {
        java.net.SocketAddress remote = client.remoteAddress();
        boolean unnamed = remote instanceof java.net.UnixDomainSocketAddress u && u.getPath().toString().isEmpty();
        if (remote != null && !unnamed) {
            return remote.toString();
        }
        String what = unnamed ? "an unnamed Unix socket" : "(address unknown)";
        if (client instanceof io.conduit.channel.DomainSocketChannel d) {
            try {
                io.conduit.channel.PeerCredentials c = d.peerCredentials();
                return what + " (pid " + c.pid() + ", uid " + c.uid() + ")";
            } catch (RuntimeException noCredentials) {
                // the transport cannot read them (nio), or the channel closed meanwhile
            }
        }
        return what + " (connection " + client.id() + ")";
    }

    /**
     * Starts kernel-side forwarding from {@code from} to {@code to} when both channels allow it; otherwise the
     * {@link RelayHandler} keeps copying (other transports, Unix sockets, mixed transports). End of stream still
     * reaches the {@link RelayHandler} (as an {@link InputShutdownEvent}), which half-closes the other side.
     */
    private void forwardZeroCopy(Channel from, Channel to) {
        if (from instanceof ZeroCopyForwarding z && z.canForwardTo(to)) {
            ZERO_COPY_DIRECTIONS.incrementAndGet();
            z.forwardTo(to).addListener(f -> {
                if (!f.isSuccess()) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": zero-copy forwarding "
                            + from + " -> " + to + " ended: " + f.cause());
                }
            });
        } else {
            LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": " + from + " -> " + to
                    + " copies (the transport cannot splice this pair)");
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        early.add(msg);
        if (msg instanceof Buffer b) {
            earlyBytes += b.readableBytes();
        }
        if (earlyBytes > config.writeBufferHighBytes()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof InputShutdownEvent) {
            earlyEndOfInput = true; // forwarded once the upstream is there
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Object m;
        while ((m = early.poll()) != null) {
            ReferenceCounted.safeRelease(m);
        }
        Future<Channel> f = connecting;
        if (f != null) {
            connecting = null;
            f.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": closing " + ctx.channel() + " after "
                + cause);
        ctx.close();
    }
}
