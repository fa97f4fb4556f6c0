package io.conduit.handler.ssl;

import javax.net.ssl.SSLHandshakeException;

/** A TLS handshake did not complete within the context's handshake timeout. */
public class TlsHandshakeTimeoutException extends SSLHandshakeException {

    private static final long serialVersionUID = 1L;

    /** @param message which channel and how long */
    public TlsHandshakeTimeoutException(String message) {
        super(message);
    }
}
