package io.conduit.transport;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.concurrent.DefaultPromise;
import io.conduit.internal.metrics.EndpointCounters;
import io.conduit.internal.transport.TransportRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener (TCP or Unix-domain stream) that runs on the {@linkplain Transports#selected() selected transport}
 * and <b>follows it</b>: when the selection changes (a transport bundle stopped, started or was updated, or
 * {@link Transports#setPreference} / Configuration Admin changed the preference) the server moves to the new
 * transport without being restarted.
 *
 * <pre>{@code
 * ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 8080))
 *         .childHandler(new ChannelInitializer<Channel>() { ... });
 * server.start().sync();          // bound on Transports.selected()
 * ...
 * server.close().sync();          // listener closed, connections drained, event loops stopped
 * }</pre>
 *
 * <h2>Two kinds of swap</h2>
 * <ul>
 *   <li><b>Selection change</b>: the old transport is still there (its provider is still registered and available,
 *       and {@link Transports#get(String) Transports.get(oldName)} still returns the same {@link Transport}
 *       instance), e.g. after {@link Transports#setPreference}, a Configuration Admin update, {@code conduit:use},
 *       or a better-ranked transport appearing. Only the listener moves: the old listener is closed, but the
 *       connections it accepted <b>stay open on the old transport's event loops and keep working</b> until they end
 *       by themselves (peer close, handler close, or {@link #close()}); nothing in flight is cut. The old group is
 *       shut down when its last connection has closed. If the old transport goes away later (below) while such
 *       connections are still open, they are drained then. {@link #keepConnectionsOnSelectionChange(boolean)
 *       keepConnectionsOnSelectionChange(false)} drains them at once instead, as for the second kind.</li>
 *   <li><b>Transport going away</b>: the old transport's provider was unregistered (its bundle stops, is updated or
 *       refreshed, or {@link Transports#unregister} was called), it became unavailable, or its name now maps to
 *       another {@link Transport} instance (a new revision of its bundle). Its connections cannot stay: they are
 *       <b>drained</b> (see Drain below).</li>
 * </ul>
 * Which kind it is is decided when the swap runs on the server's thread (swaps are coalesced, see Threading): a
 * transport bundle stopped and started again before the swap runs, with the same class loader and therefore the
 * same {@code Transport} instance, counts as still there. Provider registrations and removals are watched even when
 * they do not change the selected transport, so connections kept on a transport that later goes away are drained.
 *
 * <h2>What a swap does</h2>
 * <ol>
 *   <li><b>Re-bind.</b> When both the old and the new transport {@linkplain Transport#supports support}
 *       {@link ChannelOption#SO_REUSEPORT} (and the server is TCP), every listener is opened with
 *       {@code SO_REUSEPORT} (socket(7)), the new listener is bound to the same address and port <em>first</em>, and
 *       only then is the old listener closed, so connection attempts are not refused during the swap.
 *       <b>Caveat (Linux):</b> connections that completed the handshake but still wait in the old listener's accept
 *       backlog when it closes are <em>reset</em>, unless the sysctl {@code net.ipv4.tcp_migrate_req=1} (Linux
 *       5.14+, per network namespace) is set, which migrates them to the surviving listener. Set it on hosts where
 *       swaps happen under load.
 *       <br><b>Fallback</b> (Unix-domain listeners, or a transport without {@code SO_REUSEPORT}): the old listener is
 *       closed first (for a Unix-domain listener its socket file is deleted), then the new one is bound: during
 *       that short window (one listener close and one bind) connection attempts are
 *       refused ({@code ECONNREFUSED}/{@code ENOENT}). TCP listeners set {@code SO_REUSEADDR} unless an
 *       {@linkplain #option option} says otherwise, so the port can be bound again while the old transport's
 *       connections are still open (kept or draining).
 *       <br><b>Address already in use.</b> {@code SO_REUSEPORT} alone would let a second listener of the same user
 *       (another {@code ManagedServer}, a second process) bind the same address silently, and the kernel would then
 *       spread connections over both. So every bind that is not the swap overlap (the first bind in {@link #start()},
 *       a bind after closing the old listener, a bind when nothing was listening) first probe-binds a plain socket
 *       without {@code SO_REUSEPORT} on the address: when that fails, the bind fails with a
 *       {@link java.net.BindException} naming the address. Only the overlap bind, which joins this server's own
 *       old listener, skips the probe. Within one process (one copy of this class), every {@code ManagedServer} also
 *       claims its address before the probe, so two servers started at the same moment on one port cannot both pass
 *       the probe: the second fails as above, naming the other. Left open: a socket of another process, or of code
 *       outside these classes, that binds between the probe and the listener's bind,
 *       and, for a port-0 address, a socket of the same user that sets {@code SO_REUSEPORT} itself and binds the
 *       port picked for this server (it cannot know it before) — both need a deliberate, racing peer.</li>
 *   <li><b>Keep</b> (selection change): connections accepted on the old transport stay on it, untouched, including
 *       connections the old listener accepted while it was closing.</li>
 *   <li><b>Drain</b> (transport going away, {@link #close()}, or {@code keepConnectionsOnSelectionChange(false)}).
 *       Connections accepted on the old transport stay on it and are closed gracefully: reading
 *       stops ({@code AUTO_READ} off), pending writes are flushed, then the connection is closed; at the latest
 *       after the {@linkplain #gracePeriod grace period} (default 10 s) it is closed anyway and every write that
 *       could not be flushed fails its promise with a {@link io.conduit.channel.ChannelClosedException} caused by
 *       a {@link TransportSwapException} naming the swap. No write is dropped silently. The drain knows no protocol:
 *       a request in flight on an old connection is cut (its peer sees end of stream) and should be retried. The
 *       flush is detected by writing an empty {@link Buffer} behind the pending writes, so outbound handlers of
 *       the child pipeline must pass an empty buffer through.</li>
 *   <li><b>Release.</b> The old transport's event-loop group (made by this server) is shut down when its listener
 *       is closed and its last connection is gone.</li>
 * </ol>
 * A server whose address the newly selected transport cannot bind ({@link Transport#supportsAddress}, e.g. a Linux
 * abstract Unix name when {@code nio} is selected), or that cannot reach an address the server
 * {@linkplain #requireSupportFor requires} (e.g. a relay's upstream), does not move while its current transport is
 * still available: it logs one warning and keeps listening where it is; it follows again once a transport that can
 * serve it is selected. When its current transport goes away meanwhile, the listener closes and the server waits for
 * such a transport.
 * When nothing can be selected ({@link Transports#selected()} fails or returns {@code null}) the server closes its
 * listener (keeping or draining its connections by the rule above) and waits; it binds again as soon as a
 * transport is selected. If binding on the new transport fails,
 * the server stays on (or returns to) the old transport when it can, and logs the failure.
 * A transport that goes away while the swap binds on it (a bundle updated and refreshed back to back, so the
 * revision the update started is withdrawn at once) is skipped: the attempt's sockets and event loops are closed,
 * an old {@code SO_REUSEPORT} listener keeps listening, nothing is retried on the withdrawn transport, and the swap
 * starts again from the current selection (at most 8 attempts per swap). The swap logs one line naming the skipped
 * transports, not a stack trace per attempt.
 * {@link #transportOf} names the transport of every connection for its whole life, also one accepted while a swap
 * is under way.
 *
 * <h2>Threading</h2>
 * Configure on one thread before {@link #start()}; after that every method may be called from any thread.
 * Swaps run one at a time on a thread of the server's own ({@code conduit-managed-server-…}), never on the thread
 * that changed the selection, so a {@link TransportChangeListener} event returns at once. Several changes in a
 * row are coalesced: the server always moves to whatever {@link Transports#selected()} says when the swap runs.
 * The child handler is added to channels of every transport the server runs on, so it must be
 * {@link ChannelHandler.Sharable} (e.g. a {@link io.conduit.channel.ChannelInitializer}).
 *
 * <h2>Errors</h2>
 * {@link #start()} fails its future with {@link UnavailableTransportException} when no transport is selected, or
 * with the bind error; configuration methods throw {@link IllegalStateException} once started.
 */
public final class ManagedServer {

    private static final System.Logger LOG = System.getLogger(ManagedServer.class.getName());
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    /** Default grace period of a drained connection, in milliseconds. */
    public static final long DEFAULT_GRACE_PERIOD_MILLIS = 10_000;
    /** Longest wait for a bind or a listener close during a swap, in milliseconds. */
    private static final long BIND_TIMEOUT_MILLIS = 10_000;

    private final SocketAddress requestedAddress;
    private final int id = NEXT_ID.incrementAndGet();
    private final Object lock = new Object();
    private final TransportChangeListener changeListener = (previous, current) -> requestFollow();
    /** Told of provider registrations and removals that leave the selection as it was (kept connections). */
    private final Runnable providerListener = this::requestFollow;

    // configuration: written before start() only
    private ChannelType channelType = ChannelType.TCP;
    private final Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
    private final Map<ChannelOption<?>, Object> childOptions = new LinkedHashMap<>();
    /** Addresses every transport the server runs on must also support (e.g. a relay's upstream). */
    private final List<SocketAddress> requiredAddresses = new ArrayList<>();
    private ChannelHandler childHandler;
    private int threads = 1;
    private long gracePeriodNanos = TimeUnit.MILLISECONDS.toNanos(DEFAULT_GRACE_PERIOD_MILLIS);
    private boolean keepConnectionsOnSelectionChange = true;
    /**
     * Swap thread only: the last selection that cannot serve the address (one warning per selection); weak, so a
     * transport whose bundle stopped meanwhile is not kept by it.
     */
    private java.lang.ref.WeakReference<Transport> unsupportedTarget = new java.lang.ref.WeakReference<>(null);

    private enum State { NEW, RUNNING, CLOSED }

    private State state = State.NEW;                    // guarded by lock
    private Generation current;                         // guarded by lock: the listener taking new connections
    /** Guarded by lock: old generations (listener closed; connections kept or draining), group not yet stopped. */
    private final List<Generation> retiring = new ArrayList<>();
    /**
     * Guarded by lock: every generation from the creation of its group until the group terminated, so
     * {@link #transportOf} names the transport of a connection accepted in any state of a swap (while the new
     * listener binds, before it becomes current, and while the old one is being retired).
     */
    private final List<Generation> live = new ArrayList<>();
    private volatile SocketAddress boundAddress;        // written by the swap thread; the address re-binds use
    private ExecutorService swapThread;                 // guarded by lock, set in start()
    private final DefaultPromise<Void> closeFuture = new DefaultPromise<>(null);
    /** Totals over every generation (io.conduit.metrics); listed from the first bind until close. */
    private final EndpointCounters metrics = new EndpointCounters("ManagedServer",
            this::metricsName, this::transportName,
            this::openConnections);

    /**
     * @param localAddress where to listen: an {@link InetSocketAddress} for TCP (port 0 picks a free port once, and
     *        every later re-bind uses that port) or a {@link UnixDomainSocketAddress} with
     *        {@link #channelType channelType(UNIX_STREAM)}
     */
    public ManagedServer(SocketAddress localAddress) {
        this.requestedAddress = Objects.requireNonNull(localAddress, "localAddress");
    }

    /** @param channelType {@link ChannelType#TCP} (default) or {@link ChannelType#UNIX_STREAM} */
    public ManagedServer channelType(ChannelType channelType) {
        Objects.requireNonNull(channelType, "channelType");
        if (channelType != ChannelType.TCP && channelType != ChannelType.UNIX_STREAM) {
            throw new IllegalArgumentException("a ManagedServer listens on TCP or UNIX_STREAM, not " + channelType);
        }
        checkNew();
        this.channelType = channelType;
        return this;
    }

    /** An option of every listener (e.g. {@link ChannelOption#SO_BACKLOG}); {@code null} removes it. */
    public <T> ManagedServer option(ChannelOption<T> option, T value) {
        checkNew();
        put(options, option, value);
        return this;
    }

    /** An option of every accepted channel; {@code null} removes it. */
    public <T> ManagedServer childOption(ChannelOption<T> option, T value) {
        checkNew();
        put(childOptions, option, value);
        return this;
    }

    /** @param childHandler added to every accepted channel, on every transport; must be {@link ChannelHandler.Sharable} */
    public ManagedServer childHandler(ChannelHandler childHandler) {
        checkNew();
        this.childHandler = Objects.requireNonNull(childHandler, "childHandler");
        return this;
    }

    /** @param threads event loops of the group made for each transport (listener and connections); default 1 */
    public ManagedServer threads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        checkNew();
        this.threads = threads;
        return this;
    }

    /**
     * @param gracePeriod longest time a drained connection (its transport went away, or {@link #close()}) gets to
     *        flush its writes before it is closed anyway (its unflushed writes then fail with a
     *        {@link TransportSwapException} cause); &gt;= 0. Connections kept after a selection change have no limit.
     */
    public ManagedServer gracePeriod(long gracePeriod, TimeUnit unit) {
        if (gracePeriod < 0) {
            throw new IllegalArgumentException("gracePeriod must be >= 0, got " + gracePeriod + " " + unit);
        }
        checkNew();
        this.gracePeriodNanos = unit.toNanos(gracePeriod);
        return this;
    }

    /**
     * @param keep {@code true} (default): on a selection change while the old transport is still available, the
     *        connections accepted on it stay open on its event loops until they close by themselves (see the class
     *        comment); {@code false}: they are drained at once, as when the old transport goes away
     */
    public ManagedServer keepConnectionsOnSelectionChange(boolean keep) {
        checkNew();
        this.keepConnectionsOnSelectionChange = keep;
        return this;
    }

    /**
     * Also requires every transport this server runs on to {@linkplain Transport#supportsAddress support}
     * {@code address}, besides its own listening address: e.g. the upstream a relay connects to for every accepted
     * connection (a Linux abstract Unix name only epoll reaches). {@link #start()} fails when the selected transport
     * cannot, and a swap to a selected transport that cannot is not made while the current one is still there (one
     * warning), exactly as for the listening address.
     *
     * <p>Call before {@link #start()}, from one thread (like every setter); may be called more than once, each
     * address adds to the requirement.
     *
     * @param address an address the server's connections use, of any kind
     * @return this server
     * @throws NullPointerException when {@code address} is {@code null}
     * @throws IllegalStateException when the server was started already
     * @since 0.4.0
     */
    public ManagedServer requireSupportFor(SocketAddress address) {
        Objects.requireNonNull(address, "address");
        checkNew();
        requiredAddresses.add(address);
        return this;
    }

    /**
     * @return {@code null} when {@code t} can bind this server's address and reach every
     *         {@linkplain #requireSupportFor required} address, otherwise the first one it cannot
     */
    private SocketAddress unsupportedBy(Transport t) {
        SocketAddress own = boundAddress != null ? boundAddress : requestedAddress;
        if (!t.supportsAddress(own)) {
            return own;
        }
        for (SocketAddress a : requiredAddresses) {
            if (!t.supportsAddress(a)) {
                return a;
            }
        }
        return null;
    }

    /** @return why {@code t} cannot serve this server ({@code unsupported} from {@link #unsupportedBy}), one line */
    private String cannotServe(Transport t, SocketAddress unsupported) {
        boolean own = unsupported.equals(boundAddress != null ? boundAddress : requestedAddress);
        return "transport '" + t.name() + "' cannot " + (own ? "bind " : "reach ") + unsupported + " ("
                + unsupported.getClass().getSimpleName() + "; " + capableTransports(unsupported) + ")";
    }

    /** @return e.g. {@code "transports that can: epoll"}, or that no registered, available one can */
    static String capableTransports(SocketAddress address) {
        List<String> names = new ArrayList<>();
        for (io.conduit.transport.spi.TransportProvider p : Transports.providers()) {
            try {
                if (p.availability().isAvailable() && p.transport().supportsAddress(address)) {
                    names.add(p.name());
                }
            } catch (RuntimeException | LinkageError e) {
                // a provider that cannot make its transport cannot serve it either
            }
        }
        return names.isEmpty() ? "no registered, available transport can" : "transports that can: "
                + String.join(", ", names);
    }

    private static <T> void put(Map<ChannelOption<?>, Object> map, ChannelOption<T> option, T value) {
        Objects.requireNonNull(option, "option");
        if (value == null) {
            map.remove(option);
        } else {
            map.put(option, option.validate(value));
        }
    }

    private void checkNew() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("ManagedServer " + requestedAddress + " was started already; "
                        + "configure it before start()");
            }
        }
    }

    /**
     * Binds on {@link Transports#selected()} and starts following the selection.
     *
     * @return succeeds with the bound address, or fails with {@link UnavailableTransportException} (nothing
     *         selected; its cause is the selection error) or the bind error; after a failure the server is closed.
     *         It always completes: the bind runs on the server's own thread, never on the caller's, and waits at
     *         most 10 s per attempt
     * @throws IllegalStateException when started twice or no child handler was set
     */
    public Future<SocketAddress> start() {
        DefaultPromise<SocketAddress> result = new DefaultPromise<>(null);
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("ManagedServer " + requestedAddress + " was started already");
            }
            if (childHandler == null) {
                throw new IllegalStateException("no child handler set: call childHandler(ChannelHandler)");
            }
            state = State.RUNNING;
            swapThread = SwapSteps.newSwapThread("conduit-managed-server-" + id);
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
     * On the swap thread: the first bind of {@link #start()}, on the selected transport; a transport that goes away
     * while it binds is skipped and the selection read again (at most {@link SwapSteps#MAX_SWAP_ATTEMPTS} times).
     * Completes {@code result} in every case but an exception, which the caller turns into a failure.
     */
    private void bindFirst(DefaultPromise<SocketAddress> result) throws Exception {
        List<String> skipped = new ArrayList<>();
        Generation g = null;
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
                result.tryFailure(new UnavailableTransportException("ManagedServer " + requestedAddress
                        + ": no transport is selected (" + Transports.selection() + ")"
                        + SwapSteps.skippedText(skipped), none));
                close();
                return;
            }
            SocketAddress unsupported = unsupportedBy(t);
            if (unsupported != null) {
                result.tryFailure(new UnavailableTransportException("ManagedServer " + requestedAddress
                        + ": the selected " + cannotServe(t, unsupported) + "; select a transport that can", null));
                close();
                return;
            }
            try {
                g = bind(t);
            } catch (Exception | LinkageError e) {
                if (attempt >= SwapSteps.MAX_SWAP_ATTEMPTS || SwapSteps.stillProvided(t)) {
                    throw e;
                }
                skipped.add(SwapSteps.skipped(t, e));
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
            LOG.log(System.Logger.Level.INFO, "ManagedServer " + boundAddress + " bound on '" + g.transport.name()
                    + "'" + SwapSteps.skippedText(skipped));
        }
        Transports.addListener(changeListener);
        TransportRegistry.global().addProviderListener(providerListener);
        boolean closedMeanwhile;
        synchronized (lock) {
            closedMeanwhile = state != State.RUNNING;
        }
        if (closedMeanwhile) {
            // outside the lock: the registry calls into it
            Transports.removeListener(changeListener);
            TransportRegistry.global().removeProviderListener(providerListener);
            return;
        }
        follow(); // a change between selected() and addListener
    }

    /** @return the address metrics name this endpoint by: the bound one, or the requested one before the bind */
    private String metricsName() {
        return String.valueOf(boundAddress != null ? boundAddress : requestedAddress);
    }

    /** @return the name of the transport the listener runs on now, or {@code null} (not started, closed, none) */
    public String transportName() {
        synchronized (lock) {
            return current == null ? null : current.transport.name();
        }
    }

    /**
     * @return the transport the listener runs on now (the instance {@link Transports#selected()} returned when it
     *         was bound), or {@code null} (not started, closed, none)
     */
    public Transport transport() {
        synchronized (lock) {
            return current == null ? null : current.transport;
        }
    }

    /** @return the bound address (with the actual port), or {@code null} before the first bind succeeded */
    public SocketAddress localAddress() {
        return boundAddress;
    }

    /**
     * The transport of one of this server's event loops, so a handler can make further channels (e.g. an upstream
     * connection of a relay) on the loop of the connection it serves, with the matching transport.
     *
     * @param loop an event loop, typically {@code ctx.channel().eventLoop()} of an accepted connection
     * @return the transport whose group (made by this server) holds {@code loop}, or {@code null} when none does
     *         (not one of this server's loops, or its group was shut down already)
     */
    public Transport transportOf(io.conduit.concurrent.EventLoop loop) {
        if (loop == null) {
            return null;
        }
        synchronized (lock) {
            for (Generation g : live) {
                if (g.owns(loop)) {
                    return g.transport;
                }
            }
            return null;
        }
    }

    /** @return connections open now, on the current transport and on old ones (kept or being drained) */
    public int openConnections() {
        synchronized (lock) {
            int n = current == null ? 0 : current.children.size();
            for (Generation g : retiring) {
                n += g.children.size();
            }
            return n;
        }
    }

    /**
     * Stops following the selection, closes the listener and drains every connection, also those kept on old
     * transports, as a swap to a transport going away does (stop reading, flush, close; at most the grace period),
     * then stops the event loops. Idempotent.
     *
     * @return succeeds when every event-loop group of the server has terminated
     */
    public Future<Void> close() {
        Transports.removeListener(changeListener);
        TransportRegistry.global().removeProviderListener(providerListener);
        SwapSteps.release(this); // another server may claim the address; its probe still sees this listener until closed
        synchronized (lock) {
            if (state == State.CLOSED) {
                return closeFuture;
            }
            if (state == State.NEW) {
                state = State.CLOSED;
                closeFuture.trySuccess(null);
                return closeFuture;
            }
            state = State.CLOSED;
            metrics.unlisted();
            swapThread.execute(() -> {
                Generation g;
                synchronized (lock) {
                    g = current;
                    current = null;
                }
                List<Future<?>> terminations = new ArrayList<>();
                String cause = "ManagedServer " + boundAddress + " closed";
                if (g != null) {
                    retire(g, cause);
                }
                List<Generation> old;
                synchronized (lock) {
                    old = new ArrayList<>(retiring);
                }
                for (Generation r : old) {
                    startDrain(r, cause); // connections kept after selection changes
                    terminations.add(r.group.terminationFuture());
                }
                AtomicInteger left = new AtomicInteger(terminations.size() + 1);
                Runnable done = () -> {
                    if (left.decrementAndGet() == 0) {
                        deleteSocketFile();
                        closeFuture.trySuccess(null);
                    }
                };
                for (Future<?> f : terminations) {
                    f.addListener(x -> done.run());
                }
                done.run();
            });
            swapThread.shutdown();
        }
        return closeFuture;
    }

    /** @return succeeds once {@link #close()} finished (every group terminated) */
    public Future<Void> closeFuture() {
        return closeFuture;
    }

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
     * are closed, the listener still working is left alone, and the swap starts again from the current selection,
     * at most {@link SwapSteps#MAX_SWAP_ATTEMPTS} times. One log line per swap names the transports skipped.
     */
    private void follow() {
        Generation old;
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            old = current;
        }
        drainKeptWhereGone();
        List<String> skipped = new ArrayList<>();
        for (int attempt = 1; attempt <= SwapSteps.MAX_SWAP_ATTEMPTS; attempt++) {
            Outcome o = swapOnce(old, skipped);
            if (o != Outcome.AGAIN) {
                return;
            }
            synchronized (lock) {
                if (state != State.RUNNING) {
                    return;
                }
                old = current; // null when the old listener was closed by the attempt
            }
        }
        LOG.log(System.Logger.Level.WARNING, "transport swap of ManagedServer " + boundAddress + ": every transport "
                + "selected during " + SwapSteps.MAX_SWAP_ATTEMPTS + " attempts went away while binding on it "
                + SwapSteps.skippedText(skipped) + "; it stays on '" + transportName() + "' until the next change");
    }

    /** What one attempt of a swap came to. */
    private enum Outcome { DONE, AGAIN }

    /**
     * On the swap thread: one attempt to move from {@code old} to the selected transport.
     *
     * @param skipped transports that went away during earlier attempts of this swap; this attempt may add one
     * @return {@link Outcome#AGAIN} when the transport it bound on went away meanwhile (the selection is read again)
     */
    private Outcome swapOnce(Generation old, List<String> skipped) {
        Transport target;
        try {
            target = Transports.selected();
        } catch (UnavailableTransportException e) {
            target = null; // nothing can be selected: close the listener and wait for the next change
        }
        if (old != null && old.transport == target) {
            if (!skipped.isEmpty()) {
                LOG.log(System.Logger.Level.INFO, "transport swap of ManagedServer " + boundAddress + ": it stays on '"
                        + target.name() + "', selected again" + SwapSteps.skippedText(skipped));
            }
            return Outcome.DONE;
        }
        SocketAddress unsupported;
        boolean targetReusesPort;
        try {
            unsupported = target == null ? null : unsupportedBy(target);
            targetReusesPort = target != null && canReusePort(target);
        } catch (LinkageError e) {
            // Its bundle was refreshed away since the selection: the classes these answers load are gone (a CI run's
            // swap thread died of NoClassDefFoundError here). Nothing is changed yet: read the selection again.
            skipped.add(SwapSteps.skipped(target, e));
            return Outcome.AGAIN;
        }
        if (unsupported != null && (old == null || SwapSteps.stillProvided(old.transport))) {
            if (unsupportedTarget.get() != target) { // one line per selection, not per re-check
                unsupportedTarget = new java.lang.ref.WeakReference<>(target);
                LOG.log(System.Logger.Level.WARNING, "ManagedServer " + boundAddress + (old == null
                        ? " has no listener: the selected " : " stays on '" + old.transport.name() + "': the selected ")
                        + cannotServe(target, unsupported) + "; it moves when a transport that can is selected");
            }
            return Outcome.DONE;
        }
        if (unsupported != null) {
            // the old transport went away and the selected one cannot serve: no listener until one that can is selected
            LOG.log(System.Logger.Level.WARNING, "ManagedServer " + boundAddress + ": '" + old.transport.name()
                    + "' went away and the selected " + cannotServe(target, unsupported) + "; the listener is closed"
                    + " until a transport that can is selected");
            unsupportedTarget = new java.lang.ref.WeakReference<>(target);
            synchronized (lock) {
                current = null;
            }
            retire(old, drainCause(old, "transport swap of ManagedServer " + boundAddress + " from '"
                    + old.transport.name() + "' to none"));
            return Outcome.DONE;
        }
        unsupportedTarget.clear();
        String oldName = old == null ? "(none)" : old.transport.name();
        String newName = target == null ? "(none)" : target.name();
        String why = "transport swap of ManagedServer " + boundAddress + " from '" + oldName + "' to '" + newName + "'";
        if (target == null) {
            if (old == null) {
                return Outcome.DONE; // still nothing selected and no listener: the warning was given when it closed
            }
            synchronized (lock) {
                current = null;
            }
            LOG.log(System.Logger.Level.WARNING, why + ": no transport is selected; the listener is closed until one is"
                    + SwapSteps.skippedText(skipped));
            retire(old, drainCause(old, why));
            return Outcome.DONE;
        }
        boolean overlap = old != null && old.reusePort && targetReusesPort;
        Generation next = null;
        Throwable failure = null;
        String overlapFailure = null;
        if (overlap) {
            try {
                next = bind(target, false);
            } catch (Exception | LinkageError e) {
                if (!SwapSteps.stillProvided(target)) {
                    skipped.add(SwapSteps.skipped(target, e));
                    return Outcome.AGAIN; // the old listener is untouched and still takes connections
                }
                overlapFailure = "binding next to the old listener (SO_REUSEPORT) failed (" + e + ")";
                overlap = false;
            }
        }
        if (next == null) {
            if (old != null) {
                closeListener(old); // fallback: a short window where connection attempts are refused
                deleteSocketFile();
            }
            try {
                next = bindAfterClose(target);
            } catch (Exception | LinkageError e) {
                failure = e;
            }
        }
        if (next == null && old != null && !SwapSteps.stillProvided(target)) {
            // the old listener is closed: retire it and bind on whatever is selected now
            skipped.add(SwapSteps.skipped(target, failure));
            synchronized (lock) {
                current = null;
            }
            retire(old, drainCause(old, why));
            return Outcome.AGAIN;
        }
        if (next == null && old == null && !SwapSteps.stillProvided(target)) {
            skipped.add(SwapSteps.skipped(target, failure));
            return Outcome.AGAIN;
        }
        if (next == null) {
            failed(old, why, newName, overlapFailure, failure, skipped);
            return Outcome.DONE;
        }
        synchronized (lock) {
            current = next;
        }
        String drain = old == null ? null : drainCause(old, why);
        LOG.log(System.Logger.Level.INFO, why + (overlap ? " (SO_REUSEPORT overlap)" : old == null ? " (bound)"
                : " (close, then bind)") + (overlapFailure == null ? "" : " after " + overlapFailure)
                + (old == null ? "" : drain == null ? "; the connections on '" + oldName + "' stay open on it"
                        + " until they close ('" + oldName + "' is still available)"
                        : "; the connections on '" + oldName + "' are drained") + SwapSteps.skippedText(skipped));
        if (old != null) {
            metrics.swapped(overlap);
            retire(old, drain);
        }
        return Outcome.DONE;
    }

    /**
     * On the swap thread: binding on the selected transport (still registered) failed and {@code old}'s listener, if
     * any, is closed: binds on {@code old}'s transport again when it is still there, otherwise waits for the next
     * change. Logs one line with the failure.
     */
    private void failed(Generation old, String why, String newName, String overlapFailure, Throwable failure,
            List<String> skipped) {
        String before = (overlapFailure == null ? "" : overlapFailure + ", then ") + SwapSteps.skippedText(skipped);
        metrics.swapFailed();
        if (old == null) {
            LOG.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed" + before
                    + "; no listener until the next transport change", failure);
            return;
        }
        String oldName = old.transport.name();
        Generation back = null;
        Throwable again = null;
        if (SwapSteps.stillProvided(old.transport)) {
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
            LOG.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed" + before
                    + "; listening on '" + oldName + "' again", failure);
        } else {
            LOG.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed" + before + "; "
                    + (again == null ? "'" + oldName + "' went away too" : "binding on '" + oldName + "' again failed"
                    + " too (" + again + ")") + "; no listener until the next transport change", failure);
        }
        retire(old, drainCause(old, why));
    }

    /**
     * @return {@code null} when {@code g}'s connections stay open on its transport (selection change, the
     *         transport still available, keeping enabled), otherwise the cause text of their drain
     */
    private String drainCause(Generation g, String why) {
        if (g == null) {
            return null; // no old listener, nothing to drain
        }
        if (!keepConnectionsOnSelectionChange) {
            return why;
        }
        if (SwapSteps.stillProvided(g.transport)) {
            return null;
        }
        return why + " ('" + g.transport.name() + "' went away: its provider was unregistered or it is unavailable)";
    }

    /** On the swap thread: drains the connections kept on old transports that are no longer provided. */
    private void drainKeptWhereGone() {
        List<Generation> old;
        synchronized (lock) {
            old = new ArrayList<>(retiring);
        }
        for (Generation g : old) {
            if (g.drainCause == null && !SwapSteps.stillProvided(g.transport)) {
                String name = g.transport.name();
                LOG.log(System.Logger.Level.INFO, "ManagedServer " + boundAddress + ": transport '" + name
                        + "' went away; draining the " + g.children.size() + " connection(s) kept on it");
                startDrain(g, "ManagedServer " + boundAddress + " kept connections on '" + name + "' after a "
                        + "transport swap, then '" + name + "' went away (its provider was unregistered or it is "
                        + "unavailable)");
            }
        }
    }

    private boolean canReusePort(Transport t) {
        return channelType == ChannelType.TCP && t.supports(ChannelOption.SO_REUSEPORT);
    }

    /** On the swap thread, after the old listener was closed: binds on {@code t} ({@link SwapSteps#bindAfterClose}). */
    private Generation bindAfterClose(Transport t) throws Exception {
        return SwapSteps.bindAfterClose(() -> bind(t), t);
    }

    /** On the swap thread: a group and a listener on {@code t}, bound after {@linkplain #probeFree probing}. */
    private Generation bind(Transport t) throws Exception {
        return bind(t, true);
    }

    /**
     * On the swap thread: a group and a bound listener on {@code t}.
     *
     * @param probe whether to check first that no other socket listens on the address; {@code false} only for the
     *        swap overlap, whose bind joins this server's own old listener (the probe would fail against it)
     */
    private Generation bind(Transport t, boolean probe) throws Exception {
        boolean reuse = canReusePort(t);
        SocketAddress address = boundAddress != null ? boundAddress : requestedAddress;
        if (reuse && probe) {
            if (address instanceof InetSocketAddress inet) {
                SwapSteps.claim(true, inet, this, "ManagedServer cannot listen on", "ManagedServer", t);
            }
            probeFree(address, t);
        }
        EventLoopGroup group = t.newEventLoopGroup(threads);
        Generation g = new Generation(t, group);
        SwapSteps.listUntilTerminated(live, lock, g, group); // transportOf names its loops until it terminated
        g.listener = SwapSteps.orShutDown(group, () -> bindListener(g, t, reuse, address));
        g.reusePort = reuse && Boolean.TRUE.equals(g.listener.config().getOption(ChannelOption.SO_REUSEPORT));
        if (boundAddress == null) {
            boundAddress = g.listener.localAddress();
        }
        return g;
    }

    /** On the swap thread: a listener of {@code g} on {@code t}, bound to {@code address}. */
    private Channel bindListener(Generation g, Transport t, boolean reuse, SocketAddress address) throws Exception {
        EventLoopGroup group = g.group;
        ServerBootstrap b = new ServerBootstrap().transport(t).group(group).channelType(channelType)
                .handler(new Tracker(g)).childHandler(childHandler);
        for (Map.Entry<ChannelOption<?>, Object> e : options.entrySet()) {
            setOption(b, e.getKey(), e.getValue(), false);
        }
        for (Map.Entry<ChannelOption<?>, Object> e : childOptions.entrySet()) {
            setOption(b, e.getKey(), e.getValue(), true);
        }
        if (reuse) {
            b.option(ChannelOption.SO_REUSEPORT, Boolean.TRUE);
        }
        if (channelType == ChannelType.TCP && !options.containsKey(ChannelOption.SO_REUSEADDR)) {
            // connections accepted by the old listener still hold the port while they drain: without
            // SO_REUSEADDR (on them and on the new listener) the close-then-bind fallback fails with EADDRINUSE
            b.option(ChannelOption.SO_REUSEADDR, Boolean.TRUE);
        }
        return SwapSteps.awaitBound(b.bind(address), address, t, group);
    }

    /**
     * Fails when another socket listens on {@code address}: binds an unconnected, non-listening TCP socket there
     * with {@code SO_REUSEADDR} and without {@code SO_REUSEPORT}, then closes it. On Linux (socket(7),
     * {@code inet_csk_bind_conflict}) such a bind conflicts with any socket in {@code LISTEN} on the address (also a
     * wildcard one), whether or not it set {@code SO_REUSEPORT}, but not with connections (accepted sockets share
     * the listener's port) nor {@code TIME_WAIT}, so connections kept on an old transport do not trip it. Not
     * listening, the probe never takes a connection. A port-0 address needs no probe: the kernel picks a free port.
     * There is a small race window between closing the probe and binding the listener, in which another socket
     * can still take the address.
     *
     * @throws java.net.BindException naming the address and the cause: another socket listens there, the address is
     *         not one of this host's, or the port needs privileges ({@link SwapSteps#probeFailed})
     */
    private static void probeFree(SocketAddress address, Transport t) throws IOException {
        if (!(address instanceof InetSocketAddress inet) || inet.getPort() == 0) {
            return;
        }
        try (java.net.Socket probe = new java.net.Socket()) {
            probe.setReuseAddress(true);
            probe.bind(inet);
        } catch (java.net.BindException e) {
            throw SwapSteps.probeFailed("ManagedServer cannot listen on", inet, t, "address already in use: another "
                    + "socket listens there ({system}); stop it or configure another port (checked before binding, as"
                    + " the SO_REUSEPORT used for transport swaps would otherwise share the port with it)", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void setOption(ServerBootstrap b, ChannelOption<T> option, Object value, boolean child) {
        if (child) {
            b.childOption(option, (T) value);
        } else {
            b.option(option, (T) value);
        }
    }

    private static void closeListener(Generation g) {
        Channel l = g.listener;
        if (l != null) {
            try {
                l.close().await(BIND_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void deleteSocketFile() {
        if (requestedAddress instanceof UnixDomainSocketAddress u) {
            Path p = u.getPath();
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "deleting the socket file " + p + " failed", e);
            }
        }
    }

    /**
     * On the swap thread: closes {@code g}'s listener, drains its connections when {@code drainCause} is given
     * (otherwise they stay open), and stops its group once the listener is closed and the last connection is gone.
     *
     * @param drainCause the text of the {@link TransportSwapException} of writes the drain fails, or {@code null}
     *        to keep the connections
     */
    private void retire(Generation g, String drainCause) {
        if (g == null) {
            return;
        }
        synchronized (lock) {
            retiring.add(g);
        }
        g.retired = true;
        closeListener(g);
        if (drainCause != null) {
            startDrain(g, drainCause);
        }
        g.maybeRelease();
    }

    /** Drains every connection of {@code g}, and those it accepts later; the first call's cause wins. */
    private void startDrain(Generation g, String cause) {
        synchronized (g) {
            if (g.drainCause != null) {
                return;
            }
            g.drainCause = cause;
        }
        metrics.drainStarted();
        for (Channel c : g.children) {
            drain(g, c);
        }
    }

    /** Stop reading, flush, close once flushed; at the deadline close with a {@link TransportSwapException}. */
    private void drain(Generation g, Channel c) {
        if (!g.draining.add(c)) {
            return;
        }
        try {
            c.eventLoop().execute(() -> {
                if (!c.isOpen()) {
                    return;
                }
                c.config().setAutoRead(false);
                long graceMillis = TimeUnit.NANOSECONDS.toMillis(gracePeriodNanos);
                // writes complete in order, so an empty write completes when everything before it was flushed
                Buffer marker = c.alloc().buffer(0);
                c.writeAndFlush(marker).addListener(f -> c.close());
                boolean[] timedOut = new boolean[1]; // on c's loop only
                io.conduit.concurrent.ScheduledFuture<?> deadline = c.eventLoop().schedule(() -> {
                    if (c.isOpen()) {
                        timedOut[0] = true;
                        TransportSwapException cause = new TransportSwapException(g.drainCause + ": connection "
                                + c.id() + " (" + c.remoteAddress() + ") still had unflushed writes after the grace "
                                + "period of " + graceMillis + " ms; they are failed");
                        if (c instanceof CoreChannel io) {
                            io.close(cause);
                        } else {
                            c.close();
                        }
                    }
                }, gracePeriodNanos, TimeUnit.NANOSECONDS);
                c.closeFuture().addListener(f -> {
                    deadline.cancel(false);
                    metrics.drained(timedOut[0]);
                });
            });
        } catch (RejectedExecutionException e) {
            c.close();
        }
    }

    /** One transport's listener, group and connections. */
    private final class Generation {
        final Transport transport;
        final EventLoopGroup group;
        volatile boolean reusePort;      // written once by the swap thread after the bind: SO_REUSEPORT is on
        /** Accepted connections still open; concurrent set (added on the listener's loop, removed on close). */
        final Set<Channel> children = ConcurrentHashMap.newKeySet();
        /** Connections a drain was started for; concurrent set. */
        final Set<Channel> draining = ConcurrentHashMap.newKeySet();
        volatile Channel listener;       // written once by the swap thread after the bind
        volatile boolean retired;        // written by the swap thread: the listener is closed or closing
        /** Written once under this generation's monitor: why its connections are drained; null while kept. */
        volatile String drainCause;
        private final java.util.concurrent.atomic.AtomicBoolean released =
                new java.util.concurrent.atomic.AtomicBoolean();

        Generation(Transport transport, EventLoopGroup group) {
            this.transport = transport;
            this.group = group;
        }

        boolean owns(io.conduit.concurrent.EventLoop loop) {
            return loop.parent() == group || loop == group;
        }

        void accepted(Channel child) {
            metrics.accepted();
            children.add(child);
            child.closeFuture().addListener(f -> {
                children.remove(child);
                draining.remove(child);
                maybeRelease();
            });
            if (drainCause != null) {
                drain(this, child); // accepted while the listener was closing, or raced with startDrain
            }
        }

        void maybeRelease() {
            Channel l = listener;
            if (retired && children.isEmpty() && (l == null || !l.isOpen()) && released.compareAndSet(false, true)) {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> {
                    synchronized (lock) {
                        retiring.remove(this);
                    }
                });
            }
        }
    }

    /** The listener's handler: records each accepted channel before the acceptor sets it up. */
    @ChannelHandler.Sharable
    private static final class Tracker implements ChannelHandler {
        private final Generation generation;

        Tracker(Generation generation) {
            this.generation = generation;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.fireChannelRead(msg); // the acceptor gives the child its loop and registers it
            if (msg instanceof Channel child) {
                generation.accepted(child);
            }
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "ManagedServer[" + channelType + " " + (boundAddress != null ? boundAddress : requestedAddress)
                    + ", transport=" + (current == null ? "(none)" : current.transport.name()) + ", retiring="
                    + retiring.size() + ", " + state + "]";
        }
    }
}
