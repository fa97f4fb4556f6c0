package io.conduit.handler.ssl;

/** Whether a TLS server asks the client for a certificate. */
public enum ClientAuth {
    /** The server does not ask for a client certificate. */
    NONE,
    /** The server asks; a client without a certificate is accepted, a client with an untrusted one is not. */
    OPTIONAL,
    /** The server asks; a client without a trusted certificate fails the handshake. */
    REQUIRED
}
