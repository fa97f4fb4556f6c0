package io.conduit.gateway.launcher;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.conduit.gateway.services.GatewayServices;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.startlevel.FrameworkStartLevel;

/**
 * What the banner reports, as the framework's services show it at one moment: the gateway's status services, its
 * network (or why there is none), whether the configuration files are checked, and the bundles not active. Reads
 * service properties only ({@link GatewayServices}), never a class of the gateway bundle.
 */
final class Startup {

    final ServiceReference<?>[] statuses;
    final ServiceReference<?> network;
    final ServiceReference<?> noNetwork;
    /** Whether the gateway's check of the configuration files has published its first results. */
    final boolean checked;
    /**
     * Whether the framework has started: it is {@code ACTIVE} once every bundle of its start levels was started
     * (the {@code STARTED} event, on which the gateway selects its transport, follows asynchronously).
     */
    final boolean started;
    /** Whether the gateway bundle is active, so its network is coming. */
    final boolean gatewayActive;
    final List<Bundle> notActive = new ArrayList<>();
    /**
     * The problem of the transport configuration ({@code conf/io.conduit.transport.cfg} rejected, or keys of it
     * ignored), as the API bundle publishes it, or {@code null}.
     */
    final String transportConfigurationProblem;
    final int startLevel;

    Startup(BundleContext context) throws InvalidSyntaxException {
        // getAll…: the launcher's class path holds the gateway jar too, so its own copy of these interfaces
        // is not the bundle's, and the class-space filter of getServiceReferences would hide the services.
        statuses = orEmpty(context.getAllServiceReferences(GatewayServices.STATUS_SERVICE, null));
        network = first(context.getAllServiceReferences(GatewayServices.NETWORK_SERVICE, null));
        noNetwork = first(context.getAllServiceReferences(GatewayServices.NO_NETWORK_SERVICE, null));
        checked = context.getAllServiceReferences(GatewayServices.CONFIGURATION_CHECK_SERVICE, null) != null;
        ServiceReference<?> transportConfiguration = first(context.getAllServiceReferences(
                GatewayServices.MANAGED_SERVICE, "(" + GatewayServices.TRANSPORT_CONFIGURATION_PROBLEM + "=*)"));
        transportConfigurationProblem = transportConfiguration == null ? null
                : String.valueOf(transportConfiguration.getProperty(GatewayServices.TRANSPORT_CONFIGURATION_PROBLEM));
        started = context.getBundle(Constants.SYSTEM_BUNDLE_ID).getState() == Bundle.ACTIVE;
        boolean gatewayUp = false;
        for (Bundle b : context.getBundles()) {
            if (GatewayServices.GATEWAY_BUNDLE.equals(b.getSymbolicName())) {
                gatewayUp = (b.getState() & (Bundle.ACTIVE | Bundle.STARTING)) != 0;
            }
            boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
            // started by the launcher after the banner, or never (--no-shell): see InteractiveShell
            boolean notStartedOnPurpose = InteractiveShell.BUNDLE.equals(b.getSymbolicName());
            if (b.getState() != Bundle.ACTIVE && !fragment && !notStartedOnPurpose) {
                notActive.add(b);
            }
        }
        gatewayActive = gatewayUp;
        FrameworkStartLevel level = context.getBundle(Constants.SYSTEM_BUNDLE_ID).adapt(FrameworkStartLevel.class);
        startLevel = level == null ? 0 : level.getStartLevel();
    }

    /** @return the names of the configurations in conf/ that have published their status */
    Set<String> reported() {
        Set<String> names = new HashSet<>();
        for (ServiceReference<?> r : statuses) {
            names.add(String.valueOf(r.getProperty(GatewayServices.STATUS_NAME)));
        }
        return names;
    }

    /**
     * @param expected the gateway's component configuration files found in conf/ at start-up
     * @return what has not reported yet, e.g. {@code the transport selection, io.conduit.gateway.echo-default.cfg};
     *         empty when everything has
     */
    List<String> pending(List<String> expected) {
        List<String> pending = new ArrayList<>();
        if (!started) {
            pending.add("the framework (start level " + startLevel + " of " + FrameworkBoot.APPLICATION_START_LEVEL + ", "
                    + notActive.size() + " bundle(s) not started yet)");
        }
        if (networkPending()) {
            pending.add("the transport selection");
        }
        // an inactive gateway bundle (a problem line of its own) registers nothing more
        boolean coming = !started || gatewayActive;
        if (!checked && coming) {
            pending.add("the check of the configuration files");
        }
        if (noNetwork == null && coming) { // without a network the components never start
            Set<String> reported = reported();
            for (String file : expected) {
                if (!reported.contains(file)) {
                    pending.add(file);
                }
            }
        }
        return pending;
    }

    /** @return whether the transport is not selected yet but will be (the gateway bundle is or will be active) */
    boolean networkPending() {
        return network == null && noNetwork == null && (!started || gatewayActive);
    }

    /** @return the transport lines of the banner */
    String transport() {
        StringBuilder b = new StringBuilder();
        ServiceReference<?> r = network != null ? network : noNetwork;
        if (network != null) {
            b.append("transport: ").append(network.getProperty(GatewayServices.TRANSPORT_NAME)).append('\n');
        } else if (noNetwork != null) {
            b.append("transport: none - ").append(noNetwork.getProperty(GatewayServices.TRANSPORT_PROBLEM))
                    .append('\n');
        } else if (networkPending()) {
            return "transport: not selected yet (still starting)\n";
        } else {
            return "transport: none - the gateway's network did not start (is a transport bundle in bundles/? "
                    + "see the log above)\n";
        }
        Object explain = r.getProperty(GatewayServices.TRANSPORT_SELECTION);
        if (explain != null) {
            for (String line : explain.toString().split("\n")) {
                b.append("  ").append(line).append('\n');
            }
        }
        return b.toString();
    }

    /** @return the banner's lines of the components and, once the framework has started, its inactive bundles */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (ServiceReference<?> r : statuses) {
            lines.addAll(Banner.componentLines(String.valueOf(r.getProperty(GatewayServices.STATUS_KIND)),
                    String.valueOf(r.getProperty(GatewayServices.STATUS_NAME)),
                    strings(r.getProperty(GatewayServices.STATUS_LISTENING)),
                    strings(r.getProperty(GatewayServices.STATUS_FAILURES))));
        }
        lines.sort(null);
        if (transportConfigurationProblem != null) {
            lines.add(transportConfigurationLine(transportConfigurationProblem));
        }
        if (started) {
            for (Bundle x : notActive) {
                lines.add("  bundle " + x.getSymbolicName() + " is not active (state " + stateName(x.getState())
                        + ")");
            }
        }
        return lines;
    }

    int listening() {
        int n = 0;
        for (ServiceReference<?> r : statuses) {
            n += strings(r.getProperty(GatewayServices.STATUS_LISTENING)).length;
        }
        return n;
    }

    /**
     * @param problem the line the API bundle published for its configuration, e.g. {@code configuration
     *                io.conduit.transport REJECTED, none of its values applied: property strict='yes' ...}
     * @return the banner's line for it: the problem indented as the other lines are
     */
    static String transportConfigurationLine(String problem) {
        return "  " + problem;
    }

    int problems() {
        int n = (noNetwork != null ? 1 : 0) + (transportConfigurationProblem != null ? 1 : 0);
        for (ServiceReference<?> r : statuses) {
            n += strings(r.getProperty(GatewayServices.STATUS_FAILURES)).length;
        }
        return n + (started ? notActive.size() : 0);
    }

    private static String stateName(int state) {
        switch (state) {
            case Bundle.INSTALLED:
                return "INSTALLED: not resolved";
            case Bundle.RESOLVED:
                return "RESOLVED: not started";
            case Bundle.STARTING:
                return "STARTING";
            case Bundle.STOPPING:
                return "STOPPING";
            default:
                return String.valueOf(state);
        }
    }

    private static String[] strings(Object v) {
        if (v instanceof String[] a) {
            return a;
        }
        return v == null ? new String[0] : new String[] {v.toString()};
    }

    private static ServiceReference<?>[] orEmpty(ServiceReference<?>[] refs) {
        return refs == null ? new ServiceReference<?>[0] : refs;
    }

    private static ServiceReference<?> first(ServiceReference<?>[] refs) {
        return refs == null ? null : refs[0];
    }
}
