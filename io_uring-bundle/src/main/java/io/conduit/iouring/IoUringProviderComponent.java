package io.conduit.iouring;

import io.conduit.transport.spi.ProviderRegistration;
import io.conduit.transport.spi.TransportProvider;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Registers the {@code io_uring} {@link TransportProvider} as an OSGi service while the io_uring bundle is active, with
 * the service properties {@code conduit.transport.name=io_uring}, {@code conduit.transport.available} (the result of
 * {@link IoUring}'s one-time probe, which loads the fragment's library from this bundle's class) and
 * {@code service.ranking=50}.
 *
 * <p>An immediate Declarative Services component that registers the service itself, because availability is
 * only known at run time. Outside OSGi this class is never loaded; {@link java.util.ServiceLoader} finds
 * {@link IoUringTransportProvider} there.
 *
 * <p>SCR calls {@link #activate} and {@link #deactivate} one after the other, never concurrently.
 */
@Component(immediate = true, service = {})
public final class IoUringProviderComponent {

    /** Written by activate, read by deactivate (SCR orders the two calls). */
    private ProviderRegistration registration;

    @Activate
    void activate(BundleContext context) {
        registration = ProviderRegistration.register(context, new IoUringTransportProvider());
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
    }
}
