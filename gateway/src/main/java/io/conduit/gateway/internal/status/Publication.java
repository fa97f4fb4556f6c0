package io.conduit.gateway.internal.status;

import java.util.Dictionary;
import java.util.function.Supplier;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * One service a component registers at most once and withdraws once: {@link #publish} after {@link #withdraw()} does
 * nothing, and a bundle that stops meanwhile (the framework then unregisters everything itself) is not an error.
 *
 * <p>Thread-safe: the registration is guarded by {@code this}.
 *
 * @param <S> the service type
 */
public final class Publication<S> {

    private final Class<S> type;
    private final S service;
    /** Guarded by this; {@code null} before {@link #publish} and after {@link #withdraw}. */
    private ServiceRegistration<S> registration;
    /** Guarded by this. */
    private boolean withdrawn;

    /**
     * @param type    the service interface
     * @param service the service object
     */
    public Publication(Class<S> type, S service) {
        this.type = type;
        this.service = service;
    }

    /**
     * Registers the service; ignored when registered already or after {@link #withdraw()}.
     *
     * @param properties its service properties, made under this object's lock, so they are never older than those of
     *                   a later {@link #update}
     */
    public synchronized void publish(BundleContext context, Supplier<? extends Dictionary<String, ?>> properties) {
        if (withdrawn || registration != null) {
            return;
        }
        try {
            registration = context.registerService(type, service, properties.get());
        } catch (IllegalStateException bundleStopping) {
            // the bundle is stopping: nothing to publish to
        }
    }

    /**
     * Gives the registered service new properties; nothing before {@link #publish} or after {@link #withdraw()}.
     *
     * @param properties the new properties, made under this object's lock (updates apply in the order they are made)
     */
    public synchronized void update(Supplier<? extends Dictionary<String, ?>> properties) {
        if (registration == null) {
            return;
        }
        try {
            registration.setProperties(properties.get());
        } catch (IllegalStateException alreadyGone) {
            // unregistered by the framework when the bundle stopped
        }
    }

    /** Unregisters the service; idempotent. */
    public synchronized void withdraw() {
        withdrawn = true;
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // unregistered by the framework when the bundle stopped
            }
            registration = null;
        }
    }
}
