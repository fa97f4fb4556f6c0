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
     * @return nanoseconds until the earliest scheduled task is due (0 when overdue), or {@code -1} when none is scheduled
     */
    long delayNanos(long currentTimeNanos);

    /** @return the {@link System#nanoTime()} deadline of the earliest scheduled task, or {@code -1} when none */
    long deadlineNanos();
}
