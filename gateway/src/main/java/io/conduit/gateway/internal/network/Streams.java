package io.conduit.gateway.internal.network;

import io.conduit.channel.Channel;
import io.conduit.channel.DuplexChannel;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.handler.ssl.TlsHandler;

import java.util.concurrent.TimeUnit;

/**
 * Half-closure helpers shared by the echo and relay handlers. Call on the channel's event loop.
 */
public final class Streams {

    private Streams() {
    }

    /**
     * Forwards an end of stream: flushes what was written to {@code ch}, then shuts its output down so its peer reads
     * EOF (the channel core writes flushed data before {@code shutdown(SHUT_WR)}, see
     * {@link DuplexChannel#shutdownOutput()}); a channel that cannot half-close is closed after the flush instead.
     * Closes {@code ch} once both of its directions are shut. A channel with a {@link TlsHandler} sends
     * {@code close_notify} before its output is shut down ({@link TlsHandler#closeOutbound()}).
     */
    public static void shutdownOutputAfterFlush(Channel ch) {
        if (!ch.isOpen()) {
            return;
        }
        ch.flush();
        TlsHandler tls = ch.pipeline().get(TlsHandler.class);
        if (tls != null && ch instanceof DuplexChannel d) {
            if (d.isOutputShutdown()) {
                closeIfShutdown(d);
                return;
            }
            tls.closeOutbound().addListener(f -> {
                if (f.isSuccess()) {
                    closeIfShutdown(d);
                } else {
                    d.close();
                }
            });
            return;
        }
        if (ch instanceof DuplexChannel d) {
            if (d.isOutputShutdown()) {
                closeIfShutdown(d);
                return;
            }
            d.shutdownOutput().addListener(f -> {
                if (f.isSuccess()) {
                    closeIfShutdown(d);
                } else {
                    d.close();
                }
            });
        } else {
            closeAfterFlush(ch);
        }
    }

    /**
     * Turns reading of {@code ch} back on, in a task of its event loop rather than right now: writability events fire
     * from inside the channel core's write loop, and turning auto-read on delivers input at once (what was read ahead
     * while reading was off), whose writes and flush would then run nested in that write loop, where a flush is not
     * acted on. From a fresh task they run as any other read.
     */
    public static void resumeReading(Channel ch) {
        ch.eventLoop().execute(() -> {
            if (ch.isOpen() && !ch.config().isAutoRead()) {
                ch.config().setAutoRead(true);
            }
        });
    }

    /** Closes {@code ch} when it is a duplex channel whose input and output are both shut down. */
    public static void closeIfShutdown(Channel ch) {
        if (ch instanceof DuplexChannel d && d.isInputShutdown() && d.isOutputShutdown() && d.isOpen()) {
            d.close();
        }
    }

    /**
     * How long {@link #closeAfterFlush} waits for the flush, in milliseconds, before it closes the channel anyway
     * (test hook; 30 s, like a proxy's {@code timeout client-fin})
     */
    static volatile long closeAfterFlushTimeoutMillis = 30_000;

    /**
     * Flushes what was written to {@code ch} and closes it once that flush completes (successfully or not), or after
     * {@code closeAfterFlushTimeoutMillis} (30 s) when it has not completed by then: a peer that stopped reading must
     * not keep the channel, and what it holds, open for good.
     */
    public static void closeAfterFlush(Channel ch) {
        if (!ch.isOpen()) {
            return;
        }
        ch.writeAndFlush(ch.alloc().buffer(0)).addListener(f -> ch.close());
        if (ch.isOpen()) {
            ScheduledFuture<?> deadline = ch.eventLoop().schedule(() -> {
                ch.close();
            }, closeAfterFlushTimeoutMillis, TimeUnit.MILLISECONDS);
            ch.closeFuture().addListener(f -> deadline.cancel(false));
        }
    }
}
