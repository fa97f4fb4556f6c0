package io.conduit.handler.timeout;

/** A channel timed out; the channel is closed. Unchecked, so it can go through {@code exceptionCaught}. */
public class TimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message the timeout and the channel */
    public TimeoutException(String message) {
        super(message);
    }
}
