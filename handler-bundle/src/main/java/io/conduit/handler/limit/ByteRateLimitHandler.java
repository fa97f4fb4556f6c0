package io.conduit.handler.limit;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.ScheduledFuture;

/**
 * Limits the rate at which a channel reads bytes, by back-pressure: each {@link Buffer} read is passed on at once
 * and taken from one or more {@link TokenBucket}s (the connection's own, and one shared by a listener's
 * connections); when a bucket is in debt the handler turns {@link io.conduit.channel.ChannelOption#AUTO_READ}
 * off and turns it back on when every bucket is out of debt. Nothing is buffered: the kernel's receive buffer
 * and TCP flow control hold the peer back. With auto-read off by the application, explicit {@code read()} calls
 * are held back while a bucket is in debt and passed on afterwards.
 *
 * <p>The rate is met on average; a connection may run ahead by one bucket's burst plus one read. Timing uses the
 * handler's executor ({@link io.conduit.concurrent.EventExecutor#nanoTime()} and its scheduler). One instance per
 * channel; buckets may be shared. All methods run on the handler's executor.
 */
public class ByteRateLimitHandler implements ChannelHandler {

    private final List<TokenBucket> buckets;

    // Confined to the handler's executor.
    private boolean paused;
    private boolean autoReadTurnedOff;
    private boolean readPending;
    private ScheduledFuture<?> resume;

    /**
     * @param buckets the buckets every read is taken from, e.g. a new {@link TokenBucket} for this connection and
     *        one shared by the listener; at least one
     * @throws IllegalArgumentException when none is given
     */
    public ByteRateLimitHandler(TokenBucket... buckets) {
        Objects.requireNonNull(buckets, "buckets");
        if (buckets.length == 0) {
            throw new IllegalArgumentException("at least one TokenBucket is needed");
        }
        this.buckets = List.of(buckets);
    }

    /** @return {@code true} while reads are held back */
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof Buffer b) {
            long now = ctx.executor().nanoTime();
            long wait = 0;
            for (TokenBucket bucket : buckets) {
                wait = Math.max(wait, bucket.take(b.readableBytes(), now));
            }
            if (wait > 0) {
                pause(ctx, wait);
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void read(ChannelHandlerContext ctx) throws Exception {
        if (paused) {
            readPending = true;
            return;
        }
        ctx.read();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelResume();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        cancelResume();
        if (paused) {
            resumeNow(ctx);
        }
    }

    private void pause(ChannelHandlerContext ctx, long waitNanos) {
        if (!paused) {
            paused = true;
            if (ctx.channel().config().isAutoRead()) {
                autoReadTurnedOff = true;
                ctx.channel().config().setAutoRead(false);
            }
        }
        if (resume == null) {
            resume = ctx.executor().schedule(() -> check(ctx), waitNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Resumes when every bucket is out of debt (a shared one may have gone deeper meanwhile). */
    private void check(ChannelHandlerContext ctx) {
        resume = null;
        if (!ctx.channel().isOpen()) {
            return;
        }
        long now = ctx.executor().nanoTime();
        long wait = 0;
        for (TokenBucket bucket : buckets) {
            wait = Math.max(wait, bucket.debtNanos(now));
        }
        if (wait > 0) {
            resume = ctx.executor().schedule(() -> check(ctx), wait, TimeUnit.NANOSECONDS);
            return;
        }
        resumeNow(ctx);
    }

    private void resumeNow(ChannelHandlerContext ctx) {
        paused = false;
        if (autoReadTurnedOff) {
            autoReadTurnedOff = false;
            ctx.channel().config().setAutoRead(true);
        }
        if (readPending) {
            readPending = false;
            ctx.read();
        }
    }

    private void cancelResume() {
        if (resume != null) {
            resume.cancel(false);
            resume = null;
        }
    }
}
