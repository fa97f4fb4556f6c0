/**
 * Conduit API: channels, pipelines, event loops, buffers, transport selection and the provider SPI.
 */
module io.conduit.api {
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    // The OSGi runtime (io.conduit.internal.osgi) is only loaded inside a framework.
    requires static org.osgi.framework;
    requires static org.osgi.util.tracker;
    requires static org.osgi.service.cm;
    // JMX views of the metrics (io.conduit.metrics); part of every full JDK
    requires java.management;

    exports io.conduit.bootstrap;
    exports io.conduit.buffer;
    exports io.conduit.concurrent;
    exports io.conduit.channel;
    exports io.conduit.channel.embedded;
    exports io.conduit.transport;
    exports io.conduit.transport.spi;
    exports io.conduit.transport.spi.core;
    exports io.conduit.transport.spi.unix;
    exports io.conduit.metrics;

    uses io.conduit.transport.spi.TransportProvider;
}
