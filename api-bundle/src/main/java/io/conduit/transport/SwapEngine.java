package io.conduit.transport;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.internal.concurrent.DefaultPromise;
import io.conduit.internal.metrics.EndpointCounters;
import io.conduit.internal.transport.TransportRegistry;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The runtime swap of a managed endpoint ({@link ManagedServer}, {@link ManagedDatagramEndpoint}): its state, its
 * swap thread, and the keep / overlap / fall back / rebind / drain algorithm of DESIGN.md, "Selection and swap". A
 * subclass plugs in what differs between a listener and a datagram socket: whether a transport can serve the
 * endpoint, the probe before a bind, the bind itself, the hand-over of an old socket after an overlap, the socket
 * file, and (in its {@link SwapGeneration}) how the channels tied to a generation are drained; how a generation is
 * made and bound is {@link SwapBinding}.
 *
 * <p>Threading: configure before {@link #start()}; every swap step runs on the endpoint's own swap thread, one at a
 * time. Fields shared with other threads name their guard.
 *
 * @param <G> the endpoint's generation: one transport's event-loop group, socket and tied channels
 */
abstract class SwapEngine<G extends SwapGeneration> extends SwapBinding<G> {

    /**
     * Most attempts of one swap: each attempt whose transport went away while it bound (e.g. a bundle update and
     * refresh back to back) starts again from the current selection.
     */
    static final int MAX_SWAP_ATTEMPTS = 8;
    /** Longest wait for a bind, a socket close or a connect-away during a swap, in milliseconds. */
    static final long STEP_TIMEOUT_MILLIS = 10_000;

    private enum State { NEW, RUNNING, CLOSED }

    /** Logs on the facade's logger, so the endpoint's lines keep its name. */
    final System.Logger log;
    /** What the endpoint's socket is called in log lines: {@code "listener"} or {@code "socket"}. */
    private final String socketNoun;
    /** What its tied channels are called: {@code "connection"} or {@code "adopted channel"}. */
    private final String memberNoun;
    /** {@code true} for a TCP or Unix stream listener, {@code false} for a UDP socket. */
    private final String threadName;
    private final TransportChangeListener changeListener = (previous, current) -> requestFollow();
    /** Told of provider registrations and removals that leave the selection as it was (kept channels). */
    private final Runnable providerListener = this::requestFollow;

    // configuration: written before start() only
    /** Grace period of a drain, in nanoseconds. */
    long gracePeriodNanos;
    /** Whether tied channels stay on a still-provided old transport after a selection change. */
    private boolean keepOnSelectionChange = true;

    /**
     * Swap thread only: the last selection that cannot serve the endpoint (one warning per selection); weak, so a
     * transport whose bundle stopped meanwhile is not kept by it.
     */
    private WeakReference<Transport> unsupportedTarget = new WeakReference<>(null);
    private State state = State.NEW;                    // guarded by lock
    private G current;                                  // guarded by lock: the socket taking new traffic
    /** Guarded by lock: old generations (socket closed; tied channels kept or draining), group not yet stopped. */
    private final List<G> retiring = new ArrayList<>();
    private ExecutorService swapThread;                 // guarded by lock, set in start()
    private final DefaultPromise<Void> closeFuture = new DefaultPromise<>(null);
    /** Totals over every generation (io.conduit.metrics); listed from the first bind until close. */
    final EndpointCounters metrics;

    /**
     * @param threadName the swap thread's name, e.g. {@code conduit-managed-server-1}
     * @param gracePeriodNanos the default grace period of a drain
     */
    SwapEngine(System.Logger log, String kind, boolean stream, String threadName, SocketAddress requestedAddress,
            long gracePeriodNanos) {
        super(kind, stream, requestedAddress);
        this.log = log;
        this.socketNoun = stream ? "listener" : "socket";
        this.memberNoun = stream ? "connection" : "adopted channel";
        this.threadName = threadName;
        this.gracePeriodNanos = gracePeriodNanos;
        this.metrics = new EndpointCounters(kind, this::metricsName, this::transportName, this::members);
    }

    // ---- configuration ----

    /** @param threads event loops of the group made for each transport; &gt;= 1 */
    void threads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        checkNew();
        this.threads = threads;
    }

    /** @param gracePeriod the grace period of a drain; &gt;= 0 */
    void gracePeriod(long gracePeriod, TimeUnit unit) {
        if (gracePeriod < 0) {
            throw new IllegalArgumentException("gracePeriod must be >= 0, got " + gracePeriod + " " + unit);
        }
        checkNew();
        this.gracePeriodNanos = unit.toNanos(gracePeriod);
    }

    /** @param keep whether tied channels stay on a still-provided old transport after a selection change */
    void keepOnSelectionChange(boolean keep) {
        checkNew();
        this.keepOnSelectionChange = keep;
    }

    // ---- state and views ----

    /** @throws IllegalStateException once started */
    void checkNew() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException(kind + " " + requestedAddress + " was started already; configure it "
                        + "before start()");
            }
        }
    }

    /**
     * @param missing why the endpoint cannot start (e.g. no handler), or {@code null}
     * @throws IllegalStateException when started already, or with {@code missing}
     */
    void checkStartable(String missing) {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException(kind + " " + requestedAddress + " was started already");
            }
        }
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
    }

    /** @return the address in {@link #toString()}: {@link #address()}; a subclass may add what kind it is */
    String addressLabel() {
        return String.valueOf(address());
    }

    /** @return the bound address (with the actual port), or {@code null} before the first bind succeeded */
    SocketAddress boundAddress() {
        return boundAddress;
    }

    /** swap thread only: the last hand-over steered the {@code SO_REUSEPORT} group ({@link CoreCalls#steerToNewest}) */
    boolean steered;

    /** Removes the steering of the last hand-over, if any, once the old socket is closed. */
    @Override
    void handedOver(G old) {
        G next = current();
        if (!steered || next == null || next.channel == null) {
            return;
        }
        steered = false;
        try {
            CoreCalls.unsteer(next.channel, log, String.valueOf(address()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the current generation, or {@code null} (not started, closed, none) */
    G current() {
        synchronized (lock) {
            return current;
        }
    }

    /** @return the transport the socket is bound on now, or {@code null} */
    Transport transport() {
        G g = current();
        return g == null ? null : g.transport;
    }

    String transportName() {
        Transport t = transport();
        return t == null ? null : t.name();
    }

    /** @return the generation whose group (made by this endpoint) holds {@code loop}, or {@code null} */
    G generationOf(EventLoop loop) {
        if (loop == null) {
            return null;
        }
        synchronized (lock) {
            for (G g : live) {
                if (g.owns(loop)) {
                    return g;
                }
            }
            return null;
        }
    }

    /** @return tied channels open now, on the current transport and on old ones */
    int members() {
        synchronized (lock) {
            int n = current == null ? 0 : current.members();
            for (G g : retiring) {
                n += g.members();
            }
            return n;
        }
    }

    /** Called when {@code g}'s group terminated after its release: it is no longer retiring. */
    void forget(SwapGeneration g) {
        synchronized (lock) {
            retiring.remove(g);
        }
    }

    private String metricsName() {
        return String.valueOf(address());
    }

    Future<Void> closeFuture() {
        return closeFuture;
    }

    // ---- start and close ----

    /**
     * Binds on {@link Transports#selected()} on the swap thread and starts following the selection.
     *
     * @return succeeds with the bound address, or fails; after a failure the endpoint is closed
     */
    Future<SocketAddress> start() {
        DefaultPromise<SocketAddress> result = new DefaultPromise<>(null);
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException(kind + " " + requestedAddress + " was started already");
            }
            state = State.RUNNING;
            swapThread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
            });
            swapThread.execute(() -> {
                try {
                    bindFirst(result);
                } catch (Exception | LinkageError e) {
                    result.tryFailure(e);
                    close();
                }
            });
        }
        return result;
    }

    /**
     * On the swap thread: the first bind, on the selected transport; a transport that goes away while it binds is
     * skipped and the selection read again (at most {@link #MAX_SWAP_ATTEMPTS} times). Completes {@code result} in
     * every case but an exception, which the caller turns into a failure.
     */
    private void bindFirst(DefaultPromise<SocketAddress> result) throws Exception {
        SkippedTransports skipped = new SkippedTransports();
        G g = null;
        for (int attempt = 1; g == null; attempt++) {
            Transport t;
            UnavailableTransportException none = null;
            try {
                t = Transports.selected();
            } catch (UnavailableTransportException e) {
                t = null;
                none = e;
            }
            if (t == null) {
                result.tryFailure(new UnavailableTransportException(kind + " " + requestedAddress + ": no transport "
                        + "is selected (" + Transports.selection() + ")" + skipped.text(), none));
                close();
                return;
            }
            String cannot = cannotServe(t);
            if (cannot != null) {
                result.tryFailure(new UnavailableTransportException(kind + " " + requestedAddress + ": the selected "
                        + cannot + "; select a transport that can", null));
                close();
                return;
            }
            try {
                g = bindOn(t, true);
            } catch (Exception | LinkageError e) {
                if (attempt >= MAX_SWAP_ATTEMPTS || stillProvided(t)) {
                    throw e;
                }
                skipped.add(t, e);
            }
        }
        synchronized (lock) {
            current = g;
            if (state == State.RUNNING) {
                metrics.listed(); // under the lock: a close() meanwhile has unlisted it already
            }
        }
        result.trySuccess(boundAddress);
        if (!skipped.isEmpty()) {
            log.log(System.Logger.Level.INFO, kind + " " + boundAddress + " bound on '" + g.transport.name() + "'"
                    + skipped.text());
        }
        Transports.addListener(changeListener);
        TransportRegistry.global().addProviderListener(providerListener);
        boolean closedMeanwhile;
        synchronized (lock) {
            closedMeanwhile = state != State.RUNNING;
        }
        if (closedMeanwhile) {
            // close() removed the listeners before they were added; outside the lock: the registry calls into it
            Transports.removeListener(changeListener);
            TransportRegistry.global().removeProviderListener(providerListener);
            return;
        }
        follow(); // a change between selected() and addListener
    }

    /**
     * Stops following the selection, closes the socket and every tied channel (each generation's
     * {@link SwapGeneration#closeMembers}), then stops the event loops. Idempotent.
     *
     * @return succeeds when every event-loop group of the endpoint has terminated
     */
    Future<Void> close() {
        Transports.removeListener(changeListener);
        TransportRegistry.global().removeProviderListener(providerListener);
        AddressClaims.release(this); // another endpoint may claim the address; its probe sees this socket until closed
        synchronized (lock) {
            if (state == State.CLOSED) {
                return closeFuture;
            }
            boolean started = state == State.RUNNING;
            state = State.CLOSED;
            if (!started) {
                closeFuture.trySuccess(null);
                return closeFuture;
            }
            metrics.unlisted();
            swapThread.execute(this::closeAll);
            swapThread.shutdown();
        }
        return closeFuture;
    }

    /** On the swap thread, after {@link #close()}: retires every generation and completes the close future. */
    private void closeAll() {
        G g;
        synchronized (lock) {
            g = current;
            current = null;
        }
        String cause = kind + " " + boundAddress + " closed";
        if (g != null) {
            retire(g, null, false);
            socketClosed(); // now: a JVM that exits on SIGTERM may not wait for the groups to terminate
        }
        List<G> all;
        synchronized (lock) {
            all = new ArrayList<>(retiring);
        }
        if (g != null && !all.contains(g)) {
            all.add(g); // its group stopped already
        }
        List<Future<?>> terminations = new ArrayList<>();
        for (G r : all) {
            r.closeMembers(cause); // also the channels kept after selection changes
            r.maybeRelease();
            terminations.add(r.group.terminationFuture());
        }
        AtomicInteger left = new AtomicInteger(terminations.size() + 1);
        Runnable done = () -> {
            if (left.decrementAndGet() == 0) {
                closeFuture.trySuccess(null);
            }
        };
        for (Future<?> f : terminations) {
            f.addListener(x -> done.run());
        }
        done.run();
    }

    // ---- following the selection ----

    private void requestFollow() {
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            try {
                swapThread.execute(this::follow);
            } catch (RejectedExecutionException e) {
                // closing: nothing to follow
            }
        }
    }

    /**
     * On the swap thread: moves to the selected transport if it changed. A transport that goes away while the swap
     * binds on it (its bundle updated and refreshed back to back) is a normal event: the attempt's sockets and group
     * are closed, the socket still working is left alone, and the swap starts again from the current selection, at
     * most {@link #MAX_SWAP_ATTEMPTS} times. One log line per swap names the transports skipped.
     */
    private void follow() {
        G old;
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            old = current;
        }
        drainKeptWhereGone();
        SkippedTransports skipped = new SkippedTransports();
        for (int attempt = 1; attempt <= MAX_SWAP_ATTEMPTS; attempt++) {
            if (swapOnce(old, skipped)) {
                return;
            }
            synchronized (lock) {
                if (state != State.RUNNING) {
                    return;
                }
                old = current; // null when the old socket was closed by the attempt
            }
        }
        log.log(System.Logger.Level.WARNING, "transport swap of " + kind + " " + boundAddress + ": every transport "
                + "selected during " + MAX_SWAP_ATTEMPTS + " attempts went away while binding on it "
                + skipped.text() + "; it stays on '" + transportName() + "' until the next change");
    }

    /**
     * On the swap thread: one attempt to move from {@code old} to the selected transport.
     *
     * @param skipped transports that went away during earlier attempts of this swap; this attempt may add one
     * @return {@code false} when the transport it bound on went away meanwhile (the selection is read again)
     */
    private boolean swapOnce(G old, SkippedTransports skipped) {
        Transport target;
        try {
            target = Transports.selected();
        } catch (UnavailableTransportException e) {
            target = null; // nothing can be selected: close the socket and wait for the next change
        }
        if (old != null && old.transport == target) {
            if (!skipped.isEmpty()) {
                log.log(System.Logger.Level.INFO, "transport swap of " + kind + " " + boundAddress + ": it stays on '"
                        + target.name() + "', selected again" + skipped.text());
            }
            return true;
        }
        String cannot;
        boolean targetReusesPort;
        try {
            cannot = target == null ? null : cannotServe(target);
            targetReusesPort = target != null && reusesPort(target);
        } catch (LinkageError e) {
            // Its bundle was refreshed away since the selection: the classes these answers load are gone (a CI run's
            // swap thread died of NoClassDefFoundError here). Nothing is changed yet: read the selection again.
            skipped.add(target, e);
            return false;
        }
        if (cannot != null) {
            return cannotMove(old, target, cannot);
        }
        unsupportedTarget.clear();
        String oldName = old == null ? "(none)" : old.transport.name();
        String newName = target == null ? "(none)" : target.name();
        String why = "transport swap of " + kind + " " + boundAddress + " from '" + oldName + "' to '" + newName + "'";
        if (target == null) {
            if (old == null) {
                return true; // still nothing selected and no socket: the warning was given when it closed
            }
            synchronized (lock) {
                current = null;
            }
            log.log(System.Logger.Level.WARNING, why + ": no transport is selected; the " + socketNoun + " is closed "
                    + "until one is" + skipped.text());
            retire(old, drainCause(old, why), false);
            socketClosed(); // a listener renamed over its path does not remove the file itself
            return true;
        }
        boolean overlap = old != null && old.reusePort && targetReusesPort;
        G next = null;
        Throwable failure = null;
        String overlapFailure = null;
        java.nio.file.Path renamed = old != null && !overlap ? renamesOver() : null;
        if (renamed != null) {
            try {
                next = bindBesideAndRename(target, renamed);
            } catch (Exception | LinkageError e) {
                if (!stillProvided(target)) {
                    skipped.add(target, e);
                    return false; // the old listener is untouched and still takes traffic
                }
                overlapFailure = "binding beside the old " + socketNoun + " and renaming over " + renamed
                        + " failed (" + e + ")";
                renamed = null;
            }
        }
        if (overlap) {
            try {
                next = bindOn(target, false);
            } catch (Exception | LinkageError e) {
                if (!stillProvided(target)) {
                    skipped.add(target, e);
                    return false; // the old socket is untouched and still takes traffic
                }
                overlapFailure = "binding next to the old " + socketNoun + " (SO_REUSEPORT) failed (" + e + ")";
                overlap = false;
            }
        }
        if (next == null) {
            G prepared = null;
            try {
                // the new transport's group is made while the old socket still serves; its loop threads start on
                // first use (a thread started early and idle outlived a refreshed bundle's classes in a CI run)
                prepared = newGenerationOn(target);
            } catch (Exception | LinkageError e) {
                failure = e;
            }
            if (old != null) {
                // fall back: a short window where the address is not served; kept connections: none queued is lost
                old.closeSocket(drainCause(old, why) == null);
                socketClosed();
            }
            if (prepared != null) {
                try {
                    next = bindAfterClose(prepared);
                } catch (Exception | LinkageError e) {
                    failure = e;
                }
            }
        }
        if (next == null && !stillProvided(target)) {
            // the old socket, if any, is closed: retire it and bind on whatever is selected now
            skipped.add(target, failure);
            if (old != null) {
                synchronized (lock) {
                    current = null;
                }
                retire(old, drainCause(old, why), false);
            }
            return false;
        }
        if (next == null) {
            failed(old, why, newName, overlapFailure, failure, skipped);
            return true;
        }
        synchronized (lock) {
            current = next;
        }
        if (old == null) {
            log.log(System.Logger.Level.INFO, why + " (bound)" + skipped.text());
            return true;
        }
        metrics.swapped(overlap || renamed != null);
        String drain = drainCause(old, why);
        String how = retire(old, drain, overlap);
        log.log(System.Logger.Level.INFO, why + (overlap ? " (SO_REUSEPORT overlap)" : renamed != null
                ? " (bound beside, renamed over " + renamed + ")" : " (close, then bind)")
                + (overlapFailure == null ? "" : " after " + overlapFailure) + (how == null ? "" : ": " + how)
                + "; " + membersText(old) + " on '" + oldName + "' " + (drain == null ? "stay open on it until they "
                + "close ('" + oldName + "' is still available)" : "are drained") + skipped.text());
        return true;
    }

    /**
     * On the swap thread: the selected {@code target} cannot serve the endpoint. While the old transport is still
     * provided the endpoint stays on it (one warning per selection); otherwise its socket closes until a transport
     * that can is selected.
     *
     * @return {@code true} (the swap is done)
     */
    private boolean cannotMove(G old, Transport target, String cannot) {
        if (old == null || stillProvided(old.transport)) {
            if (unsupportedTarget.get() != target) { // one line per selection, not per re-check
                unsupportedTarget = new WeakReference<>(target);
                log.log(System.Logger.Level.WARNING, kind + " " + boundAddress + (old == null ? " has no "
                        + socketNoun + ": the selected " : " stays on '" + old.transport.name() + "': the selected ")
                        + cannot + "; it moves when a transport that can is selected");
            }
            return true;
        }
        log.log(System.Logger.Level.WARNING, kind + " " + boundAddress + ": '" + old.transport.name() + "' went away "
                + "and the selected " + cannot + "; the " + socketNoun + " is closed until a transport that can is "
                + "selected");
        unsupportedTarget = new WeakReference<>(target);
        synchronized (lock) {
            current = null;
        }
        retire(old, drainCause(old, "transport swap of " + kind + " " + boundAddress + " from '"
                + old.transport.name() + "' to none"), false);
        socketClosed();
        return true;
    }

    /**
     * On the swap thread: binding on the selected transport (still registered) failed and {@code old}'s socket, if
     * any, is closed: binds on {@code old}'s transport again when it is still there, otherwise waits for the next
     * change. Logs one line with the failure.
     */
    private void failed(G old, String why, String newName, String overlapFailure, Throwable failure,
            SkippedTransports skipped) {
        String before = ": " + causeText(failure) + (overlapFailure == null ? "" : ", after " + overlapFailure)
                + skipped.text();
        Throwable trace = failure instanceof IOException ? null : failure; // a bug, not the system refusing
        metrics.swapFailed();
        if (old == null) {
            log.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed" + before
                    + "; no " + socketNoun + " until the next transport change", trace);
            return;
        }
        String oldName = old.transport.name();
        G back = null;
        Throwable again = null;
        if (stillProvided(old.transport)) {
            try {
                back = bindAfterClose(old.transport);
            } catch (Exception | LinkageError e) {
                again = e;
            }
        }
        synchronized (lock) {
            current = back;
        }
        if (back != null) {
            log.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed" + before
                    + "; bound on '" + oldName + "' again", trace);
        } else {
            log.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed" + before + "; "
                    + (again == null ? "'" + oldName + "' went away too" : "binding on '" + oldName + "' again failed"
                    + " too (" + causeText(again) + ")") + "; no " + socketNoun + " until the next transport change",
                    trace);
        }
        retire(old, drainCause(old, why), false);
    }

    /** The failure as a log line shows it: its message, or its class when it has none. */
    static String causeText(Throwable failure) {
        if (failure == null) {
            return "unknown cause";
        }
        String m = failure.getMessage();
        return m == null || m.isBlank() ? failure.getClass().getName() : m;
    }

    /**
     * @return {@code null} when {@code g}'s tied channels stay open on its transport (selection change, the
     *         transport still provided, keeping enabled), otherwise the cause text of their drain
     */
    private String drainCause(G g, String why) {
        if (!keepOnSelectionChange) {
            return why;
        }
        if (stillProvided(g.transport)) {
            return null;
        }
        return why + " ('" + g.transport.name() + "' went away: its provider was unregistered or it is unavailable)";
    }

    /** On the swap thread: drains the channels kept on old transports that are no longer provided. */
    private void drainKeptWhereGone() {
        List<G> old;
        synchronized (lock) {
            old = new ArrayList<>(retiring);
        }
        for (G g : old) {
            if (g.drainCause == null && !stillProvided(g.transport)) {
                String name = g.transport.name();
                log.log(System.Logger.Level.INFO, kind + " " + boundAddress + ": transport '" + name + "' went away;"
                        + " draining the " + membersText(g) + " kept on it");
                g.startDrain(kind + " " + boundAddress + " kept " + memberNoun + "s on '" + name + "' after a "
                        + "transport swap, then '" + name + "' went away (its provider was unregistered or it is "
                        + "unavailable)");
            }
        }
    }

    private String membersText(G g) {
        return g.members() + " " + memberNoun + "(s)";
    }

    /**
     * On the swap thread: closes {@code g}'s socket (after handing it over when {@code overlap}), drains its tied
     * channels when {@code drainCause} is given (otherwise they stay open), and stops its group once the socket is
     * closed and the last tied channel is gone.
     *
     * @return what the hand-over did, or {@code null}
     */
    private String retire(G g, String drainCause, boolean overlap) {
        synchronized (lock) {
            retiring.add(g);
        }
        g.retired = true;
        String how = overlap ? handOver(g, drainCause == null) : null;
        // kept: what waits in the accept queue is served here too; drained: closing moves it to the successor
        // when tcp_migrate_req is set (accepting it here would only drain it); closing the endpoint: refused
        boolean closing;
        synchronized (lock) {
            closing = state == State.CLOSED;
        }
        g.closeSocket(drainCause == null && !closing);
        if (overlap) {
            handedOver(g);
        }
        if (drainCause != null) {
            g.startDrain(drainCause);
        }
        g.maybeRelease();
        return how;
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return kind + "[" + addressLabel() + ", transport=" + (current == null ? "(none)"
                    : current.transport.name()) + ", retiring=" + retiring.size() + ", " + state + "]";
        }
    }
}
