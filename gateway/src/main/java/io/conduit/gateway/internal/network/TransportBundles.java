package io.conduit.gateway.internal.network;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRevision;

/**
 * The transport bundles installed in the framework, so that "no transport is registered" can say what to do inside
 * the gateway: when transport bundles are installed but stopped (e.g. {@code stop <id>} of {@code io.conduit.nio}
 * and {@code io.conduit.epoll}), start one again, instead of the platform's "add the conduit-nio jar or bundle".
 *
 * <p>A transport bundle is one that declares a {@code TransportProvider} capability: the {@code osgi.service}
 * capability DS components get from bnd, or the {@code osgi.serviceloader} one of a {@code META-INF/services} entry
 * (fragments, such as the native libraries, declare neither). Stateless and thread-safe.
 */
final class TransportBundles {

    /** The service interface every transport provides. */
    static final String PROVIDER = "io.conduit.transport.spi.TransportProvider";

    private TransportBundles() {
    }

    /**
     * One installed transport bundle.
     *
     * @param id           the bundle id, as {@code lb} shows it
     * @param symbolicName e.g. {@code io.conduit.nio}
     * @param started      whether it is starting, active or stopping (it registers or has registered its provider)
     */
    record Installed(long id, String symbolicName, boolean started) {
    }

    /**
     * @param context any bundle's context of the framework
     * @return the installed transport bundles, by bundle id; empty when the context is no longer valid
     */
    static List<Installed> installed(BundleContext context) {
        List<Installed> out = new ArrayList<>();
        Bundle[] bundles;
        try {
            bundles = context.getBundles();
        } catch (IllegalStateException stopping) {
            return out;
        }
        for (Bundle b : bundles) {
            BundleRevision revision = b.adapt(BundleRevision.class);
            if (revision == null || !providesTransport(revision.getDeclaredCapabilities(null))) {
                continue; // uninstalled meanwhile, or not a transport bundle
            }
            boolean started = (b.getState() & (Bundle.STARTING | Bundle.ACTIVE | Bundle.STOPPING)) != 0;
            out.add(new Installed(b.getBundleId(), b.getSymbolicName(), started));
        }
        out.sort(java.util.Comparator.comparingLong(Installed::id));
        return out;
    }

    private static boolean providesTransport(List<BundleCapability> capabilities) {
        for (BundleCapability c : capabilities) {
            Object value = switch (c.getNamespace()) {
                case "osgi.service" -> c.getAttributes().get("objectClass");
                case "osgi.serviceloader" -> c.getAttributes().get("osgi.serviceloader");
                default -> null;
            };
            if (PROVIDER.equals(value) || value instanceof Collection<?> names && names.contains(PROVIDER)) {
                return true;
            }
        }
        return false;
    }

    /** Bundle-SymbolicName of the Conduit API bundle, whose activator keeps the registry of transports. */
    static final String API = "io.conduit.api";

    /**
     * @param context any bundle's context of the framework
     * @return the Conduit API bundle when it is installed but neither starting nor active (its registry of transports
     *         is then closed: it lists no transport although the transport bundles still run), else {@code null}
     */
    static Installed stoppedApi(BundleContext context) {
        Bundle[] bundles;
        try {
            bundles = context.getBundles();
        } catch (IllegalStateException stopping) {
            return null;
        }
        for (Bundle b : bundles) {
            if (API.equals(b.getSymbolicName()) && (b.getState() & (Bundle.STARTING | Bundle.ACTIVE)) == 0) {
                return new Installed(b.getBundleId(), b.getSymbolicName(), false);
            }
        }
        return null;
    }

    /**
     * What to say when no transport is registered because the API bundle is stopped.
     *
     * @param api the stopped API bundle ({@link #stoppedApi})
     * @return e.g. {@code no transport is registered: the Conduit API bundle io.conduit.api (bundle 1), which keeps
     *         the registry of transports, is stopped: start it again with 'start 1' ('lb' lists the bundles)}
     */
    static String apiStopped(Installed api) {
        return "no transport is registered: the Conduit API bundle " + api.symbolicName() + " (bundle " + api.id()
                + "), which keeps the registry of transports, is stopped: start it again with 'start " + api.id()
                + "' ('lb' lists the bundles)";
    }

    /**
     * What to say when no transport is registered, for the transport bundles {@code bundles}.
     *
     * @param bundles the installed transport bundles ({@link #installed})
     * @return e.g. {@code no transport is registered: the transport bundles io.conduit.epoll (bundle 2) and
     *         io.conduit.nio (bundle 6) are installed but stopped: start one again, e.g. 'start 2' ('lb' lists the
     *         bundles)}, or {@code null} when no transport bundle is stopped (none is installed, or every one is
     *         started and still registered nothing): then the platform's message applies
     */
    static String noneRegistered(List<Installed> bundles) {
        List<Installed> stopped = bundles.stream().filter(b -> !b.started()).toList();
        if (stopped.isEmpty()) {
            return null;
        }
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < stopped.size(); i++) {
            if (i > 0) {
                names.append(i == stopped.size() - 1 ? " and " : ", ");
            }
            names.append(stopped.get(i).symbolicName()).append(" (bundle ").append(stopped.get(i).id()).append(')');
        }
        boolean one = stopped.size() == 1;
        return "no transport is registered: the transport bundle" + (one ? " " : "s ") + names
                + (one ? " is" : " are") + " installed but stopped: start " + (one ? "it" : "one") + " again"
                + (one ? " with" : ", e.g.") + " 'start " + stopped.get(0).id() + "' ('lb' lists the bundles)";
    }
}
