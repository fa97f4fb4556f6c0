package io.conduit.gateway.internal.shell;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import io.conduit.gateway.internal.config.ConfigurationFiles;
import io.conduit.gateway.internal.config.Configurations;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.network.NoNetwork;
import io.conduit.gateway.internal.status.GatewayStatus;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The Gogo command {@code conduit:gateway}: what every echo and relay configuration, and the metrics endpoint, is
 * doing. It joins the commands of
 * the API bundle in scope {@code conduit} ({@code conduit:transports}, {@code conduit:use}, ...) the same way: a
 * plain service with the properties {@code osgi.command.scope} and {@code osgi.command.function}, found by Gogo by
 * reflection, returning the text to print (so the gateway has no dependency on Gogo; in Karaf, pipe
 * {@code bin/client -b} output through {@code | cat}).
 *
 * <p>Reads the {@link GatewayStatus} services at each call and, while no {@link Network} is registered, the
 * {@link NoNetwork} and Configuration Admin's echo/relay configurations. Thread-safe (stateless apart from the bundle
 * context); a missing Configuration Admin is a line of the text, not an exception.
 */
@Component(service = GatewayCommands.class, immediate = true,
        property = {"osgi.command.scope=conduit", "osgi.command.function=gateway"})
public final class GatewayCommands {

    private final BundleContext context;

    /** @param context this bundle's context, to look the status services up */
    @Activate
    public GatewayCommands(BundleContext context) {
        this.context = context;
    }

    /**
     * {@code conduit:gateway} - one block per echo/relay configuration (see {@link #render(Collection)}); while the
     * gateway's network is not running, first why, and every configuration Configuration Admin holds (see
     * {@link #render(Collection, NetworkDown)}).
     *
     * @return the text Gogo prints
     */
    public String gateway() {
        List<GatewayStatus> statuses = new ArrayList<>();
        List<ServiceReference<GatewayStatus>> refs = new ArrayList<>();
        try {
            refs.addAll(context.getServiceReferences(GatewayStatus.class, null));
        } catch (InvalidSyntaxException impossible) {
            throw new AssertionError(impossible);
        }
        for (ServiceReference<GatewayStatus> r : refs) {
            GatewayStatus s = context.getService(r);
            if (s != null) {
                statuses.add(s);
            }
        }
        try {
            return render(statuses, networkDown());
        } finally {
            for (ServiceReference<GatewayStatus> r : refs) {
                context.ungetService(r);
            }
        }
    }

    /**
     * Why no echo or relay can run now, for {@link #render(Collection, NetworkDown)}.
     *
     * @param network    what the network is doing, after {@code network: }
     * @param notStarted the {@code error:} line of each configuration that therefore runs no component
     * @param configured the configurations Configuration Admin holds
     * @param notListed  why {@code configured} could not be read (e.g. Configuration Admin is not running), else
     *                   {@code null}
     */
    record NetworkDown(String network, String notStarted, List<Configurations.Configured> configured,
            String notListed) {
    }

    /** @return {@code null} while a {@link Network} is registered, else what is wrong and the configurations */
    private NetworkDown networkDown() {
        if (context.getServiceReference(Network.class) != null) {
            return null;
        }
        ServiceReference<NoNetwork> none = context.getServiceReference(NoNetwork.class);
        Object problem = none == null ? null : none.getProperty(NoNetwork.PROP_PROBLEM);
        String network;
        String notStarted;
        if (none != null) {
            // the problem ends in "(fix <property>, e.g. in JAVA_OPTS, and restart)": the network is made at start-up
            network = "not running, so nothing listens: " + problem;
            notStarted = "not started: the gateway's network is not running (see 'network:' above)";
        } else {
            network = "not started yet: it starts once the framework has started (if this stays, see the log and "
                    + "'lb': is io.conduit.gateway active?)";
            notStarted = "not started yet: waiting for the gateway's network (see 'network:' above)";
        }
        List<Configurations.Configured> configured = List.of();
        String notListed = null;
        if (context.getServiceReference(Configurations.CONFIGURATION_ADMIN) == null) {
            notListed = "Configuration Admin is not running (is org.apache.felix.configadmin started? see 'lb')";
        } else {
            try {
                configured = Configurations.list(context);
            } catch (java.io.IOException e) {
                notListed = e.getMessage();
            } catch (LinkageError | IllegalStateException e) {
                notListed = "Configuration Admin cannot be read by the gateway bundle (" + e + ")";
            }
        }
        return new NetworkDown(network, notStarted, configured, notListed);
    }

    /**
     * The command's text: per configuration (sorted by PID) a line {@code <pid>  <kind>  <STATE>  (<file name>)},
     * then one {@code listening:} line per endpoint listening now with the transport it is bound on, e.g.
     * {@code listening: tcp://127.0.0.1:7007 [epoll]}, and one {@code error:} line per problem, including each
     * endpoint that has no listener or socket now (e.g. no transport is selected). STATE is {@code RUNNING} (every
     * endpoint listening), {@code FAILED} (nothing listening: a bad configuration, no endpoint could be bound, or none
     * has a transport now), {@code PARTIAL} (some endpoints listening, some not) or {@code OFF} (nothing to listen on
     * and no problem: the metrics endpoint without {@code listen}). A file of the configuration
     * directory that nothing applies ({@link ConfigurationFiles}: a PID no component reads, content Configuration
     * Admin rejects) is a {@code FAILED} block of kind {@code file} (or {@code echo}/{@code relay} for the gateway's
     * own files) with its reason. A last line counts them. Configurations whose endpoints are still being bound are
     * not shown yet.
     *
     * @param statuses the status of each configuration
     * @return lines ending in {@code \n}
     */
    static String render(Collection<? extends GatewayStatus> statuses) {
        return render(statuses, null);
    }

    /**
     * The command's text while the network is not running (no transport could be selected at start-up, or it has
     * not started yet): first {@code network: <why>}, then as {@link #render(Collection)} with every configuration
     * of {@code down} that has no status shown {@code FAILED} with {@code down}'s {@code error:} line (no component
     * runs without a network). When the configurations could not be read, a line says why instead of
     * "no echo or relay configuration".
     *
     * @param statuses the status of each configuration
     * @param down     why the network is not running and the configurations, or {@code null} while it runs
     * @return lines ending in {@code \n}
     */
    static String render(Collection<? extends GatewayStatus> statuses, NetworkDown down) {
        List<GatewayStatus> sorted = new ArrayList<>(statuses);
        StringBuilder out = new StringBuilder();
        if (down != null) {
            out.append("network: ").append(down.network()).append('\n');
            java.util.Set<String> reported = new java.util.HashSet<>();
            statuses.forEach(s -> reported.add(s.pid()));
            for (Configurations.Configured c : down.configured()) {
                if (reported.add(c.pid())) {
                    sorted.add(notStarted(c, down.notStarted()));
                }
            }
            if (down.notListed() != null) {
                out.append("the configurations cannot be listed: ").append(down.notListed()).append('\n');
            }
        }
        sorted.sort(Comparator.comparing(GatewayStatus::pid));
        int running = 0;
        int partial = 0;
        int failed = 0;
        int off = 0;
        for (GatewayStatus s : sorted) {
            GatewayStatus.Now now = s.now(); // each endpoint once: listening, or a problem
            List<String> bindings = now.bindings();
            List<String> failures = now.failures();
            String state;
            if (bindings.isEmpty() && failures.isEmpty()) { // configured to listen nowhere: the metrics endpoint
                state = "OFF";
                off++;
            } else if (bindings.isEmpty()) { // never RUNNING with nothing listening
                state = "FAILED";
                failed++;
            } else if (failures.isEmpty()) {
                state = "RUNNING";
                running++;
            } else {
                state = "PARTIAL";
                partial++;
            }
            out.append(String.format("%-40s %-7s  %-7s", s.pid(), s.kind(), state));
            if (!s.name().equals(s.pid())) {
                out.append("  (").append(s.name()).append(')');
            }
            out.append('\n');
            for (String b : bindings) {
                out.append("    listening: ").append(b).append('\n');
            }
            for (String f : failures) {
                out.append("    error: ").append(f).append('\n');
            }
        }
        if (sorted.isEmpty() && (down == null || down.notListed() == null)) {
            out.append("no echo or relay configuration (add conf/io.conduit.gateway.echo-<name>.cfg or "
                    + "io.conduit.gateway.relay-<name>.cfg)\n");
        } else if (!sorted.isEmpty()) {
            out.append(sorted.size()).append(sorted.size() == 1 ? " configuration: " : " configurations: ")
                    .append(running).append(" running, ").append(partial).append(" partial, ").append(failed)
                    .append(" failed").append(off > 0 ? ", " + off + " off" : "").append('\n');
        }
        return out.toString();
    }

    /** @return the status of a configuration that runs no component, with one problem: {@code why} */
    private static GatewayStatus notStarted(Configurations.Configured c, String why) {
        return new GatewayStatus() {
            @Override
            public String name() {
                return c.name();
            }

            @Override
            public String pid() {
                return c.pid();
            }

            @Override
            public String kind() {
                return c.kind();
            }

            @Override
            public List<String> listening() {
                return List.of();
            }

            @Override
            public List<String> bindings() {
                return List.of();
            }

            @Override
            public List<String> failures() {
                return List.of(why);
            }
        };
    }
}
