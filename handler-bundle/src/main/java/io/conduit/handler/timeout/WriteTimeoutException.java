package io.conduit.handler.timeout;

/**
 * A write did not complete within the write timeout; fired by {@link WriteTimeoutHandler} before it closes the
 * channel, and the cause the write's promise fails with when the close fails it.
 */
public class WriteTimeoutException extends TimeoutException {
    private static final long serialVersionUID = 1L;

    /** @param message the timeout and the channel */
    public WriteTimeoutException(String message) {
        super(message);
    }
}
