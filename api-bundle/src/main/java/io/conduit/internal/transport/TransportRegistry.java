package io.conduit.internal.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportChangeListener;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.TransportProvider;

/**
 * The state behind {@link io.conduit.transport.Transports}: registered and discovered providers, the run-time
 * preference override, the cached selection, logged warnings and listeners. One global instance serves the
 * static facade; tests make their own with fake providers and a property snapshot supplier.
 *
 * <p><b>Caching.</b> A selection is recomputed when a provider is registered or unregistered, when the override
 * changes, and when a call observes that the Conduit system properties differ from the snapshot the cached
 * selection was made from. Provider availability is probed by the providers themselves once; the registry
 * calls {@link TransportProvider#availability()} once per recomputation.
 *
 * <p><b>Warnings</b> of a selection are logged at WARNING on the logger {@code io.conduit.transport}: fallbacks
 * once per distinct text, unknown names once per distinct (property, unknown names), whatever the registered
 * transports were at the time. A listed name whose provider was registered before (the registry remembers every
 * name it had) is not called unknown: "transport 'epoll' ... is not registered now (its bundle stopped?)", once per
 * departure (registering that name again re-arms the warning). While {@linkplain #deferUnknownNameWarnings()
 * deferred} (an OSGi framework is still starting, or the API bundle's tracker is still adding the providers) these
 * name warnings are held back; {@link #frameworkStarted()} logs them if they still apply then. Without a framework
 * (all providers found at once by {@link ServiceLoader}) they are logged at once. While {@linkplain #muteWarnings()
 * muted} (the framework or the API bundle is stopping, so providers go away without anything being wrong) no
 * selection warning is logged or remembered as logged.
 *
 * <p><b>Listeners</b> are told about every change of the selected transport, in order: events are queued under
 * the lock and delivered outside it by one thread at a time (normally the thread that made the change; when
 * another thread is already delivering, that thread delivers the later event too). A listener may call back
 * into the registry.
 *
 * <p>Thread-safe.
 */
public final class TransportRegistry {

    /** The logger name of every transport-selection message. */
    public static final String LOGGER_NAME = "io.conduit.transport";

    private static final System.Logger LOG = System.getLogger(LOGGER_NAME);

    private static volatile TransportRegistry global;

    private final Function<List<String>, List<TransportProvider>> discovery;
    private final System.Logger log;
    private final Supplier<ConduitProperties> properties;
    private final List<String> discoveryProblems = new CopyOnWriteArrayList<>();
    private final List<TransportChangeListener> listeners = new CopyOnWriteArrayList<>();
    /** Run after a provider was registered or unregistered (see {@link #addProviderListener}). */
    private final List<Runnable> providerListeners = new CopyOnWriteArrayList<>();

    /** Guards every field below that says so. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock: providers registered programmatically, in registration order (identity). */
    private final List<TransportProvider> registered = new ArrayList<>();
    /**
     * Guarded by lock: the members of {@link #registered} that a bundle provides as an OSGi service
     * ({@link #registerService}), by identity.
     */
    private final Set<TransportProvider> services = java.util.Collections.newSetFromMap(
            new java.util.IdentityHashMap<>());
    /** Guarded by lock: providers found by discovery; {@code null} until the first use. */
    private List<TransportProvider> discovered;
    /** Guarded by lock: the run-time preference, or {@code null} to use {@code conduit.transport}. */
    private String override;
    /**
     * Guarded by lock: the run-time strict flag (Configuration Admin property {@code strict}), or {@code null} to
     * use {@code conduit.transport.strict}.
     */
    private Boolean strictOverride;
    /** Guarded by lock: warning keys already logged (see {@link #warningKey}). */
    private final Set<String> warned = new HashSet<>();
    /** Guarded by lock: name warnings (unknown, not registered now) are held back until {@link #frameworkStarted()}. */
    private boolean deferUnknownNames;
    /** Guarded by lock: what {@link #whenStarted} held back, in order, until {@link #frameworkStarted()}. */
    private final List<Runnable> heldBack = new ArrayList<>();
    /** Guarded by lock: no selection warning is logged (see {@link #muteWarnings()}). */
    private boolean muted;
    /** Guarded by lock: the name of every provider that was ever effective (registered or discovered). */
    private final Set<String> everRegistered = new HashSet<>();
    /** Guarded by lock: the transport last announced to listeners (initially none). */
    private Transport announced;
    /** Guarded by lock: change events not yet delivered. */
    private final ArrayDeque<Transport[]> pendingEvents = new ArrayDeque<>();
    /** Guarded by lock: a thread is delivering events. */
    private boolean delivering;
    /** Why the last configuration of PID io.conduit.transport was rejected, or {@code null}. */
    private volatile String rejectedConfiguration;
    /** Written under lock, read without: the last selection; {@code null} after a change invalidates it. */
    private volatile Snapshot cached;

    /** A selection with the inputs it was made from. */
    private static final class Snapshot {
        final ConduitProperties props;
        final List<TransportProvider> providers;
        final TransportSelection selection;
        final Transport transport;
        final UnavailableTransportException transportFailure;
        final List<String> notes;

        Snapshot(ConduitProperties props, List<TransportProvider> providers, TransportSelection selection,
                Transport transport, UnavailableTransportException transportFailure, List<String> notes) {
            this.props = props;
            this.providers = providers;
            this.selection = selection;
            this.transport = transport;
            this.transportFailure = transportFailure;
            this.notes = notes;
        }
    }

    /**
     * @param discovery finds providers (e.g. with {@link ServiceLoader}), adding a line to the given list for each
     *        one that fails to load; called once, on first use
     * @param properties reads the current property snapshot; called on every selection query
     */
    public TransportRegistry(Function<List<String>, List<TransportProvider>> discovery,
            Supplier<ConduitProperties> properties) {
        this(discovery, properties, LOG);
    }

    /** Like {@link #TransportRegistry(Function, Supplier)}, logging to {@code log} (tests). */
    public TransportRegistry(Function<List<String>, List<TransportProvider>> discovery,
            Supplier<ConduitProperties> properties, System.Logger log) {
        this.log = Objects.requireNonNull(log, "log");
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.properties = Objects.requireNonNull(properties, "properties");
    }

    /** @return the instance behind the static facade: {@link ServiceLoader} discovery and system properties */
    public static TransportRegistry global() {
        TransportRegistry r = global;
        if (r == null) {
            synchronized (TransportRegistry.class) {
                r = global;
                if (r == null) {
                    global = r = new TransportRegistry(TransportRegistry::discoverWithServiceLoader,
                            ConduitProperties::fromSystem);
                }
            }
        }
        return r;
    }

    /**
     * Finds providers with {@link ServiceLoader} through the API's own class loader and the thread context class
     * loader of the calling thread, keeping the first provider of each name. Providers that fail to load are
     * skipped; {@code problems} receives one line for each.
     */
    public static List<TransportProvider> discoverWithServiceLoader(List<String> problems) {
        List<ClassLoader> loaders = new ArrayList<>();
        loaders.add(TransportRegistry.class.getClassLoader());
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        if (tccl != null && tccl != loaders.get(0)) {
            loaders.add(tccl);
        }
        return discover(loaders, problems);
    }

    /** Like {@link #discoverWithServiceLoader(List)} with explicit class loaders ({@code null} = system). */
    public static List<TransportProvider> discover(List<ClassLoader> loaders, List<String> problems) {
        Map<String, TransportProvider> byName = new LinkedHashMap<>();
        for (ClassLoader loader : loaders) {
            Iterator<TransportProvider> it = ServiceLoader.load(TransportProvider.class, loader).iterator();
            while (true) {
                TransportProvider p;
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    p = it.next();
                } catch (ServiceConfigurationError e) {
                    problems.add("a TransportProvider could not be loaded by " + loader + ": " + e.getMessage());
                    continue;
                }
                byName.putIfAbsent(p.name(), p);
            }
        }
        return List.copyOf(byName.values());
    }

    // ---- providers

    /**
     * Adds a provider (tests, applications). A provider whose name is already taken by an earlier registration is
     * kept but ignored while the earlier one stays registered; programmatic registrations take precedence over
     * discovered providers of the same name. A provider of the same class and name as one a bundle provides as an
     * OSGi service ({@link #registerService}) is that provider seen a second time: it is not kept (the service is
     * used, nothing is reported).
     *
     * @return {@code false} when this very provider object was already registered, or when a bundle provides the
     *         same provider as a service
     */
    public boolean register(TransportProvider provider) {
        return add(provider, false);
    }

    /**
     * Adds a provider that a bundle registered as an OSGi service (the API bundle's service tracker). Like
     * {@link #register}, and a provider of the same class (hence the same bundle) and name that was added with
     * {@link #register} — the same provider instantiated a second time, e.g. from the bundle's
     * {@code META-INF/services} entry — is dropped: the registry keeps no second, non-service instance of it, which
     * would outlive the service when the bundle stops.
     *
     * @return {@code false} when this very provider object was already registered
     */
    public boolean registerService(TransportProvider provider) {
        return add(provider, true);
    }

    private boolean add(TransportProvider provider, boolean service) {
        Objects.requireNonNull(provider, "provider");
        lock.lock();
        try {
            for (TransportProvider p : registered) {
                if (p == provider) {
                    return false;
                }
            }
            if (service) {
                registered.removeIf(p -> !services.contains(p) && sameProvider(p, provider));
                services.add(provider);
            } else {
                for (TransportProvider s : services) {
                    if (sameProvider(s, provider)) {
                        return false;
                    }
                }
            }
            registered.add(provider);
            String goneAgain = SelectionRules.notRegisteredNowPrefix(provider.name());
            warned.removeIf(k -> k.startsWith(goneAgain)); // its next departure is reported again
            recomputeLocked(properties.get());
        } finally {
            lock.unlock();
        }
        deliverEvents();
        notifyProviderListeners();
        return true;
    }

    /** @return whether {@code a} and {@code b} are instances of one provider class (one class loader) with one name */
    private static boolean sameProvider(TransportProvider a, TransportProvider b) {
        return a.getClass() == b.getClass() && a.name().equals(b.name());
    }

    /** @return {@code false} when {@code provider} was not registered with {@link #register} */
    public boolean unregister(TransportProvider provider) {
        Objects.requireNonNull(provider, "provider");
        lock.lock();
        try {
            boolean removed = registered.removeIf(p -> p == provider);
            if (!removed) {
                return false;
            }
            services.remove(provider);
            recomputeLocked(properties.get());
        } finally {
            lock.unlock();
        }
        deliverEvents();
        notifyProviderListeners();
        return true;
    }

    /**
     * Removes every provider of {@code gone} that was registered, in one step: one selection change and one call of
     * each provider listener, not one per provider. The API bundle withdraws all of its providers this way as it
     * stops, so that a {@code ManagedServer} does not move to a transport that is about to go too.
     *
     * <p>Thread-safe; the change listeners and provider listeners are called on the caller's thread, after the
     * registry's lock is released, as for {@link #unregister}.
     *
     * @param gone providers added with {@link #register} or {@link #registerService}; others are ignored
     * @return how many were removed
     * @throws NullPointerException when {@code gone} is {@code null}
     */
    public int unregisterAll(java.util.Collection<? extends TransportProvider> gone) {
        Objects.requireNonNull(gone, "gone");
        int removed = 0;
        lock.lock();
        try {
            for (TransportProvider provider : gone) {
                if (registered.removeIf(p -> p == provider)) {
                    services.remove(provider);
                    removed++;
                }
            }
            if (removed > 0) {
                recomputeLocked(properties.get());
            }
        } finally {
            lock.unlock();
        }
        if (removed > 0) {
            deliverEvents();
            notifyProviderListeners();
        }
        return removed;
    }

    /** @return the effective providers (unique by name) in {@code auto} order */
    public List<TransportProvider> providers() {
        List<TransportProvider> list = new ArrayList<>(current().providers);
        list.sort(SelectionRules.AUTO_ORDER);
        return List.copyOf(list);
    }

    /** @return lines about providers that could not be loaded or were shadowed by one of the same name */
    public List<String> problems() {
        List<String> out = new ArrayList<>(discoveryProblems);
        out.addAll(current().notes);
        return out;
    }

    // ---- selection

    /** @return the current selection; recomputed when an input changed */
    public TransportSelection selection() {
        return current().selection;
    }

    /**
     * @return the selected transport
     * @throws UnavailableTransportException when none can be selected; a new exception each call, with the
     *         selection's message, cause and suppressed causes
     */
    public Transport selected() {
        Snapshot s = current();
        if (s.transportFailure != null) {
            throw copy(s.transportFailure);
        }
        return s.transport;
    }

    /**
     * @return the registered, available transport named {@code name} (honouring {@code conduit.noNative})
     * @throws UnavailableTransportException when it is not registered (the message lists the registered
     *         names and what to add) or unavailable (the cause is its unavailability cause)
     */
    public Transport get(String name) {
        Objects.requireNonNull(name, "name");
        Snapshot s = current();
        TransportSelection.Candidate c = s.selection.candidate(name).orElse(null);
        if (c == null) {
            List<String> names = new ArrayList<>();
            s.selection.candidates().forEach(x -> names.add(x.name()));
            throw new UnavailableTransportException("no transport named '" + name + "' is registered; registered: "
                    + (names.isEmpty() ? "none (" + SelectionRules.noProviderMessage() + ")" : names), null);
        }
        c.availability().ensureAvailability(name);
        for (TransportProvider p : s.providers) {
            if (p.name().equals(name)) {
                return p.transport();
            }
        }
        throw new IllegalStateException("provider '" + name + "' vanished from the snapshot"); // not reachable
    }

    /**
     * Sets the run-time preference (same syntax as {@code conduit.transport}); {@code null} returns to the
     * system property.
     *
     * @throws IllegalArgumentException when {@code preference} is malformed (the message says what is allowed)
     */
    public void setPreference(String preference) {
        String normalized = null;
        if (preference != null) {
            ConduitProperties.parsePreference("transport preference", preference);
            normalized = preference.trim();
        }
        lock.lock();
        try {
            override = normalized;
            recomputeLocked(properties.get());
        } finally {
            lock.unlock();
        }
        deliverEvents();
    }

    /**
     * Sets the run-time preference and strict flag together, with one recomputation (Configuration Admin PID
     * {@code io.conduit.transport}): {@code preference} replaces {@code conduit.transport} and {@code strict}
     * replaces {@code conduit.transport.strict}; {@code null} returns each to its system property.
     *
     * @throws IllegalArgumentException when {@code preference} is malformed; nothing is changed then
     */
    public void setOverrides(String preference, Boolean strict) {
        String normalized = null;
        if (preference != null) {
            ConduitProperties.parsePreference("transport preference", preference);
            normalized = preference.trim();
        }
        lock.lock();
        try {
            override = normalized;
            strictOverride = strict;
            recomputeLocked(properties.get());
        } finally {
            lock.unlock();
        }
        deliverEvents();
    }

    /**
     * Records that the Configuration Admin configuration of PID {@code io.conduit.transport} was rejected and not
     * applied, or clears that record with {@code null} (a valid configuration was applied, it was deleted, or the API
     * bundle stopped). Does not change the selection. Any thread.
     *
     * @param problem one line naming the PID and every bad property with its value and allowed values
     */
    public void setRejectedConfiguration(String problem) {
        rejectedConfiguration = problem;
    }

    /**
     * @return why the last configuration of PID {@code io.conduit.transport} was rejected (the diagnostics report
     *         and {@code conduit:transports} show it), or {@code null} when none is rejected now
     */
    public String rejectedConfiguration() {
        return rejectedConfiguration;
    }

    /** @return the run-time strict flag, or {@code null} when {@code conduit.transport.strict} applies */
    public Boolean strictOverride() {
        lock.lock();
        try {
            return strictOverride;
        } finally {
            lock.unlock();
        }
    }

    /** @return the run-time preference, or {@code null} when the system property applies */
    public String preferenceOverride() {
        lock.lock();
        try {
            return override;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Holds back the warnings about listed names that are not registered (unknown, or not registered now) until
     * {@link #frameworkStarted()}: the OSGi activator calls this when it starts, so a transport whose bundle has not
     * registered its provider yet, or whose provider its tracker has not added yet, is not reported. Idempotent;
     * any thread.
     */
    public void deferUnknownNameWarnings() {
        lock.lock();
        try {
            deferUnknownNames = true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops logging selection warnings until {@link #unmuteWarnings()}: the OSGi activator calls this when the API
     * bundle stops and when a provider goes away while the framework stops, where providers leave because everything
     * shuts down, not because something is misconfigured. A warning not logged while muted is not remembered as
     * logged, so it comes with a later recomputation if it still applies then. Idempotent; any thread.
     */
    public void muteWarnings() {
        lock.lock();
        try {
            muted = true;
        } finally {
            lock.unlock();
        }
    }

    /** Ends {@link #muteWarnings()}; logs nothing by itself. Idempotent; any thread. */
    public void unmuteWarnings() {
        lock.lock();
        try {
            muted = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends a {@linkplain #deferUnknownNameWarnings() deferral}: recomputes the selection and logs the name warnings
     * that still apply (once each; nothing while {@linkplain #muteWarnings() muted}). Idempotent; a no-op when
     * nothing is deferred.
     */
    public void frameworkStarted() {
        List<Runnable> run;
        lock.lock();
        try {
            if (!deferUnknownNames) {
                return;
            }
            deferUnknownNames = false;
            recomputeLocked(properties.get());
            run = muted ? List.of() : new ArrayList<>(heldBack);
            heldBack.clear();
        } finally {
            lock.unlock();
        }
        deliverEvents();
        run.forEach(Runnable::run);
    }

    /**
     * Runs {@code line} now, or while {@linkplain #deferUnknownNameWarnings() deferred} once the framework has started
     * ({@link #frameworkStarted()}, after the name warnings; dropped when that comes while {@linkplain #muteWarnings()
     * muted}, as the API bundle stops): for a log line that states the selection, which is not known while the
     * transport bundles are still registering their providers. The configuration of PID {@code io.conduit.transport}
     * came before them and logged {@code selected: none (no transport is registered ...)} ahead of the gateway's
     * banner, which then named the transport selected. Any thread.
     *
     * @param line makes and logs the line; must not throw
     */
    public void whenStarted(Runnable line) {
        lock.lock();
        try {
            if (deferUnknownNames) {
                heldBack.add(line);
                return;
            }
        } finally {
            lock.unlock();
        }
        line.run();
    }

    public void addListener(TransportChangeListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(TransportChangeListener listener) {
        listeners.remove(listener);
    }

    /**
     * Adds a hook run after every {@link #register} and {@link #unregister}, also when the selected transport did
     * not change (e.g. a transport that is not selected went away); {@link io.conduit.transport.ManagedServer}
     * uses it to drain connections it kept on such a transport. Runs on the registering thread, after the change
     * events, outside the lock; it must be short and must not throw.
     */
    public void addProviderListener(Runnable listener) {
        providerListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Removes a hook added with {@link #addProviderListener}; unknown hooks are ignored. */
    public void removeProviderListener(Runnable listener) {
        providerListeners.remove(listener);
    }

    private void notifyProviderListeners() {
        for (Runnable r : providerListeners) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.log(System.Logger.Level.WARNING, "provider listener " + r + " failed", e);
            }
        }
    }

    // ---- internals

    private Snapshot current() {
        ConduitProperties props = properties.get();
        Snapshot s = cached;
        if (s != null && s.props.equals(props)) {
            return s;
        }
        lock.lock();
        try {
            s = cached;
            if (s == null || !s.props.equals(props)) {
                s = recomputeLocked(props);
            }
        } finally {
            lock.unlock();
        }
        deliverEvents();
        return s;
    }

    private Snapshot recomputeLocked(ConduitProperties props) {
        if (discovered == null) {
            List<TransportProvider> found;
            try {
                found = discovery.apply(discoveryProblems);
            } catch (RuntimeException | ServiceConfigurationError e) {
                discoveryProblems.add("provider discovery failed: " + e);
                found = List.of();
            }
            discovered = List.copyOf(found);
        }
        Map<String, TransportProvider> byName = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (List<TransportProvider> source : List.of(registered, discovered)) {
            for (TransportProvider p : source) {
                TransportProvider first = byName.putIfAbsent(p.name(), p);
                // The same class (hence the same loader/bundle) as an OSGi service and through META-INF/services
                // is one provider seen twice, not a conflict: the registered service wins silently.
                boolean sameSeenTwice = first != null && source == discovered && first.getClass() == p.getClass()
                        && registered.contains(first);
                if (first != null && first != p && !sameSeenTwice) {
                    notes.add("provider " + p.getClass().getName() + " of transport '" + p.name()
                            + "' is ignored: " + first.getClass().getName() + " already provides that name");
                }
            }
        }
        List<TransportProvider> effective = List.copyOf(byName.values());
        ConduitProperties applied = strictOverride == null ? props
                : props.with(ConduitProperties.STRICT, strictOverride.toString());
        TransportSelection selection = SelectionRules.select(effective, applied, override, Set.copyOf(everRegistered));
        everRegistered.addAll(byName.keySet());
        for (String w : selection.warnings()) {
            boolean nameWarning = SelectionRules.isNameWarning(w);
            if (!muted && !(nameWarning && deferUnknownNames) && warned.add(warningKey(w, nameWarning))) {
                log.log(System.Logger.Level.WARNING, w);
            }
        }
        Transport transport = null;
        UnavailableTransportException failure = selection.failure();
        if (failure == null) {
            TransportProvider chosen = byName.get(selection.selectedName());
            try {
                transport = Objects.requireNonNull(chosen.transport(), "transport() returned null");
            } catch (RuntimeException e) {
                failure = e instanceof UnavailableTransportException ? (UnavailableTransportException) e
                        : new UnavailableTransportException("transport '" + chosen.name()
                                + "' is available but its provider failed to create it: " + e, e);
            }
        }
        Snapshot s = new Snapshot(props, effective, selection, transport, failure, List.copyOf(notes));
        cached = s;
        if (transport != announced) {
            pendingEvents.add(new Transport[] {announced, transport});
            announced = transport;
        }
        return s;
    }

    /**
     * @return the text a name warning is deduplicated by: the part naming the names and the property ("unknown
     *         transport x in conduit.transport='x'", "transport 'epoll' in conduit.transport='epoll' is not
     *         registered now (its bundle stopped?)"), without the registered list, which changes as providers come
     *         and go; other warnings by their whole text
     */
    static String warningKey(String warning, boolean nameWarning) {
        int registeredList = nameWarning ? warning.indexOf(SelectionRules.REGISTERED_MARK) : -1;
        return registeredList < 0 ? warning : warning.substring(0, registeredList);
    }

    private void deliverEvents() {
        while (true) {
            Transport[] event;
            lock.lock();
            try {
                if (delivering || pendingEvents.isEmpty()) {
                    return;
                }
                delivering = true;
                event = pendingEvents.poll();
            } finally {
                lock.unlock();
            }
            try {
                for (TransportChangeListener l : listeners) {
                    try {
                        l.transportChanged(event[0], event[1]);
                    } catch (RuntimeException e) {
                        log.log(System.Logger.Level.WARNING, "transport change listener " + l + " failed", e);
                    }
                }
            } finally {
                lock.lock();
                try {
                    delivering = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    private static UnavailableTransportException copy(UnavailableTransportException e) {
        UnavailableTransportException c = new UnavailableTransportException(e.getMessage(), e.getCause());
        for (Throwable s : e.getSuppressed()) {
            c.addSuppressed(s);
        }
        return c;
    }
}
