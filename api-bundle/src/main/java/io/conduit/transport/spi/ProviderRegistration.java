package io.conduit.transport.spi;

import java.util.Dictionary;
import java.util.Hashtable;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;

/**
 * A {@link TransportProvider} registered as an OSGi service with the properties the API bundle's registry reads:
 * {@value #NAME_PROPERTY} (the provider's name), {@value #AVAILABLE_PROPERTY} (its availability, probed once when
 * registering: for a native transport this loads the library from the calling bundle's class) and
 * {@code service.ranking} (its ranking).
 *
 * <p>Meant for the Declarative Services component of each transport bundle: such a component is immediate, offers no
 * service of its own ({@code service = {}}) and registers the provider itself from {@code @Activate}, because
 * availability is only known at run time while DS service properties are fixed when the bundle is built. Outside
 * OSGi this class is never loaded ({@code org.osgi.framework} is an optional dependency of the API module).
 *
 * <p>Threading: {@link #register} and {@link #unregister} are meant to be called by SCR, which orders
 * activate/deactivate; {@link #unregister} may be called once.
 */
public final class ProviderRegistration {

    /** Service property: the provider's {@linkplain TransportProvider#name() name} ({@code String}). */
    public static final String NAME_PROPERTY = "conduit.transport.name";
    /** Service property: whether the transport was available when registered ({@code Boolean}). */
    public static final String AVAILABLE_PROPERTY = "conduit.transport.available";

    private final ServiceRegistration<TransportProvider> registration;

    private ProviderRegistration(ServiceRegistration<TransportProvider> registration) {
        this.registration = registration;
    }

    /**
     * Registers {@code provider} in {@code context} with the properties described above.
     *
     * @return the registration, to {@linkplain #unregister() unregister} on deactivation
     * @throws IllegalStateException when {@code context} is no longer valid (its bundle stopped)
     */
    public static ProviderRegistration register(BundleContext context, TransportProvider provider) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(NAME_PROPERTY, provider.name());
        props.put(AVAILABLE_PROPERTY, provider.availability().isAvailable());
        props.put(Constants.SERVICE_RANKING, provider.ranking());
        return new ProviderRegistration(context.registerService(TransportProvider.class, provider, props));
    }

    /** Removes the service; does nothing when the framework already removed it (a stopping bundle). */
    public void unregister() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters a stopping bundle's services itself
        }
    }
}
