package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What the event loop tells its {@link IoHandler} for one {@link IoHandler#run(IoHandlerContext)} call.
 * Valid only during that call, on the loop thread.
 */
@ProviderType
public interface IoHandlerContext {

    /** @return {@code true} when the handler may block waiting for I/O (no task is ready to run) */
    boolean canBlock();

    /**
     * @param currentTimeNanos now, from {@link System#nanoTime()}
     * @return nanoseconds until the earliest scheduled task is due (0 when overdue), or {@code -1} when none is scheduled.
     *         Up to {@code Long.MAX_VALUE} for a task that is never due: clamp before handing it to the kernel
     *         (e.g. {@code timerfd_settime}, {@code epoll_wait}). While the loop shuts down gracefully this is the
     *         time until the quiet period or timeout ends.
     */
    long delayNanos(long currentTimeNanos);

    /**
     * @return the {@link System#nanoTime()} deadline of the earliest scheduled task ({@code Long.MAX_VALUE} = never
     *         due), or {@code -1} when none; unchanged deadlines let a handler skip re-arming its timer
     */
    long deadlineNanos();

    /**
     * The handler is about to block in its poller ({@code epoll_wait}, {@code kevent}, {@code select}, a park); call
     * {@link #waitEnded()} right after it returns. The loop counts the time in between as waiting, the rest as
     * busy (its utilisation metric). Only around a wait that may block, not around a poll that returns at once.
     *
     * @since 0.7.0
     */
    default void waitStarting() {
    }

    /**
     * The blocking wait announced by {@link #waitStarting()} returned.
     *
     * @since 0.7.0
     */
    default void waitEnded() {
    }
}
