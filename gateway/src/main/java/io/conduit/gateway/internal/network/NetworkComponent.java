package io.conduit.gateway.internal.network;

import java.util.Hashtable;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.conduit.gateway.services.GatewayServices;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The gateway's {@link Network}: checks that a transport can be selected ({@link Transports#selected()}, so
 * {@code conduit.transport} and friends apply) and registers the network as a service with the selection as
 * properties ({@code conduit.transport.name}, {@code conduit.transport.selection}: {@link TransportSelection#explain()}),
 * which the launcher's banner prints. The network's endpoints make their own event loops on whatever transport is
 * selected and follow it (see {@link BootstrapNetwork}), so no group of the start-up transport is kept running here.
 *
 * <p><b>Where the transports come from.</b> Inside the framework every transport is a {@code TransportProvider}
 * service of its bundle (Declarative Services), which the API bundle feeds into {@link Transports}; this component
 * never makes providers of its own, so a transport whose bundle stops is gone for the gateway too. While the
 * framework is still starting, transport bundles may not have registered their services yet (bundles start in
 * order, and SCR activates their components as it reaches them), so a selection made then could miss a transport
 * or, with {@code conduit.transport=nio} and {@code strict}, fail for good. The network is therefore registered once
 * the framework has started ({@link FrameworkEvent#STARTED}: every bundle of the start level is started and its
 * components are active), or at once when it runs already (the gateway bundle started or restarted later).
 *
 * <p>Thread-safe: the registration is guarded by {@code this}.
 */
@Component(service = {}, immediate = true)
public final class NetworkComponent {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    private final BundleContext context;
    /** Registers the network once the framework has started; {@code null} when it was running already. */
    private final FrameworkListener started;
    /** Guarded by this: the {@link Network}, or the {@link NoNetwork}; {@code null} until registered. */
    private ServiceRegistration<?> registration;
    /** Guarded by this. */
    private boolean deactivated;

    /**
     * Registers the network now when the framework runs, else once it has started. When no transport can be selected
     * it logs one ERROR line (the selection error: what is wrong and what to do), registers a {@link NoNetwork}
     * instead and does not throw (a throw would only add a framework stack trace to the same message).
     *
     * @param context this bundle's context
     */
    @Activate
    public NetworkComponent(BundleContext context) {
        this.context = context;
        Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        if (system == null || system.getState() == Bundle.ACTIVE) {
            started = null;
            register();
            return;
        }
        started = event -> {
            if (event.getType() == FrameworkEvent.STARTED) {
                register();
            }
        };
        context.addFrameworkListener(started);
        if (system.getState() == Bundle.ACTIVE) {
            register(); // STARTED came between the state check and addFrameworkListener
        }
    }

    /** Selects the transport and registers the network (or the {@link NoNetwork}); once. */
    private synchronized void register() {
        if (deactivated || registration != null) {
            return;
        }
        TransportSelection selection = Transports.selection();
        Transport transport;
        try {
            transport = Transports.selected();
        } catch (RuntimeException | LinkageError e) {
            String problem = problem(e);
            LOG.log(System.Logger.Level.ERROR, "no network: " + problem);
            Hashtable<String, Object> props = new Hashtable<>();
            props.put(NoNetwork.PROP_PROBLEM, problem);
            props.put(GatewayServices.TRANSPORT_SELECTION, selection.explain());
            registration = context.registerService(NoNetwork.class, () -> problem, props);
            return;
        }
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(GatewayServices.TRANSPORT_NAME, transport.name());
        props.put(GatewayServices.TRANSPORT_SELECTION, selection.explain());
        // while this bundle stops (exit, SIGTERM, the framework stopping), a close closes every endpoint at once
        Bundle self = context.getBundle();
        registration = context.registerService(Network.class, new BootstrapNetwork(this::noTransport,
                () -> self.getState() == Bundle.STOPPING), props);
    }

    /**
     * What an endpoint says while no transport can be selected: when no provider is registered because the API
     * bundle is stopped, to start it again; when transport bundles are installed but stopped (e.g. {@code stop} of
     * nio and epoll in the shell), which one to start again; otherwise the selection error. On the caller's thread;
     * never throws.
     */
    private String noTransport(RuntimeException selectionError) {
        if (Transports.providers().isEmpty()) {
            TransportBundles.Installed api = TransportBundles.stoppedApi(context);
            if (api != null) {
                return TransportBundles.apiStopped(api);
            }
            String start = TransportBundles.noneRegistered(TransportBundles.installed(context));
            if (start != null) {
                return start;
            }
        }
        return BootstrapNetwork.noTransportSelected(selectionError);
    }

    /** @return the selection error on one line, e.g. the message of an {@code UnavailableTransportException} */
    static String problem(Throwable e) {
        String m = e.getMessage();
        String text = m == null || m.isBlank() ? e.toString() : m;
        String line = text.strip().replaceAll("\\s*\\R\\s*", "; ");
        Set<String> invalid = new LinkedHashSet<>();
        Matcher named = INVALID_PROPERTY.matcher(line);
        while (named.find()) {
            invalid.add(named.group(1));
        }
        String fix = invalid.isEmpty()
                ? "conduit.transport / conduit.transport.strict / conduit.noNative"
                : String.join(" / ", invalid);
        return line + " (fix " + fix + ", e.g. in JAVA_OPTS, and restart)";
    }

    /** How the platform quotes a property in its errors: "conduit.x='value'" (the first malformed or unsatisfiable one). */
    private static final Pattern INVALID_PROPERTY =
            Pattern.compile("\\b(conduit\\.[A-Za-z0-9_.]+)='");

    /** Withdraws the network (each endpoint's component closes its own endpoints and their event loops). */
    @Deactivate
    public void deactivate() {
        if (started != null) {
            try {
                context.removeFrameworkListener(started);
            } catch (IllegalStateException bundleStopping) {
                // the context is no longer valid: the framework removed the listener
            }
        }
        ServiceRegistration<?> r;
        synchronized (this) {
            deactivated = true;
            r = registration;
            registration = null;
        }
        if (r != null) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregistered it
            }
        }
    }
}
