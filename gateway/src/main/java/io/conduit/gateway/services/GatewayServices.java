package io.conduit.gateway.services;

/**
 * The names through which the launcher, outside the framework, and the gateway bundle, inside it, meet: the service
 * interfaces the launcher looks up, the service properties it reads, and the properties it sets for the bundle.
 *
 * <p>The launcher reads the bundle's services by name ({@code BundleContext.getAllServiceReferences}) and their
 * facts from service properties only, so it never loads a class of the bundle's class space. Both sides take the
 * names from here; {@code GatewayServicesTest} fails when a service interface named here no longer is the class the
 * bundle registers (a class moved or renamed). Constants only: no OSGi types, no dependencies.
 */
public final class GatewayServices {

    /** Symbolic name of the gateway bundle ({@code Bundle-SymbolicName} in {@code bnd.bnd}). */
    public static final String GATEWAY_BUNDLE = "io.conduit.gateway";

    /**
     * Factory PID of the echo components: their configuration files are {@code io.conduit.gateway.echo-<name>.cfg},
     * which the launcher's banner waits for.
     */
    public static final String ECHO_FACTORY_PID = "io.conduit.gateway.echo";
    /** Factory PID of the relay components, likewise. */
    public static final String RELAY_FACTORY_PID = "io.conduit.gateway.relay";
    /** PID of the metrics endpoint: its configuration file is {@code io.conduit.gateway.metrics.cfg}, likewise. */
    public static final String METRICS_PID = "io.conduit.gateway.metrics";

    /** Service interface of each component's status ({@code GatewayStatus}), one service per configuration. */
    public static final String STATUS_SERVICE = "io.conduit.gateway.internal.status.GatewayStatus";
    /** Status property: the configuration name, e.g. {@code io.conduit.gateway.echo-default.cfg}. */
    public static final String STATUS_NAME = "conduit.gateway.name";
    /** Status property: the configuration's Configuration Admin PID. */
    public static final String STATUS_PID = "conduit.gateway.pid";
    /** Status property: {@code echo}, {@code relay}, {@code metrics} or {@code file}. */
    public static final String STATUS_KIND = "conduit.gateway.kind";
    /** Status property: {@code String[]} of bound endpoints. */
    public static final String STATUS_LISTENING = "conduit.gateway.listening";
    /** Status property: {@code String[]}, one line per problem. */
    public static final String STATUS_FAILURES = "conduit.gateway.failures";

    /** Service interface of the gateway's network, registered once a transport is selected ({@code Network}). */
    public static final String NETWORK_SERVICE = "io.conduit.gateway.internal.network.Network";
    /** Service interface registered instead of the network when no transport can be selected ({@code NoNetwork}). */
    public static final String NO_NETWORK_SERVICE = "io.conduit.gateway.internal.network.NoNetwork";
    /** Network property: the selected transport's name. */
    public static final String TRANSPORT_NAME = "conduit.transport.name";
    /** Network and no-network property: why that transport (or none) was selected, one line per candidate. */
    public static final String TRANSPORT_SELECTION = "conduit.transport.selection";
    /** No-network property: the selection error, one line. */
    public static final String TRANSPORT_PROBLEM = "conduit.transport.problem";
    /**
     * Property of the API bundle's {@code ManagedService} of PID {@code io.conduit.transport}
     * ({@code conf/io.conduit.transport.cfg}) while its last configuration was rejected or had ignored keys: that
     * one line. The API bundle's {@code TransportConfiguration} names the same property.
     */
    public static final String TRANSPORT_CONFIGURATION_PROBLEM = "conduit.transport.configuration.problem";
    /** Service interface that carries {@link #TRANSPORT_CONFIGURATION_PROBLEM}. */
    public static final String MANAGED_SERVICE = "org.osgi.service.cm.ManagedService";

    /**
     * Service registered by the check of the configuration directory ({@code ConfigurationFiles}) once it has
     * published a status for each file nothing applies.
     */
    public static final String CONFIGURATION_CHECK_SERVICE = "io.conduit.gateway.internal.config.ConfigurationFiles";
    /** Framework property the launcher sets: the configuration directory FileInstall reads. */
    public static final String CONFIGURATION_DIRECTORY_PROPERTY = "conduit.gateway.conf";

    /**
     * Service property ({@code true}) of the {@code IntConsumer} the launcher registers in the system bundle's
     * context; the shell's {@code exit [STATUS]} calls it to stop the framework and exit with that status.
     */
    public static final String EXIT_SERVICE_PROPERTY = "conduit.gateway.exit";

    /**
     * Service property ({@code true}) of a second {@code IntConsumer} the launcher registers in the system bundle's
     * context: it only records the status the launcher exits with once the framework stops, and stops nothing. The
     * shell's {@code exit [STATUS]} calls it when the shell reads a script (standard input that is not a terminal)
     * and then ends the session, whose end stops the framework as the end of the script does.
     */
    public static final String EXIT_STATUS_SERVICE_PROPERTY = "conduit.gateway.exitStatus";

    /**
     * Name of the jline terminal the launcher gives the shell on a script ({@code --shell} with standard input that is
     * not a terminal): the shell prints no prompt on it.
     */
    public static final String SCRIPT_TERMINAL_NAME = "conduit-gateway-script";

    /**
     * Service property ({@code true}) of the service the launcher registers in the system bundle's context from before
     * the bundles start until its banner is printed: while it is there, the banner shows each endpoint that starts
     * listening, so the components log no line of their own for it. Outside the launcher (e.g. Karaf) there is none.
     */
    public static final String BANNER_PENDING_PROPERTY = "conduit.gateway.bannerPending";

    private GatewayServices() {
    }
}
