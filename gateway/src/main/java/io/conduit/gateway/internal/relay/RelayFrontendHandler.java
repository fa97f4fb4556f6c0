package io.conduit.gateway.internal.relay;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.Future;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.metrics.EndpointCounters;
import io.conduit.gateway.internal.metrics.TlsFailureCounter;
import io.conduit.gateway.internal.metrics.TrafficHandler;
import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.network.Streams;
import io.conduit.handler.limit.ByteRateLimitHandler;
import io.conduit.handler.limit.TokenBucket;
import io.conduit.handler.logging.RateLimitedLog;
import io.conduit.handler.proxy.ProxyMessage;
import io.conduit.handler.proxy.ProxyProtocolEncoder;
import io.conduit.handler.ssl.TlsHandshakeCompletionEvent;

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
 * When the client goes away while connecting, the connect is cancelled. With {@code listen = tls://} the connect
 * starts once the client's TLS handshake succeeded, so a client that fails it never reaches the upstream; with
 * {@code upstream = tls://} the upstream channel gets a TLS client handler first. With {@code zeroCopy=true}, each
 * direction whose channels allow it is then forwarded inside the kernel ({@link ZeroCopyForwarding}). The endpoint's
 * {@link EndpointCounters} get each connect's duration or failure, and the upstream channel a {@link TrafficHandler}.
 * Not sharable (one per connection).
 */
public final class RelayFrontendHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");
    /** Directions of relayed connections that were handed to zero-copy forwarding (test hook). */
    static final AtomicLong ZERO_COPY_DIRECTIONS = new AtomicLong();

    private final RelayConfig config;
    private final Network network;
    /** The relay's log of clients closed because the upstream was unreachable; shared by its connections. */
    private final RateLimitedLog unreachable;
    /** The relay's log of failed handshakes with its {@code tls://} upstream; shared by its connections. */
    private final RateLimitedLog upstreamTlsFailures;
    /** The listening endpoint's counters, or {@code null} when nothing counts. */
    private final EndpointCounters counters;
    /** The pending upstream connect; loop-confined. */
    private Future<Channel> connecting;
    /** Client input that arrived before the upstream was connected; loop-confined. */
    private final ArrayDeque<Object> early = new ArrayDeque<>();
    /** Bytes in {@link #early}; loop-confined. */
    private long earlyBytes;
    /** The client half-closed before the upstream was connected; loop-confined. */
    private boolean earlyEndOfInput;
    /** With {@code proxy.protocol.accept}: the client's PROXY header arrived and the connect began; loop-confined. */
    private boolean proxyDecoded;
    /** The upstream connect was started once (with {@code listen = tls://}: after the handshake); loop-confined. */
    private boolean connected;

    /**
     * @param config  the relay's configuration
     * @param network where the upstream channel comes from
     */
    public RelayFrontendHandler(RelayConfig config, Network network) {
        this(config, network, unreachableLog());
    }

    /**
     * @param config      the relay's configuration
     * @param network     where the upstream channel comes from
     * @param unreachable the relay's {@link #unreachableLog()}, shared by all its connections
     */
    public RelayFrontendHandler(RelayConfig config, Network network, RateLimitedLog unreachable) {
        this(config, network, unreachable, null);
    }

    /**
     * @param config      the relay's configuration
     * @param network     where the upstream channel comes from
     * @param unreachable the relay's {@link #unreachableLog()}, shared by all its connections
     * @param counters    the listening endpoint's counters, or {@code null} to count nothing
     */
    public RelayFrontendHandler(RelayConfig config, Network network, RateLimitedLog unreachable,
            EndpointCounters counters) {
        this(config, network, unreachable, counters, upstreamTlsFailureLog());
    }

    /**
     * @param config              the relay's configuration
     * @param network             where the upstream channel comes from
     * @param unreachable         the relay's {@link #unreachableLog()}, shared by all its connections
     * @param counters            the listening endpoint's counters, or {@code null} to count nothing
     * @param upstreamTlsFailures the relay's {@link #upstreamTlsFailureLog()}, shared by all its connections
     */
    public RelayFrontendHandler(RelayConfig config, Network network, RateLimitedLog unreachable,
            EndpointCounters counters, RateLimitedLog upstreamTlsFailures) {
        this.config = config;
        this.network = network;
        this.unreachable = unreachable;
        this.counters = counters;
        this.upstreamTlsFailures = upstreamTlsFailures;
    }

    /**
     * @return a new log for the clients one relay closes because its upstream was unreachable: INFO, the first at
     *         once, then a count at most every {@value RateLimitedLog#DEFAULT_INTERVAL_SECONDS} s (a refusing upstream
     *         once wrote a line per client)
     */
    static RateLimitedLog unreachableLog() {
        return new RateLimitedLog(LOG, System.Logger.Level.INFO);
    }

    /**
     * @return a new log for the failed handshakes of one relay with its {@code tls://} upstream: WARNING (mostly a
     *         configuration to fix: {@code tls.upstream.ca}, {@code tls.upstream.serverName}), the first at once,
     *         then a count at most every {@value RateLimitedLog#DEFAULT_INTERVAL_SECONDS} s
     */
    static RateLimitedLog upstreamTlsFailureLog() {
        return new RateLimitedLog(LOG, System.Logger.Level.WARNING);
    }

    /** @return options of both sides of a relayed connection: half-closure, water marks, connect timeout */
    public static Map<ChannelOption<?>, Object> connectionOptions(RelayConfig config) {
        Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
        options.put(ChannelOption.ALLOW_HALF_CLOSURE, Boolean.TRUE);
        options.put(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(config.writeBufferLowBytes(), config.writeBufferHighBytes()));
        return options;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (config.proxyAccept() == null && !config.listen().tls() && !config.routesBySni()) {
            connect(ctx, config.upstream());
        }
        ctx.fireChannelActive();
    }

    /**
     * Connects upstream; with {@code proxy.protocol.accept} called once the client's PROXY header is decoded, so a
     * client whose header is malformed (the decoder closes it) never reaches the upstream.
     */
    private void connect(ChannelHandlerContext ctx, GatewayUri upstreamUri) {
        connected = true;
        Channel client = ctx.channel();
        Map<ChannelOption<?>, Object> options = connectionOptions(config);
        options.put(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.connectTimeoutMillis());
        Future<Channel> f;
        EndpointCounters.Cell cell = counters == null ? null : counters.cell(client.eventLoop());
        long startNanos = System.nanoTime();
        try {
            f = network.connect(upstreamUri, client.eventLoop(), options, upstreamHandler(config, client,
                    counters, upstreamTlsFailures));
        } catch (RuntimeException e) {
            if (cell != null) {
                cell.connectFailed();
            }
            // e.g. the client's transport went away during a swap: counted with the unreachable upstreams, so a burst
            // of clients makes one line, not one each
            String who = describeClient(client);
            unreachable.occurred(() -> "relay " + config.name() + ": cannot connect to " + upstreamUri + ": "
                    + e.getMessage() + "; closed client " + who);
            client.close();
            return;
        }
        connecting = f;
        f.addListener(done -> {
            connecting = null;
            if (cell != null && !done.isCancelled()) {
                if (done.isSuccess()) {
                    cell.connected(System.nanoTime() - startNanos);
                } else {
                    cell.connectFailed();
                }
            }
            if (done.isSuccess()) {
                Channel upstream = done.getNow();
                if (!client.isActive()) {
                    upstream.close();
                    return;
                }
                if (config.proxySendVersion() != 0) {
                    Buffer header = upstream.alloc().buffer(PROXY_HEADER_CAPACITY);
                    ProxyProtocolEncoder.encode(proxyHeader(config.proxySendVersion(), client), false, header);
                    upstream.write(header);
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
                unreachable.occurred(() -> "relay " + config.name() + ": upstream " + upstreamUri
                        + " unreachable (" + cause + "); closed client " + who);
                client.close();
            }
        });
    }

    /**
     * Writes {@link #tlsUpstreamFailure} to the relay's log when the upstream's handshake fails, except when the relay
     * itself closed the upstream first (its client left during the handshake). Not sharable; runs on the upstream's
     * event loop.
     */
    private static final class UpstreamTlsFailureLog implements ChannelHandler {
        private final RelayConfig config;
        private final Channel client;
        private final RateLimitedLog failures;
        private boolean closedHere;

        UpstreamTlsFailureLog(RelayConfig config, Channel client, RateLimitedLog failures) {
            this.config = config;
            this.client = client;
            this.failures = failures;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof TlsHandshakeCompletionEvent e && !e.isSuccess()
                    && !(closedHere && e.cause() instanceof io.conduit.channel.ChannelClosedException)) {
                String who = describeClient(client);
                failures.occurred(() -> tlsUpstreamFailure(config, e.cause()) + "; closed client " + who);
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        public void close(ChannelHandlerContext ctx, io.conduit.concurrent.Promise<Void> promise) {
            closedHere = true;
            ctx.close(promise);
        }
    }

    /**
     * The line for a failed handshake with a relay's {@code tls://} upstream: the relay's file, the upstream, what
     * failed in plain words and the key that fixes it, e.g. {@code relay relay-a.cfg: TLS handshake failed with
     * upstream tls://10.0.0.5:443: its certificate is not trusted (it does not chain to a trusted CA); set
     * 'tls.upstream.ca' to the CA certificate that signed it}. The kind of failure is read from the cause's type.
     *
     * @param cause why the handshake failed, as the TLS handler's handshake future holds it
     */
    static String tlsUpstreamFailure(RelayConfig config, Throwable cause) {
        String head = "relay " + config.name() + ": TLS handshake failed with upstream " + config.upstream() + ": ";
        boolean certificateRejected = false;
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof java.security.cert.CertPathBuilderException
                    || t instanceof java.security.cert.CertPathValidatorException) {
                return head + "its certificate is not trusted (it does not chain to a trusted CA); set"
                        + " 'tls.upstream.ca' to the CA certificate that signed it";
            }
            if (t instanceof java.security.cert.CertificateExpiredException) {
                return head + "its certificate expired; the upstream must renew it";
            }
            if (t instanceof java.security.cert.CertificateNotYetValidException) {
                return head + "its certificate is not valid yet; check the clocks of both hosts";
            }
            certificateRejected |= t.getClass() == java.security.cert.CertificateException.class;
        }
        if (certificateRejected) {
            // the chain was trusted: what is left to check is the host name (the JDK throws a plain
            // CertificateException for it)
            return head + "its certificate does not name the host name '" + config.tls().upstreamServerName()
                    + "'; set 'tls.upstream.serverName' to a name in the certificate";
        }
        if (cause instanceof io.conduit.channel.ChannelClosedException) {
            return head + "the upstream closed the connection during the handshake; check that it serves TLS on"
                    + " that port, and set 'tls.upstream.cert' and 'tls.upstream.key' if it wants a client"
                    + " certificate";
        }
        if (cause instanceof io.conduit.handler.ssl.TlsHandshakeTimeoutException) {
            return head + cause.getMessage() + "; check that the upstream serves TLS on that port";
        }
        return head + cause.getMessage();
    }

    /** Room for a PROXY header without TLVs: 107 bytes for version 1, 16 + 216 for version 2 with Unix paths. */
    private static final int PROXY_HEADER_CAPACITY = 232;

    /**
     * @return the handler of the upstream channel: the {@link RelayHandler} writing to {@code client}, behind a
     *         {@link ByteRateLimitHandler} with {@code rate.limit.bytes.per.second}
     */
    static ChannelHandler upstreamHandler(RelayConfig config, Channel client) {
        return upstreamHandler(config, client, null, upstreamTlsFailureLog());
    }

    /**
     * @param counters the listening endpoint's counters, or {@code null}
     * @param failures the relay's {@link #upstreamTlsFailureLog()}: a failed handshake with a {@code tls://}
     *                 upstream is one line there, as {@link #tlsUpstreamFailure} words it
     * @return as {@link #upstreamHandler(RelayConfig, Channel)}, behind a {@link TrafficHandler} counting the upstream
     *         bytes into {@code counters}
     */
    static ChannelHandler upstreamHandler(RelayConfig config, Channel client, EndpointCounters counters,
            RateLimitedLog failures) {
        if (config.rateLimitBytesPerSecond() == 0 && counters == null && !config.upstream().tls()) {
            return new RelayHandler(client);
        }
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (counters != null) {
                    ch.pipeline().addLast("traffic", TrafficHandler.upstream(counters));
                }
                if (config.rateLimitBytesPerSecond() > 0) {
                    ch.pipeline().addLast("rate-limit", new ByteRateLimitHandler(new TokenBucket(
                            config.rateLimitBytesPerSecond())));
                }
                if (config.upstream().tls()) {
                    ch.pipeline().addLast("tls", config.tls().upstream().newClientHandler(
                            config.tls().upstreamServerName(), config.upstream().port()));
                    if (counters != null) {
                        ch.pipeline().addLast("tls-failures", new TlsFailureCounter(counters,
                                EndpointCounters.Side.UPSTREAM));
                    }
                    ch.pipeline().addLast("tls-failure-log", new UpstreamTlsFailureLog(config, client, failures));
                }
                ch.pipeline().addLast("relay", new RelayHandler(client));
            }
        };
    }

    /**
     * The PROXY header the relay writes upstream for {@code client}: its source and destination are the addresses
     * the client's own PROXY header named ({@code proxy.protocol.accept}), else the client connection's remote and
     * local addresses. TCP addresses of one family give {@code TCP4}/{@code TCP6}; Unix addresses give a version 2
     * {@code UNIX_STREAM} header; anything else (a Unix client with version 1, mixed families) is {@code UNKNOWN},
     * which tells the upstream to use the connection's own addresses.
     *
     * @param version 1 or 2
     */
    static ProxyMessage proxyHeader(int version, Channel client) {
        ProxyMessage decoded = ProxyMessage.of(client);
        java.net.SocketAddress source = client.remoteAddress();
        java.net.SocketAddress destination = client.localAddress();
        if (decoded != null && decoded.sourceAddress() != null) {
            source = decoded.sourceAddress();
            destination = decoded.destinationAddress();
        }
        if (source instanceof InetSocketAddress s && destination instanceof InetSocketAddress d
                && s.getAddress() instanceof java.net.Inet6Address == d.getAddress() instanceof java.net.Inet6Address) {
            return ProxyMessage.tcp(version, s, d);
        }
        if (version == 2 && isUnix(source) && isUnix(destination)) {
            return new ProxyMessage(2, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.UNIX_STREAM, source,
                    destination, java.util.List.of());
        }
        return new ProxyMessage(version, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.UNKNOWN, null, null,
                java.util.List.of());
    }

    private static boolean isUnix(java.net.SocketAddress a) {
        return a instanceof java.net.UnixDomainSocketAddress || a instanceof io.conduit.channel.UnixAbstractAddress;
    }

    /**
     * @return the client for a log line: its address ({@code /127.0.0.1:40312}, a socket file path, an abstract
     *         name); a Unix client whose socket has no name (the usual case: clients rarely bind) is
     *         {@code an unnamed Unix socket (pid 4242, uid 1000)}, with the peer's credentials where the transport
     *         reads them ({@code SO_PEERCRED}), else with the connection's channel id
     */
    static String describeClient(Channel client) {
        ProxyMessage proxied = ProxyMessage.of(client);
        if (proxied != null && proxied.sourceAddress() != null) {
            return proxied.sourceAddress() + " (PROXY v" + proxied.version() + " from " + describeSocket(client) + ")";
        }
        return describeSocket(client);
    }

    /** @return the client connection's own peer, as {@link #describeClient} describes it without a PROXY header */
    private static String describeSocket(Channel client) {
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
        if (event instanceof TlsHandshakeCompletionEvent tls && config.listen().tls()) {
            if (tls.isSuccess() && !connected) {
                connect(ctx, config.upstream());
            }
        } else if (event instanceof SniRouteHandler.Route route && config.routesBySni()) {
            if (!connected) {
                connect(ctx, route.upstream());
            }
        } else if (event instanceof ProxyMessage && config.proxyAccept() != null && !proxyDecoded) {
            proxyDecoded = true;
            if (!config.listen().tls() && !config.routesBySni()) {
                connect(ctx, config.upstream());
            }
        } else if (event instanceof InputShutdownEvent) {
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
