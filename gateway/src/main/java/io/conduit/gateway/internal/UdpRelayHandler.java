package io.conduit.gateway.internal;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;

/**
 * The handler of a UDP relay's listening channel: keeps one <em>session</em> per client address, each with its own
 * datagram channel connected to the upstream, so the upstream's replies go back to the client that asked.
 *
 * <ul>
 *   <li>Client datagrams are sent upstream unchanged (empty ones too). While a session's upstream channel is being
 *       set up, up to {@value #MAX_PENDING_DATAGRAMS} datagrams wait; more are dropped (UDP may drop).</li>
 *   <li>A session with no datagram either way for {@code udp.idle.timeout.ms} is closed: each session is checked
 *       every half of that time and closed at the second check in a row that found it quiet, so it expires after
 *       between one and one and a half idle timeouts.</li>
 *   <li>At most {@code udp.max.sessions} sessions exist; datagrams of further clients are dropped and counted.</li>
 *   <li>When the listening channel closes, every session closes.</li>
 * </ul>
 *
 * <p>The session table is confined to the listening channel's event loop, which the session channels share. Not
 * sharable.
 */
public final class UdpRelayHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    /** Datagrams that may wait for a session's upstream channel. */
    static final int MAX_PENDING_DATAGRAMS = 64;

    private final RelayConfig config;
    private final Network network;
    /** Sessions by client address; loop-confined. */
    private final Map<InetSocketAddress, Session> sessions = new HashMap<>();
    /** Datagrams dropped because the session table was full; loop-confined. */
    private long droppedForLimit;

    /**
     * @param config  the relay's configuration (UDP listen and upstream)
     * @param network where session channels come from
     */
    public UdpRelayHandler(RelayConfig config, Network network) {
        this.config = config;
        this.network = network;
    }

    /** @return the number of live sessions; call on the event loop */
    public int sessionCount() {
        return sessions.size();
    }

    /** @return datagrams dropped so far because {@code udp.max.sessions} was reached; call on the event loop */
    public long droppedForSessionLimit() {
        return droppedForLimit;
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
                if (droppedForLimit++ == 0) {
                    LOG.log(System.Logger.Level.WARNING, "relay " + config.name() + ": " + config.udpMaxSessions()
                            + " UDP sessions reached (udp.max.sessions); dropping datagrams of new clients");
                }
                p.close();
                return;
            }
            s = new Session(ctx, client);
            sessions.put(client, s);
            s.start();
        }
        s.toUpstream(p.content());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        for (Session s : sessions.values().toArray(new Session[0])) {
            s.close();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // e.g. ICMP port unreachable on a send: a datagram listener stays open.
        LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": " + cause);
    }

    /** One client's session; every method runs on the listening channel's event loop. */
    private final class Session implements ChannelHandler {
        private final ChannelHandlerContext listener;
        private final InetSocketAddress client;
        private final ArrayDeque<Buffer> pending = new ArrayDeque<>();
        private Channel upstream;
        private Future<Channel> connecting;
        private ScheduledFuture<?> idleCheck;
        /** A datagram passed since the last idle check. */
        private boolean activeSinceCheck = true;
        private boolean closed;

        Session(ChannelHandlerContext listener, InetSocketAddress client) {
            this.listener = listener;
            this.client = client;
        }

        void start() {
            long halfIdleMillis = Math.max(1, config.udpIdleTimeoutMillis() / 2);
            scheduleIdleCheck(halfIdleMillis);
            try {
                connecting = network.connect(config.upstream(), listener.channel().eventLoop(), Map.of(), this);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "relay " + config.name() + ": cannot open a UDP session to "
                        + config.upstream() + " for " + client + ": " + e.getMessage());
                close();
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
                    LOG.log(System.Logger.Level.INFO, "relay " + config.name() + ": UDP session to "
                            + config.upstream() + " for " + client + " failed: " + f.cause());
                    close();
                    return;
                }
                upstream = f.getNow();
                upstream.closeFuture().addListener(c -> close());
                Buffer b;
                while ((b = pending.poll()) != null) {
                    upstream.write(b);
                }
                upstream.flush();
            });
        }

        private void scheduleIdleCheck(long delayMillis) {
            idleCheck = listener.channel().eventLoop().schedule(() -> {
                if (closed) {
                    return;
                }
                if (activeSinceCheck) {
                    activeSinceCheck = false;
                    scheduleIdleCheck(delayMillis);
                } else {
                    LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": UDP session of " + client
                            + " idle, closing");
                    close();
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        }

        void toUpstream(Buffer content) {
            activeSinceCheck = true;
            if (upstream != null) {
                upstream.writeAndFlush(content);
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
            if (closed || !listener.channel().isActive()) {
                content.close();
                return;
            }
            listener.channel().write(new DatagramPacket(content, client));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            listener.channel().flush();
            ctx.fireChannelReadComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // e.g. ECONNREFUSED after ICMP port unreachable from the upstream: keep the session, UDP may lose.
            LOG.log(System.Logger.Level.DEBUG, () -> "relay " + config.name() + ": session of " + client + ": "
                    + cause);
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
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
