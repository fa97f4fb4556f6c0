/**
 * Conduit handlers above the API: framing codecs, idle and read/write timeouts, connection and byte-rate
 * limits, the PROXY protocol and a logging handler. Depends on the API only.
 */
module io.conduit.handler {
    requires transitive io.conduit.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.conduit.handler.codec;
    exports io.conduit.handler.timeout;
    exports io.conduit.handler.limit;
    exports io.conduit.handler.proxy;
    exports io.conduit.handler.logging;
}
