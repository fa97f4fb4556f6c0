package io.conduit.handler.limit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.handler.logging.RateLimitedLog;

/**
 * A limit on the open connections of one listener. Create one per listener and add {@link #newHandler()} first
 * to every accepted channel's pipeline (in the child initializer). A connection beyond the limit is closed as
 * soon as it is active: later handlers never see it become active, read or close. Each rejection is logged as a
 * {@code WARNING} on the {@code System.Logger} {@code io.conduit.handler.limit.ConnectionLimit}, at most one line
 * per 10 s, with the number of rejections the previous line did not show; the line names the limit's owner when
 * one was given ({@link #ConnectionLimit(int, String)}), else the listener's address.
 *
 * <p>Counting: an accepted connection counts from {@code channelActive} until its close future completes. Thread-
 * safe: the accepted channels of one listener run on several event loops.
 */
public final class ConnectionLimit {

    private static final System.Logger LOG = System.getLogger(ConnectionLimit.class.getName());

    private final int maxConnections;
    /** What the log line names, e.g. {@code "relay io.conduit.gateway.relay-redis.cfg"}; {@code null}: none */
    private final String owner;
    private final AtomicInteger open = new AtomicInteger();
    private final RateLimitedLog rejections;

    /**
     * @param maxConnections open connections allowed at once; {@code > 0}
     * @throws IllegalArgumentException when {@code maxConnections <= 0}
     */
    public ConnectionLimit(int maxConnections) {
        this(maxConnections, null, System::nanoTime);
    }

    /**
     * @param maxConnections open connections allowed at once; {@code > 0}
     * @param owner          what the rejection line names before the listener's address, so an operator finds the
     *                       configuration to change (e.g. {@code "relay io.conduit.gateway.relay-redis.cfg"});
     *                       {@code null} names the listener only
     * @throws IllegalArgumentException when {@code maxConnections <= 0}
     * @since 0.2
     */
    public ConnectionLimit(int maxConnections, String owner) {
        this(maxConnections, owner, System::nanoTime);
    }

    ConnectionLimit(int maxConnections, String owner, LongSupplier clock) {
        if (maxConnections <= 0) {
            throw new IllegalArgumentException("maxConnections must be > 0: " + maxConnections);
        }
        this.maxConnections = maxConnections;
        this.owner = owner;
        this.rejections = new RateLimitedLog(LOG, System.Logger.Level.WARNING, TimeUnit.SECONDS.toNanos(RateLimitedLog.DEFAULT_INTERVAL_SECONDS), clock);
    }

    /** @return the limit */
    public int maxConnections() {
        return maxConnections;
    }

    /** @return the connections counted now */
    public int openConnections() {
        return open.get();
    }

    /** @return a handler for one accepted channel; add it first to that channel's pipeline */
    public ChannelHandler newHandler() {
        return new Gate();
    }

    private boolean tryAcquire() {
        while (true) {
            int n = open.get();
            if (n >= maxConnections) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private void reject(Channel ch) {
        Channel listener = ch.parent();
        Object on = listener != null ? listener.localAddress() : "(none)";
        Object from = ch.remoteAddress();
        String where = owner != null ? owner + " (listener " + on + ")" : "listener " + on;
        rejections.occurred(() -> "connection limit " + maxConnections + " reached on " + where
                + ": closed the connection from " + from + " at once; raise the limit or add capacity if this is"
                + " regular load");
    }

    /** The per-channel side: admits or rejects at channelActive. Confined to the channel's executor. */
    private final class Gate implements ChannelHandler {
        private boolean rejected;

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            if (!tryAcquire()) {
                rejected = true;
                reject(ctx.channel());
                ctx.close();
                return;
            }
            ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (rejected) {
                io.conduit.buffer.ReferenceCounted.safeRelease(msg);
                return;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            if (!rejected) {
                ctx.fireChannelReadComplete();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (!rejected) {
                ctx.fireChannelInactive();
            }
        }
    }
}
