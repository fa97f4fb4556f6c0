package io.conduit.handler.proxy;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The {@code PP2_TYPE_SSL} TLV: whether the client used TLS, whether its certificate was verified, and the
 * session's version, certificate common name, cipher, signature and key algorithms (sub-TLVs). Immutable.
 *
 * @param client the {@code PP2_CLIENT_*} bits: 0x01 SSL, 0x02 certificate sent on this connection, 0x04 on the
 *        session
 * @param verify 0 when the client's certificate was verified, otherwise non-zero
 * @param version the TLS version, e.g. {@code "TLSv1.3"}
 * @param commonName the client certificate's subject common name
 * @param cipher the cipher, e.g. {@code "ECDHE-RSA-AES128-GCM-SHA256"}
 * @param signatureAlgorithm the certificate's signature algorithm
 * @param keyAlgorithm the certificate's key algorithm
 */
public record ProxySslInfo(int client, long verify, Optional<String> version, Optional<String> commonName,
        Optional<String> cipher, Optional<String> signatureAlgorithm, Optional<String> keyAlgorithm) {

    /** {@code client} bit: the client connected over TLS. */
    public static final int CLIENT_SSL = 0x01;
    /** {@code client} bit: the client sent a certificate on this connection. */
    public static final int CLIENT_CERT_CONN = 0x02;
    /** {@code client} bit: the client sent a certificate on this TLS session. */
    public static final int CLIENT_CERT_SESS = 0x04;

    static final int SUBTYPE_VERSION = 0x21;
    static final int SUBTYPE_CN = 0x22;
    static final int SUBTYPE_CIPHER = 0x23;
    static final int SUBTYPE_SIG_ALG = 0x24;
    static final int SUBTYPE_KEY_ALG = 0x25;

    /** @return {@code true} when the client connected over TLS */
    public boolean isSsl() {
        return (client & CLIENT_SSL) != 0;
    }

    /**
     * Parses the SSL TLV's value; the decoder has checked its structure.
     *
     * @throws IllegalArgumentException when the value is shorter than 5 bytes or a sub-TLV overruns it
     */
    static ProxySslInfo parse(ProxyTlv tlv) {
        byte[] v = tlv.value();
        if (v.length < 5) {
            throw new IllegalArgumentException("SSL TLV of " + v.length + " bytes; it needs at least 5");
        }
        int client = v[0] & 0xFF;
        long verify = ((v[1] & 0xFFL) << 24) | ((v[2] & 0xFF) << 16) | ((v[3] & 0xFF) << 8) | (v[4] & 0xFF);
        String[] sub = new String[5];
        int i = 5;
        while (i < v.length) {
            if (v.length - i < 3) {
                throw new IllegalArgumentException("SSL sub-TLV header at offset " + i + " is cut short");
            }
            int type = v[i] & 0xFF;
            int len = ((v[i + 1] & 0xFF) << 8) | (v[i + 2] & 0xFF);
            if (v.length - i - 3 < len) {
                throw new IllegalArgumentException("SSL sub-TLV 0x" + Integer.toHexString(type) + " of " + len
                        + " bytes overruns the SSL TLV");
            }
            if (type >= SUBTYPE_VERSION && type <= SUBTYPE_KEY_ALG) {
                sub[type - SUBTYPE_VERSION] = new String(v, i + 3, len, StandardCharsets.UTF_8);
            }
            i += 3 + len;
        }
        return new ProxySslInfo(client, verify, Optional.ofNullable(sub[0]), Optional.ofNullable(sub[1]),
                Optional.ofNullable(sub[2]), Optional.ofNullable(sub[3]), Optional.ofNullable(sub[4]));
    }
}
