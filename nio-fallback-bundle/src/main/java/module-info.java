/**
 * The pure-Java transports: {@code nio} (selectors) and {@code nio-vthread} (one virtual thread per
 * connection; needs a 21+ JVM at run time).
 */
module io.conduit.nio {
    requires io.conduit.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    // OSGi only: Declarative Services registration (VirtualThreadProviderComponent is loaded only by SCR).
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.framework;

    provides io.conduit.transport.spi.TransportProvider
            with io.conduit.internal.nio.NioTransportProvider, io.conduit.internal.nio.NioVirtualThreadTransportProvider;
}
