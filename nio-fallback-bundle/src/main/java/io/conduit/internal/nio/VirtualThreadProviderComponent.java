package io.conduit.internal.nio;

import java.util.Dictionary;
import java.util.Hashtable;

import io.conduit.transport.spi.TransportProvider;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
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
    private ServiceRegistration<TransportProvider> registration;

    @Activate
    void activate(BundleContext context) {
        TransportProvider provider = new NioVirtualThreadTransportProvider();
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("conduit.transport.name", provider.name());
        props.put("conduit.transport.available", provider.availability().isAvailable());
        props.put(Constants.SERVICE_RANKING, provider.ranking());
        registration = context.registerService(TransportProvider.class, provider, props);
    }

    @Deactivate
    void deactivate() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework removes a stopping bundle's services itself
        }
    }
}
