package io.conduit.gateway.internal.status;

import java.util.Hashtable;
import java.util.List;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * Publishes a {@link GatewayStatus} for one component once its endpoints are settled, and withdraws it on
 * deactivation. Thread-safe: the registration is guarded by {@code this}.
 */
public final class ComponentStatus implements GatewayStatus {

    private final String name;
    private final String pid;
    private final String kind;
    private final ComponentEndpoints listeners;
    /** Guarded by this; {@code null} before {@link #publish} and after {@link #withdraw}. */
    private ServiceRegistration<GatewayStatus> registration;
    /** Guarded by this. */
    private boolean withdrawn;

    public ComponentStatus(String name, String pid, String kind, ComponentEndpoints listeners) {
        this.name = name;
        this.pid = pid;
        this.kind = kind;
        this.listeners = listeners;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String pid() {
        return pid;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public List<String> listening() {
        return listeners.listening();
    }

    @Override
    public List<String> bindings() {
        return listeners.bindings();
    }

    @Override
    public List<String> failures() {
        return listeners.failures();
    }

    @Override
    public Now now() {
        return listeners.now();
    }

    /** Registers the status service with the facts as service properties; ignored after {@link #withdraw()}. */
    public synchronized void publish(BundleContext context) {
        if (withdrawn || registration != null) {
            return;
        }
        try {
            registration = context.registerService(GatewayStatus.class, this, properties());
        } catch (IllegalStateException bundleStopping) {
            // the bundle is stopping: nothing to publish to
        }
    }

    /**
     * Gives the published service the current facts (an endpoint that waited for a capable transport is bound now);
     * nothing before {@link #publish} or after {@link #withdraw()}.
     */
    public synchronized void update() {
        if (registration == null) {
            return;
        }
        try {
            registration.setProperties(properties());
        } catch (IllegalStateException alreadyGone) {
            // unregistered by the framework when the bundle stopped
        }
    }

    private Hashtable<String, Object> properties() {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(PROP_NAME, name);
        props.put(PROP_PID, pid);
        props.put(PROP_KIND, kind);
        props.put(PROP_LISTENING, listening().toArray(new String[0]));
        props.put(PROP_FAILURES, failures().toArray(new String[0]));
        return props;
    }

    /** Unregisters the status service; idempotent. */
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
