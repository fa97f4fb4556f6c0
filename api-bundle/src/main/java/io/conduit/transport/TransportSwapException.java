package io.conduit.transport;

import java.io.IOException;

/**
 * A connection was closed by a transport swap of a {@link ManagedServer} before all of its writes were flushed.
 * It is the cause of the {@link io.conduit.channel.ChannelClosedException} that fails each such write's promise;
 * the message names the server's address, the old and new transports and the grace period that ran out.
 */
public class TransportSwapException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message names the server, the transports and what ran out */
    public TransportSwapException(String message) {
        super(message);
    }
}
