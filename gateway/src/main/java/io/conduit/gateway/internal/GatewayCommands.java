package io.conduit.gateway.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The Gogo command {@code conduit:gateway}: what every echo and relay configuration is doing. It joins the commands of
 * the API bundle in scope {@code conduit} ({@code conduit:transports}, {@code conduit:use}, ...) the same way: a
 * plain service with the properties {@code osgi.command.scope} and {@code osgi.command.function}, found by Gogo by
 * reflection, returning the text to print (so the gateway has no dependency on Gogo; in Karaf, pipe
 * {@code bin/client -b} output through {@code | cat}).
 *
 * <p>Reads the {@link GatewayStatus} services at each call. Thread-safe (stateless apart from the bundle context).
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
     * {@code conduit:gateway} - one block per echo/relay configuration (see {@link #render(Collection)}).
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
            return render(statuses);
        } finally {
            for (ServiceReference<GatewayStatus> r : refs) {
                context.ungetService(r);
            }
        }
    }

    /**
     * The command's text: per configuration (sorted by PID) a line {@code <pid>  <kind>  <STATE>  (<file name>)},
     * then one {@code listening:} line per bound endpoint with the transport it is bound on now, e.g.
     * {@code listening: tcp://127.0.0.1:7007 [epoll]}, and one {@code error:} line per problem. STATE is
     * {@code RUNNING} (every endpoint bound), {@code FAILED} (nothing bound: a bad configuration or no endpoint could
     * be bound) or {@code PARTIAL} (some endpoints bound, some failed). A file of the configuration directory that
     * nothing applies ({@link ConfigurationFiles}: a PID no component reads, content Configuration Admin rejects) is
     * a {@code FAILED} block of kind {@code file} (or {@code echo}/{@code relay} for the gateway's own files) with its
     * reason. A last line counts them. Configurations whose
     * endpoints are still being bound are not shown yet.
     *
     * @param statuses the status of each configuration
     * @return lines ending in {@code \n}
     */
    static String render(Collection<? extends GatewayStatus> statuses) {
        List<GatewayStatus> sorted = new ArrayList<>(statuses);
        sorted.sort(Comparator.comparing(GatewayStatus::pid));
        StringBuilder out = new StringBuilder();
        int running = 0;
        int partial = 0;
        int failed = 0;
        for (GatewayStatus s : sorted) {
            List<String> bindings = s.bindings();
            List<String> failures = s.failures();
            String state;
            if (failures.isEmpty()) {
                state = "RUNNING";
                running++;
            } else if (bindings.isEmpty()) {
                state = "FAILED";
                failed++;
            } else {
                state = "PARTIAL";
                partial++;
            }
            out.append(String.format("%-40s %-5s  %-7s", s.pid(), s.kind(), state));
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
        if (sorted.isEmpty()) {
            out.append("no echo or relay configuration (add conf/io.conduit.gateway.echo-<name>.cfg or "
                    + "io.conduit.gateway.relay-<name>.cfg)\n");
        } else {
            out.append(sorted.size()).append(sorted.size() == 1 ? " configuration: " : " configurations: ")
                    .append(running).append(" running, ").append(partial).append(" partial, ").append(failed)
                    .append(" failed\n");
        }
        return out.toString();
    }
}
