package io.conduit.transport;

/**
 * A transport that was asked for cannot be used. The message names the transport and why; the cause is the
 * transport's unavailability cause with every failed attempt attached.
 */
public class UnavailableTransportException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message names the transport and the reason
     * @param cause the unavailability cause, or {@code null}
     */
    public UnavailableTransportException(String message, Throwable cause) {
        super(message, cause);
    }
}
