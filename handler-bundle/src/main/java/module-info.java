/**
 * Conduit handlers above the API: framing codecs, idle and read/write timeouts, connection and byte-rate
 * limits, the PROXY protocol, a logging handler and TLS. Depends on the API; TLS reads PEM keys with
 * BouncyCastle, an optional dependency.
 */
module io.conduit.handler {
    requires transitive io.conduit.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    requires static org.bouncycastle.pkix;
    requires static org.bouncycastle.provider;
    requires static org.bouncycastle.util;

    exports io.conduit.handler.codec;
    exports io.conduit.handler.timeout;
    exports io.conduit.handler.limit;
    exports io.conduit.handler.proxy;
    exports io.conduit.handler.logging;
    exports io.conduit.handler.ssl;
}
