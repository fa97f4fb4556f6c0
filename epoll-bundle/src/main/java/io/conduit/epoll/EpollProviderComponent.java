package io.conduit.epoll;

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
 * Registers the {@code epoll} {@link TransportProvider} as an OSGi service while the epoll bundle is active, with
 * the service properties {@code conduit.transport.name=epoll}, {@code conduit.transport.available} (the result of
 * {@link Epoll}'s one-time probe, which loads the fragment's library from this bundle's class) and
 * {@code service.ranking=100}.
 *
 * <p>An immediate Declarative Services component that registers the service itself, because availability is
 * only known at run time. Outside OSGi this class is never loaded; {@link java.util.ServiceLoader} finds
 * {@link EpollTransportProvider} there.
 *
 * <p>SCR calls {@link #activate} and {@link #deactivate} one after the other, never concurrently.
 */
@Component(immediate = true, service = {})
public final class EpollProviderComponent {

    /** Written by activate, read by deactivate (SCR orders the two calls). */
    private ServiceRegistration<TransportProvider> registration;

    @Activate
    void activate(BundleContext context) {
        TransportProvider provider = new EpollTransportProvider();
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
