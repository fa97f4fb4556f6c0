package io.conduit.gateway.internal.config;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.status.ComponentStatus;
import io.conduit.gateway.internal.status.GatewayStatus;
import io.conduit.gateway.services.GatewayServices;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * Watches the gateway launcher's configuration directory (framework property {@value #DIRECTORY_PROPERTY}, which
 * only the launcher sets: elsewhere, e.g. in Karaf, this component does nothing) with a
 * {@link ConfigurationFileWatch}: every file FileInstall reads but nothing will apply (a PID no component reads, a
 * factory PID without {@code -<name>} -- also the gateway's own, see {@link #reportsSingleton} --, the metrics
 * endpoint's PID with one ({@link #reportsFactory}), a key
 * Configuration Admin rejects) is one WARNING line and a
 * {@link GatewayStatus} with that problem, so the launcher's banner counts it and {@code conduit:gateway} shows it.
 * The directory is checked once on activation, then as often as FileInstall polls it
 * ({@code felix.fileinstall.poll}, default 1000 ms). After the first check this component registers itself as a
 * service ({@value #SERVICE}), which tells the launcher that the problems of the files present at start-up are
 * published.
 *
 * <p>Which PIDs are read comes from the running framework: the {@code service.pid} of every {@code ManagedService}
 * and {@code ManagedServiceFactory} (in the distribution: {@code io.conduit.transport} of the API bundle, Felix
 * SCR's {@code org.apache.felix.scr.ScrService}, FileInstall's factory {@code org.apache.felix.fileinstall}), the
 * configuration PIDs of Declarative Services components, and always the gateway's echo and relay factories, the
 * metrics endpoint's PID and {@code io.conduit.transport}.
 *
 * <p>Thread-safe: the watch is synchronized; the scheduler is confined to activation and deactivation.
 */
@Component(service = {}, immediate = true)
public final class ConfigurationFiles {

    /** Framework property: the configuration directory FileInstall reads, set by the gateway launcher. */
    static final String DIRECTORY_PROPERTY = GatewayServices.CONFIGURATION_DIRECTORY_PROPERTY;
    /** The service this component registers once the first check is done; the launcher waits for it. */
    static final String SERVICE = GatewayServices.CONFIGURATION_CHECK_SERVICE;

    /**
     * The names of the gateway's factory PIDs without {@code -<name>} ({@code io.conduit.gateway.echo.cfg}), which the
     * launcher's {@code felix.fileinstall.filter} leaves out and this check reports.
     */
    static final String GATEWAY_FACTORY_WITHOUT_NAME = "io\\.conduit\\.gateway\\.(?:echo|relay)\\.(?:cfg|config)";
    private static final String MANAGED_SERVICE = "org.osgi.service.cm.ManagedService";
    private static final String MANAGED_SERVICE_FACTORY = "org.osgi.service.cm.ManagedServiceFactory";

    private final BundleContext context;
    private final ServiceComponentRuntime scr;
    /** {@code null} when there is no directory to watch. */
    private final ConfigurationFileWatch watch;
    private final ScheduledExecutorService poller;
    private final ServiceRegistration<?> registration;

    /**
     * Checks the directory and registers the service; then checks it periodically.
     *
     * @param context this bundle's context
     * @param scr     the Declarative Services runtime, for the configuration PIDs of its components
     */
    @Activate
    public ConfigurationFiles(BundleContext context, @Reference ServiceComponentRuntime scr) {
        this.context = context;
        this.scr = scr;
        String dir = context.getProperty(DIRECTORY_PROPERTY);
        if (dir == null || dir.isBlank()) {
            watch = null;
            poller = null;
            registration = null;
            return;
        }
        Pattern filter = Pattern.compile(".*\\.(cfg|config)"); // what the launcher sets
        String filterText = context.getProperty("felix.fileinstall.filter");
        if (filterText != null) {
            try {
                filter = Pattern.compile(filterText);
            } catch (PatternSyntaxException e) {
                // FileInstall cannot use it either
            }
        }
        // the launcher keeps FileInstall off the gateway's factory PIDs without "-<name>": they are checked anyway
        filter = Pattern.compile("(?:" + filter.pattern() + ")|" + GATEWAY_FACTORY_WITHOUT_NAME);
        watch = new ConfigurationFileWatch(Path.of(dir), filter, this::known, this::publish);
        watch.scan();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(DIRECTORY_PROPERTY, dir);
        registration = context.registerService(SERVICE, this, props);
        long poll = 1000;
        try {
            poll = Math.max(100, Long.parseLong(String.valueOf(context.getProperty("felix.fileinstall.poll")).strip()));
        } catch (NumberFormatException e) {
            // FileInstall's default
        }
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "conduit-gateway-conf-check");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(this::scanQuietly, poll, poll, TimeUnit.MILLISECONDS);
    }

    private void scanQuietly() {
        try {
            watch.scan();
        } catch (RuntimeException e) {
            // e.g. IllegalStateException: the bundle is stopping; the next deactivate stops the polling
            System.getLogger("io.conduit.gateway").log(System.Logger.Level.DEBUG, "configuration check failed", e);
        }
    }

    /** @return the PIDs the framework reads now (see the class comment) */
    private ConfigurationFileCheck.Known known() {
        Set<String> singletons = new HashSet<>(Set.of(ConfigurationFileCheck.TRANSPORT_PID, MetricsConfig.PID));
        Set<String> factories = new HashSet<>(Set.of(EchoConfig.FACTORY_PID, RelayConfig.FACTORY_PID));
        Set<String> alsoRead = new HashSet<>();
        singletons.addAll(servicePids(MANAGED_SERVICE));
        factories.addAll(servicePids(MANAGED_SERVICE_FACTORY));
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            if ("ignore".equals(d.configurationPolicy) || d.configurationPid == null) {
                continue;
            }
            for (String pid : d.configurationPid) {
                if (pid.equals(EchoConfig.FACTORY_PID) || pid.equals(RelayConfig.FACTORY_PID)) {
                    continue; // factory configurations only (see reportsSingleton)
                }
                if (pid.equals(MetricsConfig.PID)) {
                    continue; // one configuration only (see reportsFactory)
                }
                alsoRead.add(pid);
                if ("require".equals(d.configurationPolicy)) {
                    singletons.add(pid); // a component that needs its configuration: worth naming to users
                    factories.add(pid);
                }
            }
        }
        return new ConfigurationFileCheck.Known(singletons, factories, alsoRead);
    }

    /**
     * @param reason the Declarative Services deactivation reason ({@code ComponentConstants.DEACTIVATION_REASON_*})
     * @return what a component instance's log line says when its configuration went away or changed, or {@code null}
     *         for every other reason (the bundle or the framework stops: nothing to report)
     */
    public static String deactivated(int reason) {
        switch (reason) {
            case org.osgi.service.component.ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_DELETED:
                return "its configuration was removed";
            case org.osgi.service.component.ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_MODIFIED:
                return "its configuration changed";
            default:
                return null;
        }
    }

    /**
     * Whether this component reports {@code props}, a configuration of the gateway's echo or relay component, as a
     * problem: a singleton configuration ({@code io.conduit.gateway.echo.cfg}, no {@code -<name>}) read by FileInstall
     * from the directory this component watches. Declarative Services hands the component such a configuration only
     * while no factory configuration of its PID exists, so the component cannot be the one to tell; it binds nothing.
     *
     * @param context    the gateway bundle's context
     * @param factoryPid the component's factory PID
     * @param props      the component's properties
     */
    public static boolean reportsSingleton(BundleContext context, String factoryPid, java.util.Map<String, ?> props) {
        String dir = context.getProperty(DIRECTORY_PROPERTY);
        return dir != null && !dir.isBlank() && GatewayConfig.singletonOf(factoryPid, props)
                && props.get("felix.fileinstall.filename") != null;
    }

    /**
     * Whether this component reports {@code props}, a configuration of the gateway's metrics endpoint, as a problem: a
     * factory configuration ({@code io.conduit.gateway.metrics-x.cfg}) read by FileInstall from the directory this
     * component watches. Declarative Services hands the component factory configurations of its PID too, but there
     * is one metrics endpoint; the component binds nothing for it.
     *
     * @param context the gateway bundle's context
     * @param props   the component's properties
     */
    public static boolean reportsFactory(BundleContext context, java.util.Map<String, ?> props) {
        String dir = context.getProperty(DIRECTORY_PROPERTY);
        return dir != null && !dir.isBlank() && props.get("service.factoryPid") != null
                && props.get("felix.fileinstall.filename") != null;
    }

    private Set<String> servicePids(String service) {
        Set<String> pids = new HashSet<>();
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(service, null);
            if (refs != null) {
                for (ServiceReference<?> r : refs) {
                    pids.addAll(ConfigurationFileCheck.pids(r.getProperty("service.pid")));
                }
            }
        } catch (InvalidSyntaxException impossible) {
            throw new AssertionError(impossible);
        }
        return pids;
    }

    private ConfigurationFileWatch.Published publish(String file, String pid, String kind, String problem) {
        Listeners listeners = new Listeners(("file".equals(kind) ? "configuration file" : kind) + " " + file);
        listeners.fail(problem); // the WARNING line
        ComponentStatus status = new ComponentStatus(file, pid, kind, listeners);
        status.publish(context);
        return status::withdraw;
    }

    /** Stops checking and withdraws the problems. */
    @Deactivate
    public void deactivate() {
        if (watch == null) {
            return;
        }
        poller.shutdownNow();
        try {
            poller.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watch.close();
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // unregistered by the framework
        }
    }
}
