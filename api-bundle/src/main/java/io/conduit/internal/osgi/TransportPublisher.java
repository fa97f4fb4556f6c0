package io.conduit.internal.osgi;

import java.util.Dictionary;
import java.util.Hashtable;

import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportChangeListener;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.UnavailableTransportException;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Follows the registry's selection: publishes the selected {@link Transport} as an OSGi service and forwards every
 * change to the {@link TransportChangeListener} services of the whiteboard.
 *
 * <p><b>The {@code Transport} service</b> has the properties {@value #NAME_PROPERTY} (the transport name),
 * {@value #NATIVE_PROPERTY} and {@code service.ranking} (the provider's ranking). When the selection changes the
 * old registration is removed and a new one is made (a new {@code service.id}); while nothing is selected no
 * {@code Transport} service exists.
 *
 * <p><b>Whiteboard listeners</b> are called after the service was re-published, on the thread that delivers the
 * registry's event (see {@link TransportChangeListener}), after the programmatic listeners added before this one.
 * A listener service registered later hears about later changes only (the same rule as
 * {@link io.conduit.transport.Transports#addListener}); it can read the current state from
 * {@link io.conduit.transport.Transports#selection()} or from the {@code Transport} service.
 *
 * <p>Thread-safe: publication is serialized by {@link #lock}.
 */
final class TransportPublisher implements TransportChangeListener {

    /** Service property: the transport name. */
    static final String NAME_PROPERTY = "conduit.transport.name";
    /** Service property: {@code Boolean}, whether the transport is native. */
    static final String NATIVE_PROPERTY = "conduit.transport.native";

    private static final System.Logger LOG = System.getLogger(TransportRegistry.LOGGER_NAME);

    private final BundleContext context;
    private final TransportRegistry registry;
    private final ServiceTracker<TransportChangeListener, TransportChangeListener> whiteboard;

    /** Guards the three fields below. */
    private final Object lock = new Object();
    /** Guarded by lock: the transport last published, or {@code null}. */
    private Transport published;
    /** Guarded by lock: its registration, or {@code null}. */
    private ServiceRegistration<Transport> registration;
    /** Guarded by lock: set by {@link #close()}; nothing is published afterwards. */
    private boolean closed;

    TransportPublisher(BundleContext context, TransportRegistry registry,
            ServiceTracker<TransportChangeListener, TransportChangeListener> whiteboard) {
        this.context = context;
        this.registry = registry;
        this.whiteboard = whiteboard;
    }

    @Override
    public void transportChanged(Transport previous, Transport current) {
        sync();
        Object[] services = whiteboard.getServices();
        if (services == null) {
            return;
        }
        for (Object o : services) {
            TransportChangeListener l = (TransportChangeListener) o;
            try {
                l.transportChanged(previous, current);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "TransportChangeListener service " + l + " failed", e);
            }
        }
    }

    /**
     * Makes the published service match the current selection. Reads the selection itself rather than trusting an
     * event, so a call that races with (or is nested in) another one still ends with the right service.
     */
    void sync() {
        Transport current = selectedOrNull();
        synchronized (lock) {
            if (closed || current == published) {
                return;
            }
            if (registration != null) {
                unregister(registration);
                registration = null;
            }
            published = current;
            if (current == null) {
                return;
            }
            ServiceRegistration<Transport> reg = context.registerService(Transport.class, current,
                    properties(current));
            if (published != current || closed) {
                // a nested call (from a service listener of this registration) published something newer
                unregister(reg);
            } else {
                registration = reg;
            }
        }
    }

    /** Unregisters the service; later events publish nothing. */
    void close() {
        synchronized (lock) {
            closed = true;
            if (registration != null) {
                unregister(registration);
                registration = null;
            }
            published = null;
        }
    }

    private Dictionary<String, Object> properties(Transport t) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(NAME_PROPERTY, t.name());
        props.put(NATIVE_PROPERTY, t.isNative());
        TransportSelection s = registry.selection();
        int ranking = s.candidate(t.name()).map(TransportSelection.Candidate::ranking).orElse(0);
        props.put(Constants.SERVICE_RANKING, ranking);
        props.put(Constants.SERVICE_DESCRIPTION, "the Conduit transport selected now (" + t.name() + ")");
        return props;
    }

    private Transport selectedOrNull() {
        try {
            return registry.selected();
        } catch (UnavailableTransportException e) {
            return null;
        }
    }

    private static void unregister(ServiceRegistration<?> reg) {
        try {
            reg.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework already removed it (the bundle is stopping)
        }
    }
}
