package io.conduit.channel;

import io.conduit.concurrent.Future;

/**
 * Optional capability of a stream channel: forward everything it reads to another stream channel inside the kernel,
 * without copying the bytes through Java buffers. On the {@code epoll} and {@code io_uring} transports this is Linux
 * {@code splice(2)} (see its man page) through one kernel pipe per forwarding direction, created on the first byte;
 * other transports, and pairs the transport cannot splice (e.g. a Unix-domain socket and a TCP socket, or channels of
 * two transports or two event loops), answer {@code false} to {@link #canForwardTo}, and the caller keeps its usual
 * copy path:
 *
 * <pre>{@code
 * if (client instanceof ZeroCopyForwarding z && z.canForwardTo(upstream)) {
 *     z.forwardTo(upstream);
 * } // else: read and write as usual
 * }</pre>
 *
 * <p>While this channel forwards:
 * <ul>
 *   <li>its pipeline receives no {@code channelRead}; {@code AUTO_READ} and {@code read()} have no effect on it;
 *       input read ahead before forwarding began is delivered through the pipeline first;</li>
 *   <li><b>back-pressure</b>: bytes wait in the kernel (this socket's receive buffer and the pipe, 64 KiB by default),
 *       not in Java memory (on io_uring, bytes a receive had already taken when forwarding began, at most one
 *       receive buffer, are written into the pipe first); while the target's send buffer is full, nothing more is
 *       taken from this channel's socket, so its peer's sender is slowed down by TCP flow control;</li>
 *   <li><b>ordering</b>: bytes written to the target through its pipeline are sent before bytes spliced afterwards
 *       (the pipe waits for the target's flushed writes to drain);</li>
 *   <li><b>end of stream</b>: once this channel's peer shuts its output down and every byte has reached the
 *       target, forwarding ends, the returned future succeeds, and the end of stream is then handled by this
 *       channel as usual ({@link InputShutdownEvent} with {@code ALLOW_HALF_CLOSURE}, else a close), so a handler
 *       can propagate it, e.g. with {@link DuplexChannel#shutdownOutput()} of the target;</li>
 *   <li><b>errors</b>: an I/O error on either socket fires {@code exceptionCaught} on that channel's pipeline,
 *       closes both channels with it as the cause, and fails the future with it;</li>
 *   <li><b>close</b>: when either channel closes first, forwarding stops (bytes still in the pipe are dropped with
 *       the connection) and the future fails with a {@link ChannelClosedException}.</li>
 * </ul>
 *
 * <p>Both counters of {@code conduit:channels} keep counting: spliced bytes are read bytes of this channel and written
 * bytes of the target. Thread-safe; the work happens on the channels' (shared) event loop.
 */
public interface ZeroCopyForwarding {

    /**
     * @param target the channel to forward to
     * @return {@code true} when {@link #forwardTo} would splice: both are open stream channels of a transport that
     *         can splice between them, on the same event loop, and neither takes part in forwarding in that role yet
     */
    boolean canForwardTo(Channel target);

    /**
     * Starts forwarding this channel's input to {@code target} until end of stream, an error, or a close.
     *
     * @param target an open, connected stream channel for which {@link #canForwardTo} is {@code true}
     * @return succeeds after the end of stream was reached and every byte handed to the target's socket; fails with
     *         {@link UnsupportedOperationException} when {@code canForwardTo(target)} is {@code false} (nothing
     *         changed then), with the I/O error, or with a {@link ChannelClosedException}
     */
    Future<Void> forwardTo(Channel target);
}
