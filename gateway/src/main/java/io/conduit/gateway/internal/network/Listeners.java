package io.conduit.gateway.internal.network;

import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.conduit.channel.AddressBindException;
import io.conduit.channel.Channel;
import io.conduit.concurrent.Future;
import io.conduit.gateway.internal.status.ComponentEndpoints;
import io.conduit.gateway.internal.status.GatewayStatus;

/**
 * The listening channels of one gateway component: binds its endpoints, remembers what is listening and what failed,
 * and closes everything (removing Unix socket files) on {@link #close()}. Stream listeners are
 * {@code ManagedServer}s and UDP endpoints {@code ManagedDatagramEndpoint}s (made by {@link BootstrapNetwork}), so a
 * transport swap re-binds them.
 *
 * <p>An endpoint that cannot be bound because its address is in use ({@link AddressBindException.Reason#IN_USE}: a port
 * another process listens on, a Unix socket file or abstract name taken) is bound again every
 * {@value #IN_USE_RETRY_MILLIS} ms, and on every transport change, until it binds or this is closed: a gateway
 * restarted while its old process still holds the port listens once that process is gone. The problem is logged once,
 * not on every attempt; the bind that succeeds is one INFO line. An endpoint whose bind finds no transport selected
 * (the transport bundles or the API bundle stopped meanwhile) waits for the next transport change likewise. With an
 * {@link EarlierFailures} record, an endpoint that listens at once where the component's previous instance (the one
 * before its configuration changed) had a problem is one INFO line too.
 *
 * <p>Thread-safe: {@code bind}/{@code close} may be called from any thread; the lists are guarded by {@code this}.
 */
public final class Listeners implements AutoCloseable, ComponentEndpoints {

    /** How one endpoint is bound: a call of {@link Network#listen} or {@link Network#bindDatagram}. */
    @FunctionalInterface
    public interface Binder {
        CompletionStage<Network.Bound> bind(GatewayUri endpoint);
    }

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");
    /** How long an endpoint whose address is in use waits before it is bound again, in milliseconds. */
    static final long IN_USE_RETRY_MILLIS = 5_000;

    private final long inUseRetryMillis;
    /** Where the previous instance of the component left its problems, and this one leaves its own; may be null. */
    private final EarlierFailures earlier;

    private final String component;
    /** Bound listeners and channels, index for index with {@link #listening}; guarded by this. */
    private final List<Network.Bound> channels = new ArrayList<>();
    /**
     * Bound endpoints' addresses ({@link GatewayUri#describeBound}), shown to users through {@link #describe} when
     * read, so what it adds (e.g. a certificate that was reloaded) is current; guarded by this.
     */
    private final List<String> listening = new ArrayList<>();
    /** The endpoint of each of {@link #channels}, index for index; guarded by this. */
    private final List<GatewayUri> endpointsBound = new ArrayList<>();
    /** One line per problem; guarded by this. */
    private final List<String> failures = new ArrayList<>();
    /** Guarded by this. */
    private boolean closed;
    /**
     * Endpoints the selected transport could not serve ({@link Network.NotOnThisTransport}) or whose address was in
     * use, each with its failure line in {@link #failures}, tried again on every transport change; guarded by this.
     */
    private final Map<GatewayUri, String> waiting = new LinkedHashMap<>();
    /** Waiting endpoints being bound again, each with whether the selection changed meanwhile; guarded by this. */
    private final Map<GatewayUri, Boolean> retrying = new java.util.HashMap<>();
    /** Endpoints whose address was in use, with a timed retry pending; guarded by this. */
    private final java.util.Set<GatewayUri> retryScheduled = new java.util.HashSet<>();
    /** Endpoints given to {@link #bindAll}, to tell an endpoint listed twice; guarded by this. */
    private final List<GatewayUri> endpoints = new ArrayList<>();
    /** Watches transport changes while something is {@link #waiting}; guarded by this. */
    private AutoCloseable watch;
    /** Run after an endpoint's outcome changed after {@link #bindAll} completed (status updates); guarded by this. */
    private Runnable onChange = () -> { };
    /** How the endpoints are shown and bound, kept for the retries; written by {@link #bindAll}, guarded by this. */
    private Function<String, String> describe;
    private Binder binder;
    private Network network;
    /**
     * Asked once {@link #bindAll} is done: whether to log one INFO line per endpoint that listens (nothing else shows
     * it: the launcher's banner was printed before this component started); any thread.
     */
    private volatile java.util.function.BooleanSupplier announce = () -> false;

    /** @param component e.g. {@code "echo io.conduit.gateway.echo-default.cfg"}, the prefix of log lines */
    public Listeners(String component) {
        this(component, IN_USE_RETRY_MILLIS, null);
    }

    /**
     * @param component e.g. {@code "echo io.conduit.gateway.echo-default.cfg"}, the prefix of log lines and the key of
     *                  {@code earlier}
     * @param earlier   what the previous instance of this component left failing, and where this one records its own
     *                  problems when it closes
     */
    public Listeners(String component, EarlierFailures earlier) {
        this(component, IN_USE_RETRY_MILLIS, earlier);
    }

    /**
     * @param component        e.g. {@code "echo io.conduit.gateway.echo-default.cfg"}, the prefix of log lines
     * @param inUseRetryMillis how long an endpoint whose address is in use waits before it is bound again, in ms
     */
    public Listeners(String component, long inUseRetryMillis) {
        this(component, inUseRetryMillis, null);
    }

    Listeners(String component, long inUseRetryMillis, EarlierFailures earlier) {
        this.component = component;
        this.inUseRetryMillis = inUseRetryMillis;
        this.earlier = earlier;
    }

    /**
     * @param announce asked once {@link #bindAll} is done, on any thread: {@code true} logs one INFO line per
     *                 endpoint that listens then, as the launcher's banner shows it, e.g. {@code relay
     *                 io.conduit.gateway.relay-redis.cfg: listening on tcp://127.0.0.1:16379 -> tcp://127.0.0.1:6379,
     *                 on transport 'epoll'} (a configuration file added or changed while the gateway runs)
     */
    public void announceBinds(java.util.function.BooleanSupplier announce) {
        this.announce = java.util.Objects.requireNonNull(announce, "announce");
    }

    /** @param onChange run (on any thread) when an endpoint that waited for a capable transport was bound or failed anew */
    public synchronized void onChange(Runnable onChange) {
        this.onChange = onChange;
    }

    /**
     * Binds each endpoint in turn; a failure is logged as one WARNING line and recorded, and never stops the other
     * endpoints. Completes when every endpoint is bound or has failed. An endpoint listed twice is bound once (the
     * second is a problem saying so). An endpoint the selected transport cannot serve
     * ({@link Network.NotOnThisTransport}, e.g. a Linux abstract Unix name on {@code nio}) is recorded as a problem
     * and bound when a transport that can is selected ({@link Network#onTransportChange}).
     *
     * @param endpoints what to bind
     * @param describe  how a bound endpoint is shown (e.g. with {@code " -> upstream"})
     * @param network   tells about transport changes
     * @param binder    binds one endpoint
     * @return completes (never exceptionally) after the last endpoint's outcome is recorded (and, with an
     *         {@link EarlierFailures} record, what listens now that did not before is logged)
     */
    public CompletableFuture<Void> bindAll(List<GatewayUri> endpoints, Function<String, String> describe, Network network,
            Binder binder) {
        synchronized (this) {
            this.describe = describe;
            this.binder = binder;
            this.network = network;
        }
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        for (GatewayUri endpoint : endpoints) {
            all = all.thenCompose(v -> bindOne(endpoint, true));
        }
        return all.thenRun(this::reportFixed);
    }

    /**
     * Once every endpoint had its first outcome: when the previous instance of this component closed with a problem,
     * one INFO line per endpoint that listens now and did not then; otherwise, when {@link #announceBinds} says so,
     * one INFO line per endpoint that listens. An endpoint still waiting (its address in use) says so itself once it
     * binds.
     */
    private void reportFixed() {
        java.util.Set<GatewayUri> before = earlier == null ? null : earlier.take(component);
        boolean announced = announce.getAsBoolean();
        if (before == null && !announced) {
            return;
        }
        for (BoundEndpoint b : boundEndpoints()) {
            String transport = b.bound().transportName();
            if (transport == null) {
                continue;
            }
            if (before != null && !before.contains(b.endpoint())) {
                LOG.log(System.Logger.Level.INFO, component + ": listening on "
                        + b.endpoint().describeBound(b.bound().localAddress()) + " now, on transport '" + transport
                        + "' (it did not listen before the configuration changed)");
            } else if (announced) {
                LOG.log(System.Logger.Level.INFO, component + ": listening on " + b.shown() + ", on transport '"
                        + transport + "'");
            }
        }
    }

    private CompletableFuture<Void> bindOne(GatewayUri endpoint, boolean first) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (first) {
            String twice = listedTwice(endpoint);
            if (twice != null) {
                fail(twice);
                done.complete(null);
                return done;
            }
        }
        Binder b;
        synchronized (this) {
            b = binder;
        }
        CompletionStage<Network.Bound> f;
        try {
            if (endpoint.kind() == GatewayUri.Kind.UNIX && !endpoint.isAbstract()) {
                UnixSocketFiles.prepareBind(endpoint.path());
            }
            f = b.bind(endpoint);
        } catch (Exception | LinkageError e) {
            outcome(endpoint, null, e, first);
            done.complete(null);
            return done;
        }
        f.whenComplete((ch, failure) -> {
            try {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                outcome(endpoint, ch, cause, first);
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    /**
     * @return the problem line when {@code endpoint} (or an endpoint of the same kind at the same resolved address)
     *         was given before, else {@code null}; records it otherwise
     */
    private String listedTwice(GatewayUri endpoint) {
        java.net.SocketAddress resolved = null;
        if (endpoint.kind() != GatewayUri.Kind.UNIX && endpoint.port() != 0) {
            try {
                resolved = endpoint.address();
            } catch (IllegalArgumentException unresolved) {
                // the bind reports it
            }
        }
        synchronized (this) {
            for (GatewayUri e : endpoints) {
                boolean same = e.equals(endpoint);
                if (!same && resolved != null && e.kind() == endpoint.kind() && e.port() == endpoint.port()) {
                    try {
                        same = resolved.equals(e.address());
                    } catch (IllegalArgumentException unresolved) {
                        same = false;
                    }
                }
                if (same) {
                    return "cannot listen on " + endpoint + ": it is listed twice in 'listen'"
                            + (e.toString().equals(endpoint.toString()) ? "" : " (also as " + e + ")")
                            + "; it listens once: remove the second entry";
                }
            }
            endpoints.add(endpoint);
            return null;
        }
    }

    /** Records the outcome of one bind (or retry) of {@code endpoint}: bound ({@code ch}) or {@code failure}. */
    private void outcome(GatewayUri endpoint, Network.Bound ch, Throwable failure, boolean first) {
        boolean keep = false;
        boolean again = false;
        boolean schedule = false;
        String line = null;
        String before;
        Runnable notify;
        synchronized (this) {
            before = waiting.remove(endpoint);
            if (before != null) {
                failures.remove(before);
            }
            Boolean changedMeanwhile = retrying.remove(endpoint);
            if (failure == null) {
                keep = !closed;
                if (keep) {
                    // in the order of 'listen', also when an endpoint binds later than the ones after it
                    int order = endpoints.indexOf(endpoint);
                    int at = 0;
                    while (at < endpointsBound.size() && endpoints.indexOf(endpointsBound.get(at)) < order) {
                        at++;
                    }
                    channels.add(at, ch);
                    endpointsBound.add(at, endpoint);
                    listening.add(at, endpoint.describeBound(ch.localAddress()));
                }
            } else {
                boolean inUse = inUse(failure);
                // the selection went away between the network's check and the bind: wait for the next one
                boolean noTransport = !inUse && !(failure instanceof Network.NotOnThisTransport)
                        && anyCause(failure, io.conduit.transport.UnavailableTransportException.class::isInstance);
                line = "cannot listen on " + endpoint + ": " + (failure instanceof Network.NotOnThisTransport
                        ? failure.getMessage() : describe(failure))
                        + (inUse ? "; it is tried again every " + retryPeriod() : "")
                        + (noTransport ? "; it listens as soon as a transport is selected" : "");
                failures.add(line);
                if ((failure instanceof Network.NotOnThisTransport || inUse || noTransport) && !closed) {
                    waiting.put(endpoint, line);
                    again = Boolean.TRUE.equals(changedMeanwhile); // the selection moved while this bind ran
                    schedule = inUse && retryScheduled.add(endpoint);
                }
            }
            notify = onChange;
            watchWhileWaitingLocked();
        }
        if (ch != null && !keep) {
            closeQuietly(ch);
        }
        if (line != null && (first || !line.equals(before))) {
            LOG.log(System.Logger.Level.WARNING, component + ": " + line);
        } else if (line == null && !first && keep) {
            LOG.log(System.Logger.Level.INFO, component + ": listening on " + endpoint + " now, on transport '"
                    + ch.transportName() + "'");
        }
        if (!first) {
            notify.run();
        }
        if (again) {
            retryWaiting();
        }
        if (schedule) {
            // the JDK's delay thread, not one of this bundle's: nothing to stop when the bundle stops
            CompletableFuture.delayedExecutor(inUseRetryMillis, TimeUnit.MILLISECONDS)
                    .execute(() -> retryInUse(endpoint));
        }
    }

    /** @return e.g. {@code 5 s} */
    private String retryPeriod() {
        return inUseRetryMillis % 1000 == 0 ? inUseRetryMillis / 1000 + " s" : inUseRetryMillis + " ms";
    }

    /**
     * @return whether {@code failure} says the endpoint's address is in use: its bind failed with
     *         {@link AddressBindException.Reason#IN_USE} (the platform's {@code EADDRINUSE}, another endpoint's claim,
     *         {@link UnixSocketFiles}'s live socket file)
     */
    static boolean inUse(Throwable failure) {
        return AddressBindException.reasonOf(failure) == AddressBindException.Reason.IN_USE;
    }

    /** @return whether {@code failure} or one of its causes meets {@code test} */
    private static boolean anyCause(Throwable failure, java.util.function.Predicate<Throwable> test) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (test.test(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The timed retry of an endpoint whose address was in use: binds it again unless this is closed, it is bound
     * meanwhile, or a retry of it runs already (its outcome schedules the next timed retry if still needed).
     */
    private void retryInUse(GatewayUri endpoint) {
        synchronized (this) {
            retryScheduled.remove(endpoint);
            if (closed || !waiting.containsKey(endpoint) || retrying.containsKey(endpoint)) {
                return;
            }
            retrying.put(endpoint, Boolean.FALSE);
        }
        bindOne(endpoint, false);
    }

    /** Starts or stops watching transport changes as endpoints wait or not; under this. */
    private void watchWhileWaitingLocked() {
        if (!waiting.isEmpty() && watch == null && !closed && network != null) {
            watch = network.onTransportChange(this::retryWaiting);
        } else if ((waiting.isEmpty() || closed) && watch != null) {
            closeQuietly(watch);
            watch = null;
        }
    }

    /**
     * On a transport change: binds again every endpoint that waits for a transport that can serve it; one retry per
     * endpoint at a time (a change during a retry is remembered and tried after it).
     */
    private void retryWaiting() {
        List<GatewayUri> again = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            for (GatewayUri e : waiting.keySet()) {
                if (retrying.containsKey(e)) {
                    retrying.put(e, Boolean.TRUE);
                } else {
                    retrying.put(e, Boolean.FALSE);
                    again.add(e);
                }
            }
        }
        for (GatewayUri e : again) {
            bindOne(e, false);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "closing " + c + " failed", e);
        }
    }

    private static void closeQuietly(Network.Bound b) {
        try {
            b.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @return e.g. {@code BindException: Address already in use}; an {@link AddressBindException} is named by the
     *         JDK type it extends, {@code BindException}, which operators know (its reason is for code, the message
     *         already says it in words)
     */
    static String describe(Throwable t) {
        String m = t.getMessage();
        String type = t instanceof AddressBindException ? "BindException" : t.getClass().getSimpleName();
        return m == null ? type : type + ": " + m;
    }

    /** Records a configuration problem (one WARNING line). */
    public void fail(String problem) {
        LOG.log(System.Logger.Level.WARNING, component + ": " + problem);
        synchronized (this) {
            failures.add(problem);
        }
    }

    /** @return each endpoint listening now, as {@code describe} of {@link #bindAll} shows it at this moment */
    @Override
    public List<String> listening() {
        List<String> addresses;
        Function<String, String> d;
        synchronized (this) {
            addresses = new ArrayList<>(listening);
            d = describe;
        }
        if (d != null) {
            addresses.replaceAll(d::apply); // outside the lock: what it shows may read files (a reloaded certificate)
        }
        return Collections.unmodifiableList(addresses);
    }

    /**
     * @return each endpoint listening now as in {@link #listening()}, followed by the transport it is bound on, e.g.
     *         {@code tcp://127.0.0.1:7007 [epoll]}; every kind of endpoint moves on a transport swap. A bound endpoint
     *         that has no listener or socket now (its transport went away and none that can serve it is selected) is
     *         not here but in {@link #failures()}
     * @see #now()
     */
    @Override
    public List<String> bindings() {
        return now().bindings();
    }

    /**
     * @return one line per problem: what could not be bound or configured, then each bound endpoint that has no
     *         listener or socket now, with why ({@link Network.Bound#problem()})
     * @see #now()
     */
    @Override
    public List<String> failures() {
        return now().failures();
    }

    /**
     * Looks at every bound endpoint once (outside this object's lock: a {@code ManagedServer} takes its own), so each
     * is either listening or a problem, never both or neither.
     *
     * @return {@link #bindings()} and {@link #failures()} of one moment
     */
    @Override
    public GatewayStatus.Now now() {
        List<String> failed;
        synchronized (this) {
            failed = new ArrayList<>(failures);
        }
        List<String> bound = new ArrayList<>();
        for (BoundEndpoint b : boundEndpoints()) {
            String t = b.bound().transportName();
            if (t != null) {
                bound.add(b.shown() + " [" + t + "]");
                continue;
            }
            String problem = b.bound().problem();
            failed.add("cannot listen on " + b.endpoint() + ": " + (problem != null ? problem
                    : "it has no listener or socket now (see the log); it listens again on the next transport change"));
        }
        return new GatewayStatus.Now(bound, failed);
    }

    /**
     * @return the transport each endpoint listens on now, by endpoint as configured; an endpoint that is not bound, or
     *         has no listener or socket now, is absent (looked at outside this object's lock, as {@link #now()})
     */
    public Map<GatewayUri, String> transportsNow() {
        Map<GatewayUri, String> out = new LinkedHashMap<>();
        for (BoundEndpoint b : boundEndpoints()) {
            String t = b.bound().transportName();
            if (t != null) {
                out.put(b.endpoint(), t);
            }
        }
        return out;
    }

    /** One bound endpoint: what was configured, how it is shown, and what was bound. */
    private record BoundEndpoint(GatewayUri endpoint, String shown, Network.Bound bound) {
    }

    private List<BoundEndpoint> boundEndpoints() {
        List<BoundEndpoint> out;
        Function<String, String> d;
        synchronized (this) {
            out = new ArrayList<>(channels.size());
            for (int i = 0; i < channels.size(); i++) {
                out.add(new BoundEndpoint(endpointsBound.get(i), listening.get(i), channels.get(i)));
            }
            d = describe;
        }
        if (d != null) {
            out.replaceAll(b -> new BoundEndpoint(b.endpoint(), d.apply(b.shown()), b.bound()));
        }
        return out;
    }

    /**
     * {@link #close()} with one INFO line first, when something listens: {@code <component>: <why>; it no longer
     * listens on A, B}.
     *
     * @param why e.g. {@code its configuration file was removed}; {@code null} logs nothing
     */
    public void close(String why) {
        if (why != null) {
            List<String> shown = listening();
            if (!shown.isEmpty()) {
                LOG.log(System.Logger.Level.INFO, component + ": " + why + "; it no longer listens on "
                        + String.join(", ", shown));
            }
        }
        close();
    }

    /**
     * Closes every listener and channel; with an {@link EarlierFailures} record, first records whether this instance
     * had a problem and what was listening.
     */
    @Override
    public void close() {
        if (earlier != null) {
            java.util.Set<GatewayUri> listeningNow = new java.util.HashSet<>(transportsNow().keySet());
            earlier.closed(component, !now().failures().isEmpty(), listeningNow);
        }
        List<Network.Bound> toClose;
        synchronized (this) {
            closed = true;
            waiting.clear();
            retryScheduled.clear();
            watchWhileWaitingLocked();
            toClose = new ArrayList<>(channels);
            channels.clear();
            endpointsBound.clear();
            listening.clear();
        }
        boolean interrupted = false;
        for (Network.Bound ch : toClose) {
            try {
                ch.close();
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (ch.localAddress() instanceof UnixDomainSocketAddress unix) {
                UnixSocketFiles.remove(unix.getPath());
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
