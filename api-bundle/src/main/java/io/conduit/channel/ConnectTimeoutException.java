package io.conduit.channel;

import java.net.ConnectException;

/** A connect attempt did not complete within {@link ChannelOption#CONNECT_TIMEOUT_MILLIS}. */
public class ConnectTimeoutException extends ConnectException {
    private static final long serialVersionUID = 1L;

    /** @param message the address and the timeout that elapsed */
    public ConnectTimeoutException(String message) {
        super(message);
    }
}
