package io.conduit.handler.ssl;

import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What a completed TLS handshake negotiated. Later handlers find it through
 * {@link TlsHandler#handshakeResult()} or the {@link TlsHandshakeCompletionEvent}.
 *
 * @param protocol            the protocol, e.g. {@code TLSv1.3}
 * @param cipherSuite         the cipher suite, e.g. {@code TLS_AES_128_GCM_SHA256}
 * @param applicationProtocol the ALPN protocol, or null when none was negotiated
 * @param serverName          the server name (SNI) the client sent, or null when it sent none
 * @param peerCertificates    the peer's verified certificate chain, its own certificate first; empty when the peer
 *                            sent none (a client where client authentication is not required)
 * @param resumed             whether the handshake resumed an earlier session (no certificates were exchanged)
 */
public record TlsHandshakeResult(String protocol, String cipherSuite, String applicationProtocol, String serverName,
        List<X509Certificate> peerCertificates, boolean resumed) {

    public TlsHandshakeResult {
        peerCertificates = List.copyOf(peerCertificates);
    }

    /** @return the subject of the peer's certificate, or null when the peer sent none */
    public String peerSubject() {
        return peerCertificates.isEmpty() ? null : peerCertificates.get(0).getSubjectX500Principal().getName();
    }
}
