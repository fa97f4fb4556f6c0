package io.conduit.handler.ssl;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

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

    /**
     * Reads a completed handshake's session.
     *
     * @param alpn       what {@code SSLEngine.getApplicationProtocol()} returned ({@code ""} or null: none)
     * @param serverName the name the client sent, or null
     */
    static TlsHandshakeResult of(SSLSession s, String alpn, String serverName, boolean resumed) {
        List<X509Certificate> peerCerts = new ArrayList<>();
        try {
            for (Certificate c : s.getPeerCertificates()) {
                peerCerts.add((X509Certificate) c);
            }
        } catch (SSLPeerUnverifiedException e) {
            // the peer sent no certificate (a client where client authentication is not required)
        }
        return new TlsHandshakeResult(s.getProtocol(), s.getCipherSuite(), alpn == null || alpn.isEmpty() ? null : alpn,
                serverName, peerCerts, resumed);
    }

    /** @return the host name a client sent in its SNI extension, as a server's session holds it; null when none */
    static String requestedName(SSLSession s) {
        if (s instanceof ExtendedSSLSession e) {
            for (SNIServerName n : e.getRequestedServerNames()) {
                if (n instanceof SNIHostName h) {
                    return h.getAsciiName();
                }
            }
        }
        return null;
    }
}
