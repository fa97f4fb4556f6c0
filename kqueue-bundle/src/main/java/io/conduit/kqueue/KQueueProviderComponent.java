package io.conduit.kqueue;

import io.conduit.transport.spi.ProviderRegistration;
import io.conduit.transport.spi.TransportProvider;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Registers the {@code kqueue} {@link TransportProvider} as an OSGi service while the kqueue bundle is active, with
 * the service properties {@code conduit.transport.name=kqueue}, {@code conduit.transport.available} (the result of
 * {@link KQueue}'s one-time probe, which loads the OS/arch fragment's library from this bundle's class; on Linux the
 * transport is unavailable and the probe's cause says why) and {@code service.ranking=90}.
 *
 * <p>An immediate Declarative Services component that registers the service itself, because availability is
 * only known at run time. Outside OSGi this class is never loaded; {@link java.util.ServiceLoader} finds
 * {@link KQueueTransportProvider} there.
 *
 * <p>SCR calls {@link #activate} and {@link #deactivate} one after the other, never concurrently.
 */
@Component(immediate = true, service = {})
public final class KQueueProviderComponent {

    /** Written by activate, read by deactivate (SCR orders the two calls). */
    private ProviderRegistration registration;

    @Activate
    void activate(BundleContext context) {
        registration = ProviderRegistration.register(context, new KQueueTransportProvider());
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
    }
}
