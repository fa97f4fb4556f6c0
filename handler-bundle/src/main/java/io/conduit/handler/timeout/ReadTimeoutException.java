package io.conduit.handler.timeout;

/**
 * Nothing was read for the read timeout; fired by {@link ReadTimeoutHandler} before it closes the channel.
 */
public class ReadTimeoutException extends TimeoutException {
    private static final long serialVersionUID = 1L;

    /** @param message the timeout and the channel */
    public ReadTimeoutException(String message) {
        super(message);
    }
}
