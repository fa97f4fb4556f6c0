package io.conduit.handler.timeout;

import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelHandlerContext;

/**
 * Closes a channel that read nothing for a given time: fires a {@link ReadTimeoutException} through the
 * pipeline ({@code exceptionCaught}), then closes the channel, once. Reads are counted as in
 * {@link IdleStateHandler} (a read operation in progress is not idle). One instance per channel.
 */
public class ReadTimeoutHandler extends IdleStateHandler {

    private boolean closed;

    /** @param timeoutSeconds seconds; {@code > 0} */
    public ReadTimeoutHandler(int timeoutSeconds) {
        this(timeoutSeconds, TimeUnit.SECONDS);
    }

    /**
     * @param timeout how long without a read; {@code > 0}
     * @throws IllegalArgumentException when {@code timeout <= 0}
     */
    public ReadTimeoutHandler(long timeout, TimeUnit unit) {
        super(checkPositive(timeout), 0, 0, unit);
    }

    private static long checkPositive(long timeout) {
        if (timeout <= 0) {
            throw new IllegalArgumentException("read timeout must be > 0: " + timeout);
        }
        return timeout;
    }

    @Override
    protected final void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        ctx.fireExceptionCaught(new ReadTimeoutException("no read for " + getReaderIdleTime(TimeUnit.MILLISECONDS)
                + " ms on " + ctx.channel() + "; closing it"));
        ctx.close();
    }
}
