package io.conduit.internal.nio;

import io.conduit.transport.spi.ProviderRegistration;
import io.conduit.transport.spi.TransportProvider;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Registers the {@code nio-vthread} {@link TransportProvider} as an OSGi service while the nio bundle is active,
 * with the service properties {@code conduit.transport.name=nio-vthread}, {@code conduit.transport.available}
 * and {@code service.ranking=5}.
 *
 * <p>A Declarative Services component like {@link NioTransportProvider}, but an immediate one that registers the
 * service itself: DS service properties are fixed when the bundle is built, and whether this transport is
 * available (a 21+ JVM) is only known at run time. Outside OSGi this class is never loaded; the provider is found
 * through {@link java.util.ServiceLoader} there.
 *
 * <p>SCR calls {@link #activate} and {@link #deactivate} one after the other, never concurrently.
 */
@Component(immediate = true, service = {})
public final class VirtualThreadProviderComponent {

    /** Written by activate, read by deactivate (SCR orders the two calls). */
    private ProviderRegistration registration;

    @Activate
    void activate(BundleContext context) {
        registration = ProviderRegistration.register(context, new NioVirtualThreadTransportProvider());
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
    }
}
