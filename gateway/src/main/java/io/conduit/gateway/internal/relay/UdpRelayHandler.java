package io.conduit.gateway.internal.relay;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.metrics.EndpointCounters;
import io.conduit.gateway.internal.network.Network;
import io.conduit.handler.logging.RateLimitedLog;

/**
 * The handler of a UDP relay's listening endpoint: keeps one <em>session</em> per client address, each with its own
 * datagram channel connected to the upstream, so the upstream's replies go back to the client that asked.
 *
 * <ul>
 *   <li>Client datagrams are sent upstream unchanged (empty ones too). While a session's upstream channel is being
 *       set up, up to {@value #MAX_PENDING_DATAGRAMS} datagrams wait; more are dropped (UDP may drop). A datagram the
 *       upstream socket refuses (longer than the upstream's protocol allows, ICMP port unreachable after the upstream
 *       went away) is dropped, not counted as sent, and logged as WARNING by a {@link RateLimitedLog}.</li>
 *   <li>A session with no datagram either way for {@code udp.idle.timeout.ms} is closed: each session is checked
 *       every half of that time and closed at the second check in a row that found it quiet, so it expires after
 *       between one and one and a half idle timeouts.</li>
 *   <li>At most {@code udp.max.sessions} sessions exist; datagrams of further clients are dropped and counted (two
 *       listening channels taking datagrams at once during a transport swap may let one or two more in). The drops
 *       are logged as WARNING by a {@link RateLimitedLog}: the first at once, then a count at most every
 *       {@value RateLimitedLog#DEFAULT_INTERVAL_SECONDS} s, so an overload long after the first is seen too.</li>
 *   <li>Replies leave through the endpoint's current channel ({@link Network.DatagramEndpoint#channel()}), so they
 *       come from the relay's address whatever transport the endpoint is on.</li>
 *   <li><b>Transport swaps</b> (the endpoint follows the selected transport). Each session's upstream channel is
 *       {@linkplain Network.DatagramEndpoint#adopt adopted} by the endpoint. On a <em>selection change</em> (the old
 *       transport still available) sessions are <b>kept</b>: their upstream channel stays on the old transport, the
 *       client's datagrams arriving on the new socket still go through it (the upstream sees the same source port)
 *       and the session ends by its idle timeout as usual — like {@code ManagedServer}'s kept TCP connections. When
 *       the session's transport <em>goes away</em> it is <b>drained</b>: it is forgotten at once, so the client's
 *       next datagram opens a new session on the current transport (the upstream sees a new source port), while
 *       the old upstream channel still relays late replies until the endpoint closes it after its grace period.</li>
 *   <li>When the endpoint closes (no current channel), every session closes.</li>
 *   <li><b>Counters</b> ({@link EndpointCounters}): each session counts as a connection while it is open, with its
 *       upstream bytes each way and its upstream connect. The client's datagrams are counted by the endpoint
 *       channel's own handler.</li>
 * </ul>
 *
 * <p>Sharable and thread-safe: during a swap two listening channels (two event loops) may read at once. The session
 * table is a concurrent map; each session's state is confined to its own event loop, the loop of the endpoint's
 * channel when the session was made, which its upstream channel shares.
 */
@ChannelHandler.Sharable
public final class UdpRelayHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    /** Datagrams that may wait for a session's upstream channel. */
    static final int MAX_PENDING_DATAGRAMS = 64;

    private final RelayConfig config;
    private final Network network;
    private final Network.DatagramEndpoint endpoint;
    /** Sessions by client address; concurrent map. */
    private final Map<InetSocketAddress, Session> sessions = new ConcurrentHashMap<>();
    /** Datagrams dropped because the session table was full. */
    private final AtomicLong droppedForLimit = new AtomicLong();
    /** Logs those drops: the first at once, then a count at most every few seconds, for the relay's whole life. */
    private final RateLimitedLog sessionLimitLog;
    /** datagrams the upstream socket refused (too long, ICMP unreachable, no buffer): WARNING, rate-limited */
    private final RateLimitedLog upstreamSendFailureLog = new RateLimitedLog(LOG, System.Logger.Level.WARNING);
    /** The endpoint's counters. */
    private final EndpointCounters counters;

    /**
     * @param config   the relay's configuration (UDP listen and upstream)
     * @param network  where session channels come from
     * @param endpoint the listening endpoint this handler serves: replies leave through its channel
     */
    public UdpRelayHandler(RelayConfig config, Network network, Network.DatagramEndpoint endpoint) {
        this(config, network, endpoint, new EndpointCounters());
    }

    /**
     * @param config   the relay's configuration (UDP listen and upstream)
     * @param network  where session channels come from
     * @param endpoint the listening endpoint this handler serves: replies leave through its channel
     * @param counters the endpoint's counters: sessions, upstream bytes and connects
     */
    public UdpRelayHandler(RelayConfig config, Network network, Network.DatagramEndpoint endpoint,
            EndpointCounters counters) {
        this(config, network, endpoint, new RateLimitedLog(LOG, System.Logger.Level.WARNING), counters);
    }

    /** Like the public constructor, logging dropped datagrams to {@code sessionLimitLog} (tests: a fake clock). */
    UdpRelayHandler(RelayConfig config, Network network, Network.DatagramEndpoint endpoint,
            RateLimitedLog sessionLimitLog) {
        this(config, network, endpoint, sessionLimitLog, new EndpointCounters());
    }

    private UdpRelayHandler(RelayConfig config, Network network, Network.DatagramEndpoint endpoint,
            RateLimitedLog sessionLimitLog, EndpointCounters counters) {
        this.config = config;
        this.network = network;
        this.endpoint = endpoint;
        this.sessionLimitLog = sessionLimitLog;
        this.counters = counters;
    }

    /** @return the number of live sessions (drained ones no longer count) */
    public int sessionCount() {
        return sessions.size();
    }

    /** @return datagrams dropped so far because {@code udp.max.sessions} was reached */
    public long droppedForSessionLimit() {
        return droppedForLimit.get();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket p)) {
            ctx.fireChannelRead(msg);
            return;
        }
        InetSocketAddress client = p.sender();
        if (client == null) {
            p.close();
            return;
        }
        Session s = sessions.get(client);
        if (s == null) {
            if (sessions.size() >= config.udpMaxSessions()) {
                droppedForLimit.incrementAndGet();
                sessionLimitLog.occurred(() -> "relay " + config.name() + ": " + config.udpMaxSessions()
                        + " UDP sessions reached (udp.max.sessions); dropped a datagram of new client " + client);
                p.close();
                return;
            }
            Channel now = endpoint.channel();
            Session fresh = new Session(client, (now != null ? now : ctx.channel()).eventLoop());
            s = sessions.putIfAbsent(client, fresh);
            if (s == null) {
                s = fresh;
                s.start();
            }
        }
        s.toUpstream(p.content());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Channel now = endpoint.channel();
        if (now == null || now == ctx.channel() || !now.isOpen()) { // not a swap: the endpoint itself closed
            for (Session s : sessions.values().toArray(new Session[0])) {
                s.close();
            }
            sessionLimitLog.flush();
            upstreamSendFailureLog.flush();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // e.g. ICMP port unreachable on a send: a datagram listener stays open.
        LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": " + cause);
    }

    /** One client's session; its state is confined to {@link #loop}, which its upstream channel shares. */
    private final class Session implements ChannelHandler {
        private final InetSocketAddress client;
        private final EventLoop loop;
        /** The counters of {@link #loop}. */
        private final EndpointCounters.Cell cell;
        /** Counted as an open connection by {@link #start0()}, not yet as closed. */
        private boolean counted;
        private final ArrayDeque<Buffer> pending = new ArrayDeque<>();
        private Channel upstream;
        private Future<Channel> connecting;
        private ScheduledFuture<?> idleCheck;
        /** A datagram passed since the last idle check; written from any listening channel's loop. */
        private volatile boolean activeSinceCheck = true;
        private boolean closed;
        /**
         * The listening channel written to since the last flush, flushed at read complete: the endpoint's current
         * channel can change between the write and the flush (a transport swap), and flushing the new one would leave
         * the datagram queued on the old one until that closes and fails it. Confined to the upstream's loop.
         */
        private Channel unflushed;

        Session(InetSocketAddress client, EventLoop loop) {
            this.client = client;
            this.loop = loop;
            this.cell = counters.cell(loop);
        }

        /** Runs {@code task} on the session's loop; when the loop is gone the session ends. */
        private void onLoop(Runnable task, Buffer toRelease) {
            if (loop.inEventLoop()) {
                task.run();
                return;
            }
            try {
                loop.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                if (toRelease != null) {
                    toRelease.close();
                }
                sessions.remove(client, this);
            }
        }

        void start() {
            onLoop(this::start0, null);
        }

        private void start0() {
            cell.connectionOpened();
            counted = true;
            long halfIdleMillis = Math.max(1, config.udpIdleTimeoutMillis() / 2);
            scheduleIdleCheck(halfIdleMillis);
            long startNanos = System.nanoTime();
            try {
                connecting = network.connect(config.upstream(), loop, Map.of(), this);
            } catch (RuntimeException e) {
                cell.connectFailed();
                LOG.log(System.Logger.Level.WARNING, "relay " + config.name() + ": cannot open a UDP session to "
                        + config.upstream() + " for " + client + ": " + e.getMessage());
                close0();
                return;
            }
            connecting.addListener(f -> {
                connecting = null;
                if (closed) {
                    if (f.isSuccess()) {
                        f.getNow().close();
                    }
                    return;
                }
                if (!f.isSuccess()) {
                    cell.connectFailed();
                    LOG.log(System.Logger.Level.INFO, "relay " + config.name() + ": UDP session to "
                            + config.upstream() + " for " + client + " failed: " + f.cause());
                    close0();
                    return;
                }
                cell.connected(System.nanoTime() - startNanos);
                upstream = f.getNow();
                upstream.closeFuture().addListener(c -> close());
                // the endpoint keeps it on a selection change and drains it when its transport goes away: then new
                // datagrams of the client open a new session, and this one only relays late replies until it closes
                endpoint.adopt(upstream).addListener(d -> {
                    if (d.isSuccess()) {
                        sessions.remove(client, this);
                    }
                });
                Buffer b;
                while ((b = pending.poll()) != null) {
                    cell.sent(EndpointCounters.Side.UPSTREAM, b.readableBytes());
                    upstream.write(b);
                }
                upstream.flush();
            });
        }

        private void scheduleIdleCheck(long delayMillis) {
            idleCheck = loop.schedule(() -> {
                if (closed) {
                    return;
                }
                if (activeSinceCheck) {
                    activeSinceCheck = false;
                    scheduleIdleCheck(delayMillis);
                } else {
                    LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": UDP session of " + client
                            + " idle, closing");
                    close0();
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        }

        void toUpstream(Buffer content) {
            activeSinceCheck = true;
            onLoop(() -> toUpstream0(content), content);
        }

        private void toUpstream0(Buffer content) {
            if (upstream != null && !closed) {
                int bytes = content.readableBytes();
                upstream.writeAndFlush(content).addListener(f -> {
                    if (f.isSuccess()) {
                        cell.sent(EndpointCounters.Side.UPSTREAM, bytes);
                    } else {
                        upstreamSendFailureLog.occurred(() -> "relay " + config.name() + ": a datagram of " + bytes
                                + " bytes from " + client + " was not sent to the upstream " + config.upstream()
                                + " and is dropped: " + f.cause().getMessage());
                    }
                });
            } else if (!closed && pending.size() < MAX_PENDING_DATAGRAMS) {
                pending.add(content);
            } else {
                content.close();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer content;
            if (msg instanceof DatagramPacket p) {
                content = p.content();
            } else if (msg instanceof Buffer b) {
                content = b;
            } else {
                ReferenceCounted.safeRelease(msg);
                return;
            }
            activeSinceCheck = true;
            cell.received(EndpointCounters.Side.UPSTREAM, content.readableBytes());
            Channel out = endpoint.channel();
            if (closed || out == null || !out.isActive()) {
                content.close();
                return;
            }
            if (unflushed != null && unflushed != out) {
                unflushed.flush(); // the endpoint swapped mid-batch: what went to the old channel leaves now
            }
            unflushed = out;
            out.write(new DatagramPacket(content, client));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            Channel out = unflushed;
            unflushed = null;
            if (out != null) {
                out.flush();
            }
            ctx.fireChannelReadComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // e.g. ECONNREFUSED after ICMP port unreachable from the upstream: keep the session, UDP may lose.
            LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": session of " + client + ": "
                    + cause);
        }

        void close() {
            onLoop(this::close0, null);
        }

        private void close0() {
            if (closed) {
                return;
            }
            closed = true;
            if (counted) {
                counted = false;
                cell.connectionClosed();
            }
            sessions.remove(client, this);
            if (idleCheck != null) {
                idleCheck.cancel(false);
            }
            Buffer b;
            while ((b = pending.poll()) != null) {
                b.close();
            }
            if (connecting != null) {
                connecting.cancel(false);
            }
            if (upstream != null) {
                upstream.close();
            }
        }
    }
}
