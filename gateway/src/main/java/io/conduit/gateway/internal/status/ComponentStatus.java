package io.conduit.gateway.internal.status;

import java.util.Hashtable;
import java.util.List;

import org.osgi.framework.BundleContext;

/**
 * Publishes a {@link GatewayStatus} for one component once its endpoints are settled, and withdraws it on
 * deactivation. Thread-safe: the registration is a {@link Publication}.
 */
public final class ComponentStatus implements GatewayStatus {

    private final String name;
    private final String pid;
    private final String kind;
    private final ComponentEndpoints listeners;
    private final Publication<GatewayStatus> publication = new Publication<>(GatewayStatus.class, this);

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

    /**
     * @return whether the gateway launcher's banner is still to be printed ({@link
     *         io.conduit.gateway.services.GatewayServices#BANNER_PENDING_PROPERTY}): it will show each endpoint that
     *         listens, so the component logs no line for it; {@code false} after the banner and outside the launcher
     */
    public static boolean bannerPending(BundleContext context) {
        try {
            return context.getAllServiceReferences(null, "(" + io.conduit.gateway.services.GatewayServices
                    .BANNER_PENDING_PROPERTY + "=true)") != null;
        } catch (org.osgi.framework.InvalidSyntaxException | IllegalStateException e) {
            return false; // a constant filter; or the bundle stopped meanwhile
        }
    }

    /** Registers the status service with the facts as service properties; ignored after {@link #withdraw()}. */
    public void publish(BundleContext context) {
        publication.publish(context, this::properties);
    }

    /**
     * Gives the published service the current facts (an endpoint that waited for a capable transport is bound now);
     * nothing before {@link #publish} or after {@link #withdraw()}.
     */
    public void update() {
        publication.update(this::properties);
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
    public void withdraw() {
        publication.withdraw();
    }
}
