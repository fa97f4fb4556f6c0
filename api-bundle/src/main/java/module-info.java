/**
 * Conduit API: channels, pipelines, event loops, buffers, transport selection and the provider SPI.
 */
module io.conduit.api {
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.conduit.buffer;
    exports io.conduit.concurrent;
    exports io.conduit.channel;
    exports io.conduit.channel.embedded;
    exports io.conduit.transport;
    exports io.conduit.transport.spi;

    uses io.conduit.transport.spi.TransportProvider;
}
