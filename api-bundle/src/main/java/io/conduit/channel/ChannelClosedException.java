package io.conduit.channel;

import java.nio.channels.ClosedChannelException;

/**
 * The channel is closed: an operation was attempted on it, or a write was still pending when it closed.
 * The message says which operation and why the channel closed; the close cause, if any, is the cause.
 */
public class ChannelClosedException extends ClosedChannelException {
    private static final long serialVersionUID = 1L;

    private final String message;

    /**
     * @param message what was attempted and why the channel is closed
     * @param cause what closed the channel, or {@code null}
     */
    public ChannelClosedException(String message, Throwable cause) {
        this.message = message;
        if (cause != null) {
            initCause(cause);
        }
    }

    @Override
    public String getMessage() {
        return message;
    }
}
