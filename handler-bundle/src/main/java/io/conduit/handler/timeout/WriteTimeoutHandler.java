package io.conduit.handler.timeout;

import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;

/**
 * Closes a channel when a write did not complete (reach the socket) within a given time: fires a
 * {@link WriteTimeoutException} through the pipeline ({@code exceptionCaught}), then closes the channel, once;
 * the close fails the pending writes' promises. Each write gets a timer on the handler's executor that is
 * cancelled when its promise completes. One instance per channel.
 */
public class WriteTimeoutHandler implements ChannelHandler {

    private final long timeoutNanos;
    /** Confined to the handler's executor. */
    private boolean closed;

    /** @param timeoutSeconds seconds; {@code > 0} */
    public WriteTimeoutHandler(int timeoutSeconds) {
        this(timeoutSeconds, TimeUnit.SECONDS);
    }

    /**
     * @param timeout how long a write may take; {@code > 0}
     * @throws IllegalArgumentException when {@code timeout <= 0}
     */
    public WriteTimeoutHandler(long timeout, TimeUnit unit) {
        if (timeout <= 0) {
            throw new IllegalArgumentException("write timeout must be > 0: " + timeout);
        }
        this.timeoutNanos = Math.max(unit.toNanos(timeout), TimeUnit.MILLISECONDS.toNanos(1));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) throws Exception {
        ScheduledFuture<?> timer = ctx.executor().schedule(() -> {
            if (!promise.isDone()) {
                timedOut(ctx);
            }
        }, timeoutNanos, TimeUnit.NANOSECONDS);
        promise.addListener(f -> timer.cancel(false));
        ctx.write(msg, promise);
    }

    private void timedOut(ChannelHandlerContext ctx) {
        if (closed) {
            return;
        }
        closed = true;
        ctx.fireExceptionCaught(new WriteTimeoutException("a write did not complete within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms on " + ctx.channel() + "; closing it"));
        ctx.close();
    }
}
