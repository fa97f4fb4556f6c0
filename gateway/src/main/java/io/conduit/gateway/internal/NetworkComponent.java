package io.conduit.gateway.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Hashtable;

import io.conduit.transport.Transport;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The gateway's {@link Network}: checks that a transport can be selected ({@link Transports#selected()}, so
 * {@code conduit.transport} and friends apply) and registers the network as a service with the selection as properties ({@code conduit.transport.name},
 * {@code conduit.transport.selection}: {@link TransportSelection#explain()}), which the launcher's banner prints. The
 * network's endpoints make their own event loops on whatever transport is selected and follow it (see
 * {@link BootstrapNetwork}), so no group of the start-up transport is kept running here.
 *
 * <p>Transport bundles that only carry a {@code META-INF/services} registration (no OSGi service and no Service
 * Loader Mediator in the framework) are found by scanning the installed bundles for that file, and their providers
 * are {@linkplain Transports#register registered}; a provider already known by name is left alone.
 */
@Component(service = {}, immediate = true)
public final class NetworkComponent {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");
    private static final String SERVICES_FILE = "META-INF/services/" + TransportProvider.class.getName();

    /** The {@link Network}, or the {@link NoNetwork} when no transport could be selected. */
    private final ServiceRegistration<?> registration;

    /**
     * Selects the transport and registers the network; when no transport can be selected, logs one ERROR line (the
     * selection error: what is wrong and what to do), registers a {@link NoNetwork} instead and does not throw
     * (a throw here would only add a framework stack trace to the same message).
     *
     * @param context this bundle's context
     */
    @Activate
    public NetworkComponent(BundleContext context) {
        registerServiceLoaderProviders(context);
        TransportSelection selection = Transports.selection();
        Transport transport;
        try {
            transport = Transports.selected();
        } catch (RuntimeException | LinkageError e) {
            String problem = problem(e);
            LOG.log(System.Logger.Level.ERROR, "no network: " + problem);
            Hashtable<String, Object> props = new Hashtable<>();
            props.put(NoNetwork.PROP_PROBLEM, problem);
            props.put("conduit.transport.selection", selection.explain());
            registration = context.registerService(NoNetwork.class, () -> problem, props);
            return;
        }
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("conduit.transport.name", transport.name());
        props.put("conduit.transport.selection", selection.explain());
        registration = context.registerService(Network.class, new BootstrapNetwork(transport), props);
    }

    /** @return the selection error on one line, e.g. the message of an {@code UnavailableTransportException} */
    static String problem(Throwable e) {
        String m = e.getMessage();
        String text = m == null || m.isBlank() ? e.toString() : m;
        return text.strip().replaceAll("\\s*\\R\\s*", "; ")
                + " (fix conduit.transport / conduit.transport.strict / conduit.noNative, e.g. in JAVA_OPTS, and "
                + "restart)";
    }

    /** Withdraws the network (each endpoint's component closes its own endpoints and their event loops). */
    @Deactivate
    public void deactivate() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregistered it
        }
    }

    private static void registerServiceLoaderProviders(BundleContext context) {
        for (Bundle b : context.getBundles()) {
            if (b.getState() == Bundle.UNINSTALLED || b.getBundleId() == 0) {
                continue;
            }
            URL file = b.getEntry(SERVICES_FILE);
            if (file == null) {
                continue;
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(file.openStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    int hash = line.indexOf('#');
                    String name = (hash >= 0 ? line.substring(0, hash) : line).strip();
                    if (name.isEmpty()) {
                        continue;
                    }
                    try {
                        Object p = b.loadClass(name).getConstructor().newInstance();
                        if (p instanceof TransportProvider provider) {
                            Transports.register(provider);
                        }
                    } catch (ReflectiveOperationException | LinkageError e) {
                        LOG.log(System.Logger.Level.WARNING, "transport provider " + name + " of bundle "
                                + b.getSymbolicName() + " cannot be loaded: " + e);
                    }
                }
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot read " + SERVICES_FILE + " of bundle "
                        + b.getSymbolicName() + ": " + e);
            }
        }
    }
}
