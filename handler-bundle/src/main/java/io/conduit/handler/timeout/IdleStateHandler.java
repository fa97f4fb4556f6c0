package io.conduit.handler.timeout;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;

/**
 * Fires an {@link IdleStateEvent} when a channel has read nothing ({@link IdleState#READER_IDLE}), written
 * nothing ({@link IdleState#WRITER_IDLE}), or neither ({@link IdleState#ALL_IDLE}) for a given time. The event
 * repeats every period while the channel stays idle; the first of a run has {@link IdleStateEvent#isFirst()}.
 *
 * <p>What counts: a read is the end of a read operation ({@code channelReadComplete}); while a read operation is
 * in progress the reader is not idle. A write counts when its promise completed (the bytes reached the socket),
 * so a peer that stops reading makes the writer idle even while the application keeps writing.
 *
 * <p>Timing: checks are tasks scheduled on the handler's executor and compare times from
 * {@link io.conduit.concurrent.EventExecutor#nanoTime()}, so they follow a test loop's clock. A time of 0 or less
 * turns that check off. Timers start when the channel is active (or when the handler is added to an active
 * channel) and stop when it becomes inactive or the handler is removed.
 *
 * <p>Threading: one instance per channel; all methods run on the handler's executor. Override
 * {@link #channelIdle(ChannelHandlerContext, IdleStateEvent)} to act instead of firing the event.
 */
public class IdleStateHandler implements ChannelHandler {

    private static final long MIN_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long readerIdleNanos;
    private final long writerIdleNanos;
    private final long allIdleNanos;

    // All fields below are confined to the handler's executor.
    /** 0 = not started, 1 = started, 2 = destroyed. */
    private int state;
    private boolean reading;
    private long lastReadNanos;
    private long lastWriteNanos;
    private boolean firstReaderIdle = true;
    private boolean firstWriterIdle = true;
    private boolean firstAllIdle = true;
    private ScheduledFuture<?> readerTimeout;
    private ScheduledFuture<?> writerTimeout;
    private ScheduledFuture<?> allTimeout;

    /** Times in seconds; 0 turns a check off. */
    public IdleStateHandler(int readerIdleSeconds, int writerIdleSeconds, int allIdleSeconds) {
        this(readerIdleSeconds, writerIdleSeconds, allIdleSeconds, TimeUnit.SECONDS);
    }

    /**
     * @param readerIdleTime fire {@link IdleState#READER_IDLE} after this long without a read; {@code <= 0}: never
     * @param writerIdleTime fire {@link IdleState#WRITER_IDLE} after this long without a completed write
     * @param allIdleTime fire {@link IdleState#ALL_IDLE} after this long without either
     * @param unit the unit of the three times; times under a millisecond are raised to one
     */
    public IdleStateHandler(long readerIdleTime, long writerIdleTime, long allIdleTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        this.readerIdleNanos = nanos(readerIdleTime, unit);
        this.writerIdleNanos = nanos(writerIdleTime, unit);
        this.allIdleNanos = nanos(allIdleTime, unit);
    }

    private static long nanos(long time, TimeUnit unit) {
        return time <= 0 ? 0 : Math.max(unit.toNanos(time), MIN_TIMEOUT_NANOS);
    }

    /** @return the reader idle time in the given unit (0 = off) */
    public long getReaderIdleTime(TimeUnit unit) {
        return unit.convert(readerIdleNanos, TimeUnit.NANOSECONDS);
    }

    /** @return the writer idle time in the given unit (0 = off) */
    public long getWriterIdleTime(TimeUnit unit) {
        return unit.convert(writerIdleNanos, TimeUnit.NANOSECONDS);
    }

    /** @return the all idle time in the given unit (0 = off) */
    public long getAllIdleTime(TimeUnit unit) {
        return unit.convert(allIdleNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isActive()) {
            initialize(ctx);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        destroy();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        initialize(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        destroy();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (readerIdleNanos > 0 || allIdleNanos > 0) {
            reading = true;
            firstReaderIdle = true;
            firstAllIdle = true;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (reading) {
            lastReadNanos = ctx.executor().nanoTime();
            reading = false;
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) throws Exception {
        if (writerIdleNanos > 0 || allIdleNanos > 0) {
            ctx.write(msg, promise);
            promise.addListener(f -> {
                lastWriteNanos = ctx.executor().nanoTime();
                firstWriterIdle = true;
                firstAllIdle = true;
            });
        } else {
            ctx.write(msg, promise);
        }
    }

    /**
     * Called when a check found the channel idle; fires {@code event} on by default.
     */
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) throws Exception {
        ctx.fireUserEventTriggered(event);
    }

    private void initialize(ChannelHandlerContext ctx) {
        if (state != 0) {
            return; // started already, or destroyed: never restart on the same channel
        }
        state = 1;
        long now = ctx.executor().nanoTime();
        lastReadNanos = now;
        lastWriteNanos = now;
        if (readerIdleNanos > 0) {
            readerTimeout = new ReaderCheck(ctx).start();
        }
        if (writerIdleNanos > 0) {
            writerTimeout = new WriterCheck(ctx).start();
        }
        if (allIdleNanos > 0) {
            allTimeout = new AllCheck(ctx).start();
        }
    }

    private static ScheduledFuture<?> schedule(ChannelHandlerContext ctx, Runnable task, long delayNanos) {
        return ctx.executor().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void destroy() {
        state = 2;
        readerTimeout = cancel(readerTimeout);
        writerTimeout = cancel(writerTimeout);
        allTimeout = cancel(allTimeout);
    }

    private static ScheduledFuture<?> cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
        return null;
    }

    /** One kind of check; reschedules itself for when its side could next be idle. */
    private abstract class Check implements Runnable {
        final ChannelHandlerContext ctx;
        private final IdleState kind;
        private final long idleNanos;

        Check(ChannelHandlerContext ctx, IdleState kind, long idleNanos) {
            this.ctx = ctx;
            this.kind = kind;
            this.idleNanos = idleNanos;
        }

        /** @return when this side was last active ({@code now} while a read is in progress) */
        abstract long lastActivity(long now);

        /** @return whether the event is the first of its run, and clears that flag */
        abstract boolean takeFirst();

        /** Keeps the future of the next check, so that destroy can cancel it. */
        abstract void scheduled(ScheduledFuture<?> next);

        final ScheduledFuture<?> start() {
            return schedule(ctx, this, idleNanos);
        }

        @Override
        public final void run() {
            if (state != 1 || !ctx.channel().isOpen()) {
                return;
            }
            long now = ctx.executor().nanoTime();
            long left = idleNanos - (now - lastActivity(now));
            if (left > 0) {
                scheduled(schedule(ctx, this, left));
                return;
            }
            scheduled(schedule(ctx, this, idleNanos));
            try {
                channelIdle(ctx, IdleStateEvent.of(kind, takeFirst()));
            } catch (Throwable t) {
                ctx.fireExceptionCaught(t);
            }
        }
    }

    private final class ReaderCheck extends Check {
        ReaderCheck(ChannelHandlerContext ctx) {
            super(ctx, IdleState.READER_IDLE, readerIdleNanos);
        }

        @Override
        long lastActivity(long now) {
            return reading ? now : lastReadNanos;
        }

        @Override
        boolean takeFirst() {
            boolean first = firstReaderIdle;
            firstReaderIdle = false;
            return first;
        }

        @Override
        void scheduled(ScheduledFuture<?> next) {
            readerTimeout = next;
        }
    }

    private final class WriterCheck extends Check {
        WriterCheck(ChannelHandlerContext ctx) {
            super(ctx, IdleState.WRITER_IDLE, writerIdleNanos);
        }

        @Override
        long lastActivity(long now) {
            return lastWriteNanos;
        }

        @Override
        boolean takeFirst() {
            boolean first = firstWriterIdle;
            firstWriterIdle = false;
            return first;
        }

        @Override
        void scheduled(ScheduledFuture<?> next) {
            writerTimeout = next;
        }
    }

    private final class AllCheck extends Check {
        AllCheck(ChannelHandlerContext ctx) {
            super(ctx, IdleState.ALL_IDLE, allIdleNanos);
        }

        @Override
        long lastActivity(long now) {
            // the later of the two, compared by difference (nanoTime values may wrap)
            return reading ? now : lastReadNanos - lastWriteNanos > 0 ? lastReadNanos : lastWriteNanos;
        }

        @Override
        boolean takeFirst() {
            boolean first = firstAllIdle;
            firstAllIdle = false;
            return first;
        }

        @Override
        void scheduled(ScheduledFuture<?> next) {
            allTimeout = next;
        }
    }
}
