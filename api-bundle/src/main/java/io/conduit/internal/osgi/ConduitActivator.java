package io.conduit.internal.osgi;

import java.util.Dictionary;
import java.util.Hashtable;

import io.conduit.internal.metrics.Jmx;
import io.conduit.internal.metrics.PlatformMetrics;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.TransportChangeListener;
import io.conduit.transport.spi.TransportProvider;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.util.tracker.ServiceTracker;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

/**
 * The API bundle's OSGi runtime (DESIGN.md, OSGi), started by the framework through {@code Bundle-Activator}. A plain
 * activator rather than a Declarative Services component, so the API bundle needs no SCR: it only imports
 * {@code org.osgi.framework} and {@code org.osgi.util.tracker}, which every framework exports, and optionally
 * {@code org.osgi.service.cm}. Outside OSGi this class is never loaded.
 *
 * <p>On start, in this order:
 * <ol>
 * <li>warnings about listed transport names that are not registered are
 *     {@linkplain TransportRegistry#deferUnknownNameWarnings() deferred}: until the end of this method when the
 *     framework is running (the tracker below adds the providers that are already there one at a time, and the
 *     first of them is no reason to call the others missing), else until {@code FrameworkEvent.STARTED}: a
 *     transport bundle that starts after this one is not "unknown";</li>
 * <li>{@link java.util.ServiceLoader} discovery runs now, with the thread context class loader set to the
 *     bundle's own loader, so it sees nothing of the launcher's class path (inside OSGi, providers come as
 *     services; discovery through the bundle loader finds a provider only with a Service Loader Mediator);</li>
 * <li>{@link TransportChangeListener} services are tracked (whiteboard) and the selected transport is published
 *     as a service ({@link TransportPublisher});</li>
 * <li>{@link TransportProvider} services are tracked: each one is {@linkplain TransportRegistry#registerService
 *     registered} with the registry when it appears and unregistered when it goes away. A provider service
 *     takes precedence over a {@code ServiceLoader}-found provider of the same name (the registry keeps one
 *     provider per name, registered ones first), and a second instance of the same provider class registered
 *     programmatically is dropped, so nothing is counted twice and nothing outlives the service;</li>
 * <li>when {@code org.osgi.service.cm} is wired, a {@code ManagedService} for PID {@code io.conduit.transport}
 *     ({@link TransportConfiguration}); without Configuration Admin the system properties rule;</li>
 * <li>the Gogo commands ({@link ConduitCommands}) as a plain service with {@code osgi.command.*} properties.</li>
 * </ol>
 * On stop everything is undone in reverse order; the providers are withdrawn in one step (one selection change, to
 * no transport, rather than one per provider: a {@code ManagedServer} on epoll does not move to nio first); the
 * run-time preference is cleared, because the registry's state outlives a stop/start cycle of a bundle that is not
 * refreshed.
 *
 * <p><b>No warnings at shutdown.</b> Selection warnings are {@linkplain TransportRegistry#muteWarnings() muted}
 * while this bundle stops (its tracker withdraws every provider) and from the moment a provider goes away while the
 * framework stops (system bundle STOPPING: {@code exit 0}, {@code stop 0}, SIGTERM), so a preference such as
 * {@code epoll,nio} does not produce "not registered" warnings as the transport bundles stop. A transport bundle
 * that stops while the framework runs is reported ("transport 'epoll' ... is not registered now (its bundle
 * stopped?)") when the preference lists it.
 *
 * <p>The framework calls {@link #start} and {@link #stop} on one thread at a time; the tracker callbacks run on
 * the threads that register and unregister the services.
 */
public final class ConduitActivator implements BundleActivator {

    private static final System.Logger LOG = System.getLogger(TransportRegistry.LOGGER_NAME);

    /** The Configuration Admin API class whose presence enables {@link TransportConfiguration}. */
    static final String MANAGED_SERVICE = "org.osgi.service.cm.ManagedService";

    /** The registry given by a test, or {@code null} for the global one. */
    private final TransportRegistry given;
    // Written by start, read by stop; the framework calls both on one thread with a happens-before edge between.
    private TransportRegistry registry;
    private ServiceTracker<TransportChangeListener, TransportChangeListener> listeners;
    private TransportPublisher publisher;
    private ServiceTracker<TransportProvider, TransportProvider> providers;
    private Runnable configuration;
    private ServiceRegistration<?> commands;
    /** Unregisters a transport's MBean when its provider goes away. */
    private Runnable metricsHook;
    private FrameworkListener started;

    /** For the framework ({@code Bundle-Activator}): the registry behind {@link io.conduit.transport.Transports}. */
    public ConduitActivator() {
        this(null);
    }

    /** For tests: runs on {@code registry} instead of the global one ({@code null} = the global one). */
    ConduitActivator(TransportRegistry registry) {
        this.given = registry;
    }

    @Override
    public void start(BundleContext context) {
        registry = given != null ? given : TransportRegistry.global();
        started = null;
        registry.unmuteWarnings(); // a bundle restarted in the same framework after its stop muted them
        registry.deferUnknownNameWarnings();
        discoverWithBundleLoader(registry);
        Jmx.start();
        TransportRegistry r = registry;
        metricsHook = () -> PlatformMetrics.providersChanged(r.providers().stream().map(TransportProvider::name).toList());
        registry.addProviderListener(metricsHook);

        listeners = new ServiceTracker<>(context, TransportChangeListener.class, null);
        listeners.open();
        publisher = new TransportPublisher(context, registry, listeners);
        registry.addListener(publisher);

        providers = new ServiceTracker<>(context, TransportProvider.class, new ProviderCustomizer(context, registry));
        providers.open();
        publisher.sync();

        if (configurationAdminWired()) {
            configuration = TransportConfiguration.register(context, registry);
        } else {
            LOG.log(System.Logger.Level.DEBUG, "org.osgi.service.cm is not wired to io.conduit.api: configuration "
                    + "io.conduit.transport is not applied; the conduit.transport system property rules");
        }

        Dictionary<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", ConduitCommands.SCOPE);
        props.put("osgi.command.function", ConduitCommands.FUNCTIONS.clone());
        props.put(Constants.SERVICE_DESCRIPTION, "Conduit shell commands");
        commands = context.registerService(ConduitCommands.class, new ConduitCommands(registry), props);
        endDeferralWhenStarted(context, registry);
    }

    @Override
    public void stop(BundleContext context) {
        registry.muteWarnings(); // every provider is withdrawn below: nothing to report
        unregisterQuietly(commands);
        if (configuration != null) {
            configuration.run();
        }
        // all at once: one selection change, so no listener moves to a transport that goes next
        registry.unregisterAll(java.util.Arrays.asList(providers.getServices(new TransportProvider[0])));
        providers.close(); // each removal finds its provider gone already: no further change
        registry.removeListener(publisher);
        publisher.close();
        listeners.close();
        registry.setOverrides(null, null);
        registry.removeProviderListener(metricsHook);
        Jmx.stop(); // no MBean of this bundle's classes outlives it
        if (started != null) {
            context.removeFrameworkListener(started);
        }
        registry.frameworkStarted(); // a stop during start-up must not leave warnings held back (nothing is logged)
        if (!frameworkStopping(context)) {
            registry.unmuteWarnings(); // bundles wired to this one may still use Transports
        }
    }

    /**
     * Ends the deferral begun by {@link #start} now when the framework is running, else when it reached STARTED.
     * The listener is added before the state is read, so a STARTED event between the two is not missed
     * ({@link TransportRegistry#frameworkStarted()} is idempotent).
     */
    private void endDeferralWhenStarted(BundleContext context, TransportRegistry registry) {
        Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        if (system == null || system.getState() == Bundle.ACTIVE) {
            registry.frameworkStarted();
            return;
        }
        started = event -> {
            if (event.getType() == FrameworkEvent.STARTED) {
                registry.frameworkStarted();
            }
        };
        context.addFrameworkListener(started);
        if (system.getState() == Bundle.ACTIVE) {
            registry.frameworkStarted();
        }
    }

    /** @return whether the framework is stopping (the system bundle is STOPPING); {@code false} when unknown */
    static boolean frameworkStopping(BundleContext context) {
        try {
            Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_ID);
            return system != null && system.getState() == Bundle.STOPPING;
        } catch (IllegalStateException invalidContext) {
            return true; // this bundle's context is no longer valid: it is stopped, whatever the framework does
        }
    }

    /** @return whether the optional import of {@code org.osgi.service.cm} is wired */
    static boolean configurationAdminWired() {
        try {
            Class.forName(MANAGED_SERVICE, false, ConduitActivator.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static void discoverWithBundleLoader(TransportRegistry registry) {
        Thread t = Thread.currentThread();
        ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(ConduitActivator.class.getClassLoader());
        try {
            registry.providers(); // the first use runs discovery; later calls only read
        } finally {
            t.setContextClassLoader(previous);
        }
    }

    private static void unregisterQuietly(ServiceRegistration<?> reg) {
        if (reg == null) {
            return;
        }
        try {
            reg.unregister();
        } catch (IllegalStateException alreadyGone) {
            // already unregistered
        }
    }

    /** Feeds provider services into the registry. */
    private static final class ProviderCustomizer
            implements ServiceTrackerCustomizer<TransportProvider, TransportProvider> {

        private final BundleContext context;
        private final TransportRegistry registry;

        ProviderCustomizer(BundleContext context, TransportRegistry registry) {
            this.context = context;
            this.registry = registry;
        }

        @Override
        public TransportProvider addingService(ServiceReference<TransportProvider> ref) {
            TransportProvider p = context.getService(ref);
            if (p == null) {
                return null;
            }
            try {
                Object declared = ref.getProperty(TransportPublisher.NAME_PROPERTY);
                if (declared != null && !declared.equals(p.name())) {
                    LOG.log(System.Logger.Level.WARNING, "TransportProvider service " + ref + " of bundle "
                            + ref.getBundle().getSymbolicName() + " declares " + TransportPublisher.NAME_PROPERTY
                            + "=" + declared + " but its name() is '" + p.name() + "'; the name() is used");
                }
                registry.registerService(p);
                return p;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "TransportProvider service " + ref + " of bundle "
                        + ref.getBundle().getSymbolicName() + " could not be registered; it is ignored", e);
                context.ungetService(ref);
                return null;
            }
        }

        @Override
        public void modifiedService(ServiceReference<TransportProvider> ref, TransportProvider p) {
            // properties are informative; the provider object itself answers name, ranking and availability
        }

        @Override
        public void removedService(ServiceReference<TransportProvider> ref, TransportProvider p) {
            if (frameworkStopping(context)) {
                registry.muteWarnings(); // the transport bundles stop with the framework: nothing to report
            }
            try {
                registry.unregister(p);
            } finally {
                context.ungetService(ref);
            }
        }
    }
}
