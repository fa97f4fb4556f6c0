package io.conduit.transport;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.channel.access.DatagramHandOver;
import io.conduit.internal.concurrent.DefaultPromise;
import io.conduit.internal.metrics.EndpointCounters;
import io.conduit.internal.transport.TransportRegistry;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A UDP socket bound on the {@linkplain Transports#selected() selected transport} that <b>follows it</b>, as
 * {@link ManagedServer} does for listeners: when the selection changes (a transport bundle stopped, started or was
 * updated, {@link Transports#setPreference} / Configuration Admin changed the preference) the endpoint moves its
 * socket to the new transport, at the same address and port, losing as few datagrams as the kernel allows.
 *
 * <pre>{@code
 * ManagedDatagramEndpoint udp = new ManagedDatagramEndpoint(new InetSocketAddress("127.0.0.1", 5353))
 *         .handler(new MyDatagramHandler());   // @Sharable: every transport's channel gets the same instance
 * udp.start().sync();                          // bound on Transports.selected()
 * udp.channel().writeAndFlush(packet);         // the channel taking datagrams now
 * udp.close().sync();
 * }</pre>
 *
 * <h2>What a swap does (the hand-over)</h2>
 * <ol>
 *   <li><b>Bind the successor first.</b> When both transports {@linkplain Transport#supports support}
 *       {@link ChannelOption#SO_REUSEPORT} and the old socket has it on, the new socket is bound to the same address
 *       with {@code SO_REUSEPORT} while the old one is still open; from then on the kernel spreads incoming
 *       datagrams over both (socket(7): by a hash of the sender's address and port).</li>
 *   <li><b>Steer the old socket away.</b> It is {@code connect(2)}ed to a <em>sink</em>, a UDP socket the endpoint
 *       holds for the hand-over and that sends nothing else
 *       ({@link io.conduit.transport.spi.IoDatagramSocket#connectAway}). Linux then never chooses it for other
 *       senders: every new datagram goes to the successor. The datagrams already queued in the old socket stay
 *       readable with their senders (epoll reads them with {@code recvmmsg(2)} as before; java.nio's
 *       {@code connect} would discard them, so the nio transport reads them out just before it connects).</li>
 *   <li><b>Read it dry.</b> The sink sends one marker datagram to the old socket; its receive queue is FIFO, so once
 *       the old channel reads the marker (which the endpoint swallows) everything queued before it has gone through
 *       the handler. Then the old socket is closed. The marker is sent again every 50 ms while it has not arrived
 *       (a full receive queue drops it); after 2 s the old socket is closed anyway.</li>
 * </ol>
 * Lost, per swap: datagrams the kernel dropped anyway (full receive buffers), and on java.nio those that arrive in
 * the old socket between its last read and its {@code connect(2)} (the two calls run back to back). Measured on
 * loopback: see {@code docs/runtime-swap.md}. <b>Fallback</b> (a transport without {@code SO_REUSEPORT} or
 * {@code connectAway}, e.g. kqueue): without {@code connectAway} the old socket is closed right after the successor
 * is bound (what was queued in it is lost); without {@code SO_REUSEPORT} the old socket is closed first and the new
 * one bound after it, and datagrams sent in between are lost (the kernel answers them with ICMP port unreachable).
 *
 * <p><b>Replies during the hand-over.</b> The handler still reads the old socket's queue on the old channel and
 * may answer on it ({@code ctx.write}); from the moment the successor is bound, every write on the old channel is
 * sent from the successor instead (same address and port, so the peer sees no difference; java.nio cannot send
 * from the steered socket at all). Write through {@link #channel()} from elsewhere.
 *
 * <h2>Adopted channels: keep or drain</h2>
 * A datagram endpoint has no accepted connections, but an application often makes channels of its own on the
 * endpoint's event loops (a UDP relay's upstream socket per client). {@link #adopt(Channel)} ties such a channel to
 * the endpoint's transport, with the same two kinds of swap as {@link ManagedServer}:
 * <ul>
 *   <li><b>Selection change</b> (the old transport is still registered and available): adopted channels <b>stay</b>
 *       open on the old transport's event loops and keep working until they close by themselves; the old group
 *       stops after the last one closed.</li>
 *   <li><b>Transport going away</b> (provider unregistered, unavailable, or its name now maps to another instance):
 *       adopted channels are <b>drained</b>: the future {@code adopt} returned completes (so the application stops
 *       sending new work through the channel, e.g. opens a new upstream socket on {@link #channel()}'s loop), the
 *       channel keeps reading for the {@linkplain #gracePeriod grace period} (default 2 s: late replies still
 *       arrive), then it is closed; writes still pending then fail with a {@link TransportSwapException} cause.</li>
 * </ul>
 * {@link #keepAdoptedOnSelectionChange(boolean) keepAdoptedOnSelectionChange(false)} drains on every swap;
 * {@link #close()} closes adopted channels at once.
 *
 * <p>A transport that cannot bind the address or has no UDP ({@code nio-vthread}) is not moved to while the current
 * one is still there (one warning per selection). When nothing can be selected the socket is closed and the
 * endpoint waits; it binds again when a transport is selected.
 *
 * <h2>Threading</h2>
 * Configure before {@link #start()}; afterwards every method may be called from any thread. Swaps run one at a
 * time on the endpoint's own thread ({@code conduit-managed-datagram-…}) and coalesce like {@link ManagedServer}'s.
 * The handler is added to the channel of every transport and may see datagrams from two channels (two event loops)
 * at once during a hand-over, so it must be {@link ChannelHandler.Sharable} and thread-safe.
 */
public final class ManagedDatagramEndpoint {

    private static final System.Logger LOG = System.getLogger(ManagedDatagramEndpoint.class.getName());
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Default grace period of a drained adopted channel, in milliseconds. */
    public static final long DEFAULT_GRACE_PERIOD_MILLIS = 2_000;
    /** Longest wait for a bind, a connect-away or a close during a swap, in milliseconds. */
    private static final long STEP_TIMEOUT_MILLIS = 10_000;
    /** Longest wait for the marker behind the old socket's queue, in milliseconds. */
    private static final long HAND_OVER_TIMEOUT_MILLIS = 2_000;
    /** How often the marker is sent again while it has not arrived, in milliseconds. */
    private static final long MARKER_RESEND_MILLIS = 50;

    private final InetSocketAddress requestedAddress;
    private final int id = NEXT_ID.incrementAndGet();
    private final Object lock = new Object();
    private final TransportChangeListener changeListener = (previous, current) -> requestFollow();
    private final Runnable providerListener = this::requestFollow;

    // configuration: written before start() only
    private final Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
    private ChannelHandler handler;
    private int threads = 1;
    private long gracePeriodNanos = TimeUnit.MILLISECONDS.toNanos(DEFAULT_GRACE_PERIOD_MILLIS);
    private boolean keepAdoptedOnSelectionChange = true;
    /**
     * Swap thread only: the last selection that cannot serve the address (one warning per selection); weak, so a
     * transport whose bundle stopped meanwhile is not kept by it.
     */
    private java.lang.ref.WeakReference<Transport> unsupportedTarget = new java.lang.ref.WeakReference<>(null);

    private enum State { NEW, RUNNING, CLOSED }

    private State state = State.NEW;                    // guarded by lock
    private Generation current;                         // guarded by lock: the socket taking new datagrams
    /** Guarded by lock: old generations (socket handed over or closed; adopted channels kept or draining). */
    private final List<Generation> retiring = new ArrayList<>();
    /**
     * Guarded by lock: every generation from the creation of its group until the group terminated, so
     * {@link #transportOf} and {@link #adopt} find the generation of a loop in any state of a swap (while the new
     * socket binds, before it becomes current, and while the old one is being retired).
     */
    private final List<Generation> live = new ArrayList<>();
    /** Swap thread only: swaps in a row whose transport went away while they bound on it. */
    private int vanishedInARow;
    private volatile InetSocketAddress boundAddress;    // written by the swap thread: the address re-binds use
    private ExecutorService swapThread;                 // guarded by lock, set in start()
    private final DefaultPromise<Void> closeFuture = new DefaultPromise<>(null);
    /** Totals over every generation (io.conduit.metrics); listed from the first bind until close. */
    private final EndpointCounters metrics = new EndpointCounters("ManagedDatagramEndpoint",
            this::metricsName, this::transportName,
            this::adoptedChannels);

    /**
     * @param localAddress where to bind; port 0 picks a free port once, and every later bind uses that port
     */
    public ManagedDatagramEndpoint(InetSocketAddress localAddress) {
        this.requestedAddress = Objects.requireNonNull(localAddress, "localAddress");
    }

    /** An option of every socket (e.g. {@link ChannelOption#SO_RCVBUF}); {@code null} removes it. */
    public <T> ManagedDatagramEndpoint option(ChannelOption<T> option, T value) {
        checkNew();
        Objects.requireNonNull(option, "option");
        if (value == null) {
            options.remove(option);
        } else {
            options.put(option, option.validate(value));
        }
        return this;
    }

    /** @param handler added to the channel of every transport; {@link ChannelHandler.Sharable} and thread-safe */
    public ManagedDatagramEndpoint handler(ChannelHandler handler) {
        checkNew();
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /** @param threads event loops of the group made for each transport (the socket and adopted channels); default 1 */
    public ManagedDatagramEndpoint threads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        checkNew();
        this.threads = threads;
        return this;
    }

    /**
     * @param gracePeriod how long a drained adopted channel (its transport went away) keeps reading before it is
     *        closed; &gt;= 0
     */
    public ManagedDatagramEndpoint gracePeriod(long gracePeriod, TimeUnit unit) {
        if (gracePeriod < 0) {
            throw new IllegalArgumentException("gracePeriod must be >= 0, got " + gracePeriod + " " + unit);
        }
        checkNew();
        this.gracePeriodNanos = unit.toNanos(gracePeriod);
        return this;
    }

    /**
     * @param keep {@code true} (default): adopted channels stay on a still-available old transport after a selection
     *        change; {@code false}: they are drained on every swap
     */
    public ManagedDatagramEndpoint keepAdoptedOnSelectionChange(boolean keep) {
        checkNew();
        this.keepAdoptedOnSelectionChange = keep;
        return this;
    }

    private void checkNew() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("ManagedDatagramEndpoint " + requestedAddress + " was started already;"
                        + " configure it before start()");
            }
        }
    }

    /**
     * Binds on {@link Transports#selected()} and starts following the selection.
     *
     * @return succeeds with the bound address, or fails with {@link UnavailableTransportException} (nothing selected)
     *         or the bind error; after a failure the endpoint is closed
     * @throws IllegalStateException when started twice or no handler was set
     */
    public Future<InetSocketAddress> start() {
        DefaultPromise<InetSocketAddress> result = new DefaultPromise<>(null);
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("ManagedDatagramEndpoint " + requestedAddress + " was started already");
            }
            if (handler == null) {
                throw new IllegalStateException("no handler set: call handler(ChannelHandler)");
            }
            state = State.RUNNING;
            swapThread = SwapSteps.newSwapThread("conduit-managed-datagram-" + id);
            swapThread.execute(() -> {
                try {
                    Transport t = Transports.selected();
                    if (t == null || !canBind(t)) {
                        throw new UnavailableTransportException("ManagedDatagramEndpoint " + requestedAddress + ": "
                                + (t == null ? "no transport is selected" : "the selected transport '" + t.name()
                                        + "' cannot bind a UDP socket there") + " (" + Transports.selection() + ")",
                                null);
                    }
                    Generation g = bind(t, true);
                    synchronized (lock) {
                        current = g;
                        if (state == State.RUNNING) {
                            metrics.listed(); // under the lock: a close() meanwhile has unlisted it already
                        }
                    }
                    result.trySuccess(boundAddress);
                    Transports.addListener(changeListener);
                    TransportRegistry.global().addProviderListener(providerListener);
                    boolean closedMeanwhile;
                    synchronized (lock) {
                        closedMeanwhile = state != State.RUNNING;
                    }
                    if (closedMeanwhile) { // close() removed the listeners before they were added
                        Transports.removeListener(changeListener);
                        TransportRegistry.global().removeProviderListener(providerListener);
                        return;
                    }
                    follow(); // a change between selected() and addListener
                } catch (Exception e) {
                    result.tryFailure(e);
                    close();
                }
            });
        }
        return result;
    }

    /** @return the address metrics name this endpoint by: the bound one, or the requested one before the bind */
    private String metricsName() {
        return String.valueOf(boundAddress != null ? boundAddress : requestedAddress);
    }

    /** @return the name of the transport the socket is bound on now, or {@code null} (not started, closed, none) */
    public String transportName() {
        Transport t = transport();
        return t == null ? null : t.name();
    }

    /** @return the transport the socket is bound on now, or {@code null} (not started, closed, none) */
    public Transport transport() {
        synchronized (lock) {
            return current == null ? null : current.transport;
        }
    }

    /**
     * @return the channel taking the endpoint's datagrams now (write replies here: they leave from the endpoint's
     *         address), or {@code null} while no socket is bound
     */
    public DatagramChannel channel() {
        synchronized (lock) {
            return current == null ? null : current.channel;
        }
    }

    /** @return the bound address (with the actual port), or {@code null} before the first bind succeeded */
    public InetSocketAddress localAddress() {
        return boundAddress;
    }

    /**
     * @param loop an event loop, e.g. {@code ctx.channel().eventLoop()}
     * @return the transport whose group (made by this endpoint) holds {@code loop}, or {@code null}
     */
    public Transport transportOf(EventLoop loop) {
        Generation g = generationOf(loop);
        return g == null ? null : g.transport;
    }

    /** @return adopted channels open now, on the current transport and on old ones */
    public int adoptedChannels() {
        synchronized (lock) {
            int n = current == null ? 0 : current.adopted.size();
            for (Generation g : retiring) {
                n += g.adopted.size();
            }
            return n;
        }
    }

    private Generation generationOf(EventLoop loop) {
        if (loop == null) {
            return null;
        }
        synchronized (lock) {
            for (Generation g : live) {
                if (g.owns(loop)) {
                    return g;
                }
            }
            return null;
        }
    }

    /**
     * Ties {@code channel}, made on one of this endpoint's event loops, to the endpoint's transport: it stays on a
     * still-available transport after a selection change and is drained when its transport goes away (see the class
     * comment); the event loops run until it has closed. Closing it is still its owner's business.
     *
     * @return completes when the channel's drain starts (it is closed a grace period later); fails with an
     *         {@link IllegalArgumentException} when {@code channel} is not on one of this endpoint's loops
     */
    public Future<Void> adopt(Channel channel) {
        DefaultPromise<Void> drained = new DefaultPromise<>(null);
        Generation g = generationOf(channel.eventLoop());
        if (g == null) {
            drained.tryFailure(new IllegalArgumentException(channel + " is not on an event loop of "
                    + "ManagedDatagramEndpoint " + boundAddress + " (make it on channel().eventLoop())"));
            return drained;
        }
        g.adopt(channel, drained);
        return drained;
    }

    /**
     * Stops following the selection, closes the socket and every adopted channel (at once), then stops the event
     * loops. Idempotent.
     *
     * @return succeeds when every event-loop group of the endpoint has terminated
     */
    public Future<Void> close() {
        Transports.removeListener(changeListener);
        TransportRegistry.global().removeProviderListener(providerListener);
        SwapSteps.release(this); // another endpoint may claim the address; its probe still sees this socket until closed
        synchronized (lock) {
            if (state == State.CLOSED) {
                return closeFuture;
            }
            boolean started = state == State.RUNNING;
            state = State.CLOSED;
            metrics.unlisted();
            if (!started) {
                closeFuture.trySuccess(null);
                return closeFuture;
            }
            swapThread.execute(() -> {
                Generation g;
                List<Generation> all;
                synchronized (lock) {
                    g = current;
                    current = null;
                    if (g != null) {
                        retiring.add(g);
                    }
                    all = new ArrayList<>(retiring);
                }
                AtomicInteger left = new AtomicInteger(all.size() + 1);
                Runnable done = () -> {
                    if (left.decrementAndGet() == 0) {
                        closeFuture.trySuccess(null);
                    }
                };
                for (Generation r : all) {
                    r.retired = true;
                    closeChannel(r);
                    r.closeAdopted("ManagedDatagramEndpoint " + boundAddress + " closed");
                    r.maybeRelease();
                    r.group.terminationFuture().addListener(x -> done.run());
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

    /**
     * On the swap thread, after a transport went away while the swap bound on it: follows the current selection
     * again, at most {@link SwapSteps#MAX_SWAP_ATTEMPTS} times in a row; after that the next transport change does.
     */
    private void followAgainAfterVanished() {
        if (++vanishedInARow <= SwapSteps.MAX_SWAP_ATTEMPTS) {
            requestFollow();
        }
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
     * @return whether {@code t} can bind this endpoint's UDP socket; {@code false} for a transport whose bundle was
     *         refreshed away since it was selected (its classes are gone: the answer throws a {@link LinkageError})
     */
    private boolean canBind(Transport t) {
        InetSocketAddress a = boundAddress != null ? boundAddress : requestedAddress;
        try {
            return t.channelTypes().contains(ChannelType.UDP) && t.supportsAddress(a);
        } catch (LinkageError gone) {
            return false;
        }
    }

    /** On the swap thread: moves to the selected transport if it changed. */
    private void follow() {
        Generation old;
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            old = current;
        }
        drainAdoptedWhereGone();
        Transport target;
        try {
            target = Transports.selected();
        } catch (UnavailableTransportException e) {
            target = null;
        }
        if (old != null && old.transport == target) {
            return;
        }
        if (target != null && !canBind(target)) {
            if (old != null && SwapSteps.stillProvided(old.transport)) {
                if (unsupportedTarget.get() != target) {
                    unsupportedTarget = new java.lang.ref.WeakReference<>(target);
                    LOG.log(System.Logger.Level.WARNING, "ManagedDatagramEndpoint " + boundAddress + " stays on '"
                            + old.transport.name() + "': the selected transport '" + target.name() + "' cannot bind "
                            + "a UDP socket there; it moves when a transport that can is selected");
                }
                return;
            }
            target = null;
        }
        unsupportedTarget.clear();
        String oldName = old == null ? "(none)" : old.transport.name();
        String newName = target == null ? "(none)" : target.name();
        String why = "transport swap of ManagedDatagramEndpoint " + boundAddress + " from '" + oldName + "' to '"
                + newName + "'";
        if (target == null) {
            if (old == null) {
                return; // still nothing to bind on and no socket: the warning was given when it closed
            }
            synchronized (lock) {
                current = null;
            }
            LOG.log(System.Logger.Level.WARNING, why + ": no transport that can bind it is selected; the socket is "
                    + "closed until one is");
            retire(old, why, false);
            return;
        }
        boolean overlap = old != null && old.reusePort && target.supports(ChannelOption.SO_REUSEPORT);
        Generation next = null;
        Throwable failure = null;
        if (overlap) {
            try {
                next = bind(target, false);
            } catch (Exception | LinkageError e) {
                if (!SwapSteps.stillProvided(target)) {
                    // went away while binding (a bundle updated and refreshed back to back): keep the old socket
                    LOG.log(System.Logger.Level.INFO, why + ": skipped " + SwapSteps.skipped(target, e) + ", which "
                            + "went away while the swap bound on it; the socket stays on '" + oldName + "' and follows"
                            + " the current selection");
                    followAgainAfterVanished();
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, why + ": binding next to the old socket (SO_REUSEPORT) failed;"
                        + " closing the old socket first (datagrams are lost meanwhile)", e);
                overlap = false;
            }
        }
        if (next == null) {
            if (old != null) {
                old.retired = true;
                closeChannel(old);
            }
            try {
                next = bindAfterClose(target);
            } catch (Exception | LinkageError e) {
                failure = e;
            }
        }
        if (next == null && !SwapSteps.stillProvided(target)) {
            // went away while binding: bind on whatever is selected now (old's socket is closed)
            LOG.log(System.Logger.Level.INFO, why + ": skipped " + SwapSteps.skipped(target, failure) + ", which went "
                    + "away while the swap bound on it; following the current selection");
            synchronized (lock) {
                current = null;
            }
            if (old != null) {
                retire(old, why, false);
            }
            followAgainAfterVanished();
            return;
        }
        if (next == null) {
            metrics.swapFailed();
        }
        if (next == null && old != null && SwapSteps.stillProvided(old.transport)) {
            LOG.log(System.Logger.Level.ERROR, why + " failed: binding on '" + newName + "' failed; trying to "
                    + "bind on '" + oldName + "' again", failure);
            try {
                next = bindAfterClose(old.transport);
            } catch (Exception | LinkageError e) {
                LOG.log(System.Logger.Level.ERROR, "ManagedDatagramEndpoint " + boundAddress + " could not bind on '"
                        + oldName + "' either; no socket until the next transport change", e);
            }
        } else if (next == null) {
            LOG.log(System.Logger.Level.ERROR, why + " failed; no socket until the next transport change", failure);
        }
        vanishedInARow = 0;
        synchronized (lock) {
            current = next;
        }
        if (old == null) {
            if (next != null) {
                LOG.log(System.Logger.Level.INFO, why + ": bound");
            }
            return;
        }
        if (next != null) {
            metrics.swapped(overlap);
        }
        String how = retire(old, why, overlap);
        LOG.log(System.Logger.Level.INFO, why + (overlap ? " (SO_REUSEPORT overlap): " : " (close, then bind): ")
                + how);
    }

    /**
     * On the swap thread: hands {@code old}'s socket over to the current one (when {@code overlap}) or closes it,
     * then keeps or drains its adopted channels.
     *
     * @return what happened, for the log line
     */
    private String retire(Generation old, String why, boolean overlap) {
        synchronized (lock) {
            retiring.add(old);
        }
        old.retired = true; // writes on the old channel now leave from the successor
        String how = overlap ? handOver(old) : "the old socket was closed first";
        closeChannel(old);
        String drain = drainCause(old, why);
        if (drain != null) {
            old.startDrain(drain, gracePeriodNanos);
            how += "; " + old.adopted.size() + " adopted channel(s) on '" + old.transport.name() + "' are drained";
        } else if (!old.adopted.isEmpty()) {
            how += "; " + old.adopted.size() + " adopted channel(s) stay on '" + old.transport.name() + "' until they"
                    + " close";
        }
        old.maybeRelease();
        return how;
    }

    /** On the swap thread: steers the old socket away, reads it dry behind a marker; see the class comment. */
    private String handOver(Generation old) {
        DatagramChannel ch = old.channel;
        InetSocketAddress local = ch.localAddress();
        InetAddress sinkIp = local.getAddress();
        try {
            if (sinkIp.isAnyLocalAddress()) { // the loopback address of the wildcard's family (literals: no lookup)
                sinkIp = InetAddress.getByName(sinkIp instanceof Inet6Address ? "::1" : "127.0.0.1");
            }
        } catch (IOException e) {
            return "no loopback address for the hand-over (" + e + "); the old socket was closed with what it held";
        }
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(sinkIp, 0))) {
            InetSocketAddress sinkAddress = (InetSocketAddress) sink.getLocalSocketAddress();
            Future<Boolean> away = DatagramHandOver.connectAway(ch, sinkAddress);
            if (!away.await(STEP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS) || !away.isSuccess()) {
                return "connecting the old socket away failed (" + away.cause() + "); it was closed with what it held";
            }
            if (!away.getNow()) {
                return "transport '" + old.transport.name() + "' cannot connect a socket away; the old socket was "
                        + "closed with what it held";
            }
            byte[] token = new byte[16];
            RANDOM.nextBytes(token);
            old.expectMarker(sinkAddress.getPort(), token);
            // the old socket is now connected to the sink, so its local address is the sink's side of that route
            InetSocketAddress to = new InetSocketAddress(sinkIp, local.getPort());
            java.net.DatagramPacket marker = new java.net.DatagramPacket(token, token.length, to);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HAND_OVER_TIMEOUT_MILLIS);
            do {
                sink.send(marker);
                if (old.markerSeen.await(MARKER_RESEND_MILLIS, TimeUnit.MILLISECONDS)) {
                    return "the old socket was connected away and read dry (" + old.readAfterBind.get()
                            + " datagram(s) read from it after the new bind)";
                }
            } while (System.nanoTime() - deadline < 0 && ch.isOpen());
            return "the old socket was connected away; its marker did not come back within "
                    + HAND_OVER_TIMEOUT_MILLIS + " ms, so it was closed with what it still held";
        } catch (IOException e) {
            return "the hand-over failed (" + e + "); the old socket was closed with what it held";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "the hand-over was interrupted; the old socket was closed";
        }
    }

    /** @return {@code null} when {@code g}'s adopted channels stay (selection change), else their drain cause */
    private String drainCause(Generation g, String why) {
        if (!keepAdoptedOnSelectionChange) {
            return why;
        }
        if (SwapSteps.stillProvided(g.transport)) {
            return null;
        }
        return why + " ('" + g.transport.name() + "' went away: its provider was unregistered or it is unavailable)";
    }

    /** On the swap thread: drains the adopted channels kept on old transports that are no longer provided. */
    private void drainAdoptedWhereGone() {
        List<Generation> old;
        synchronized (lock) {
            old = new ArrayList<>(retiring);
        }
        for (Generation g : old) {
            if (g.drainCause == null && !SwapSteps.stillProvided(g.transport)) {
                g.startDrain("ManagedDatagramEndpoint " + boundAddress + " kept channels on '" + g.transport.name()
                        + "' after a transport swap, then '" + g.transport.name() + "' went away", gracePeriodNanos);
            }
        }
    }

    /** On the swap thread, after the old socket was closed: binds on {@code t} ({@link SwapSteps#bindAfterClose}). */
    private Generation bindAfterClose(Transport t) throws Exception {
        return SwapSteps.bindAfterClose(() -> bind(t, true), t);
    }

    /**
     * On the swap thread: a group and a bound socket on {@code t}.
     *
     * @param probe whether to check first that no other socket is bound to the address; {@code false} only for the
     *        overlap bind, which joins this endpoint's own old socket
     */
    private Generation bind(Transport t, boolean probe) throws Exception {
        boolean reuse = t.supports(ChannelOption.SO_REUSEPORT);
        InetSocketAddress address = boundAddress != null ? boundAddress : requestedAddress;
        if (reuse && probe) {
            SwapSteps.claim(false, address, this, "ManagedDatagramEndpoint cannot bind", "ManagedDatagramEndpoint", t);
            probeFree(address, t);
        }
        EventLoopGroup group = t.newEventLoopGroup(threads);
        Generation g = new Generation(t, group);
        SwapSteps.listUntilTerminated(live, lock, g, group); // transportOf names its loops until it terminated
        g.channel = SwapSteps.orShutDown(group, () -> bindSocket(g, t, reuse, address));
        g.reusePort = reuse && Boolean.TRUE.equals(g.channel.config().getOption(ChannelOption.SO_REUSEPORT));
        if (boundAddress == null) {
            boundAddress = g.channel.localAddress();
        }
        return g;
    }

    /** On the swap thread: the socket of {@code g} on {@code t}, bound to {@code address}. */
    private DatagramChannel bindSocket(Generation g, Transport t, boolean reuse, InetSocketAddress address)
            throws Exception {
        EventLoopGroup group = g.group;
        Bootstrap b = new Bootstrap().transport(t).group(group).channelType(ChannelType.UDP)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast("managed-datagram-hand-over", new HandOverHandler(g));
                        channel.pipeline().addLast(handler);
                    }
                });
        for (Map.Entry<ChannelOption<?>, Object> e : options.entrySet()) {
            setOption(b, e.getKey(), e.getValue());
        }
        if (reuse) {
            b.option(ChannelOption.SO_REUSEPORT, Boolean.TRUE);
        }
        return (DatagramChannel) SwapSteps.awaitBound(b.bind(address), address, t, group);
    }

    /**
     * Fails when another socket is bound to {@code address}: binds a plain UDP socket there (neither
     * {@code SO_REUSEADDR} nor {@code SO_REUSEPORT}), which conflicts with any socket bound to the address or the
     * wildcard on its port, then closes it. Without it, {@code SO_REUSEPORT} would let a second endpoint of the same
     * user share the port silently. A port-0 address needs no probe. The window between the probe and the bind is
     * left open.
     *
     * @throws java.net.BindException naming the address and the cause: another socket is bound there, the address
     *         is not one of this host's, or the port needs privileges ({@link SwapSteps#probeFailed})
     */
    private static void probeFree(InetSocketAddress address, Transport t) throws IOException {
        if (address.getPort() == 0) {
            return;
        }
        try (DatagramSocket probe = new DatagramSocket(null)) {
            probe.setReuseAddress(false);
            probe.bind(address);
        } catch (java.net.BindException e) {
            throw SwapSteps.probeFailed("ManagedDatagramEndpoint cannot bind", address, t, "address already in use: "
                    + "another socket is bound there ({system}); stop it or configure another port (checked before "
                    + "binding, as the SO_REUSEPORT used for transport swaps would otherwise share the port with it)",
                    e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void setOption(Bootstrap b, ChannelOption<T> option, Object value) {
        b.option(option, (T) value);
    }

    private static void closeChannel(Generation g) {
        Channel c = g.channel;
        if (c != null) {
            try {
                c.close().await(STEP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One transport's socket, group and adopted channels. */
    private final class Generation {
        final Transport transport;
        final EventLoopGroup group;
        volatile DatagramChannel channel;   // written once by the swap thread after the bind
        volatile boolean reusePort;         // written once by the swap thread: SO_REUSEPORT is on
        /** Written by the swap thread: the socket is handed over or closed; writes on it go to the successor. */
        volatile boolean retired;
        /** Adopted channels still open, with the future their drain completes; concurrent map. */
        final Map<Channel, DefaultPromise<Void>> adopted = new ConcurrentHashMap<>();
        /** Written once under this generation's monitor: why adopted channels are drained; null while kept. */
        volatile String drainCause;
        /** Grace period of the drain, set with {@link #drainCause}. */
        volatile long drainGraceNanos;
        /** The sink's port and the marker's bytes, set by the swap thread before the marker is sent. */
        volatile int markerPort = -1;
        volatile byte[] marker;
        final CountDownLatch markerSeen = new CountDownLatch(1);
        /** Datagrams the old channel read after it was retired (for the log line). */
        final AtomicInteger readAfterBind = new AtomicInteger();
        private final AtomicBoolean released = new AtomicBoolean();

        Generation(Transport transport, EventLoopGroup group) {
            this.transport = transport;
            this.group = group;
        }

        boolean owns(EventLoop loop) {
            return loop.parent() == group || loop == group;
        }

        void expectMarker(int port, byte[] token) {
            marker = token;
            markerPort = port;
        }

        void adopt(Channel c, DefaultPromise<Void> drained) {
            adopted.put(c, drained);
            c.closeFuture().addListener(f -> {
                adopted.remove(c);
                maybeRelease();
            });
            if (drainCause != null) {
                drain(c, drained);
            }
        }

        /** Drains every adopted channel, and those adopted later; the first call's cause wins. */
        void startDrain(String cause, long graceNanos) {
            synchronized (this) {
                if (drainCause != null) {
                    return;
                }
                drainGraceNanos = graceNanos;
                drainCause = cause;
            }
            metrics.drainStarted();
            adopted.forEach(this::drain);
        }

        /** Closes every adopted channel now (a drain already running is cut short). */
        void closeAdopted(String cause) {
            startDrain(cause, 0);
            adopted.forEach((c, drained) -> closeLater(c, drained, 0, cause));
        }

        private void drain(Channel c, DefaultPromise<Void> drained) {
            closeLater(c, drained, drainGraceNanos, drainCause);
        }

        /** Completes {@code drained}, then flushes and closes {@code c} on its loop after {@code graceNanos}. */
        private void closeLater(Channel c, DefaultPromise<Void> drained, long graceNanos, String cause) {
            drained.trySuccess(null);
            Runnable closeIt = () -> {
                if (c.isOpen()) {
                    c.flush();
                    TransportSwapException e = new TransportSwapException(cause + ": channel " + c.id() + " adopted "
                            + "by the endpoint was closed after a grace period of "
                            + TimeUnit.NANOSECONDS.toMillis(graceNanos) + " ms; writes still pending fail");
                    if (c instanceof CoreChannel io) {
                        io.close(e);
                    } else {
                        c.close();
                    }
                }
            };
            try {
                if (graceNanos == 0) {
                    c.eventLoop().execute(closeIt);
                } else {
                    c.eventLoop().schedule(closeIt, graceNanos, TimeUnit.NANOSECONDS);
                }
            } catch (RejectedExecutionException e) {
                c.close();
            }
        }

        void maybeRelease() {
            Channel c = channel;
            if (retired && adopted.isEmpty() && (c == null || !c.isOpen()) && released.compareAndSet(false, true)) {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> {
                    synchronized (lock) {
                        retiring.remove(this);
                    }
                });
            }
        }
    }

    /**
     * First handler of each generation's channel: swallows the hand-over marker (and closes the channel when it
     * arrives: everything queued before it was read), and once the generation is retired sends its writes from the
     * current channel. Not sharable: one per channel.
     */
    private final class HandOverHandler implements ChannelHandler {
        private final Generation generation;

        HandOverHandler(Generation generation) {
            this.generation = generation;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (generation.retired && msg instanceof DatagramPacket p && p.sender() != null) {
                if (p.sender().getPort() == generation.markerPort && isMarker(p.content())) {
                    p.close();
                    generation.markerSeen.countDown();
                    ctx.channel().close();
                    return;
                }
                generation.readAfterBind.incrementAndGet();
            }
            ctx.fireChannelRead(msg);
        }

        private boolean isMarker(Buffer content) {
            byte[] m = generation.marker;
            if (m == null || content.readableBytes() != m.length) {
                return false;
            }
            for (int i = 0; i < m.length; i++) {
                if (content.getByte(content.readerIndex() + i) != m[i]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
            DatagramChannel successor = generation.retired ? channel() : null;
            if (successor == null || successor == ctx.channel()) {
                ctx.write(msg, promise);
                return;
            }
            Future<Void> f;
            try {
                f = successor.write(msg);
            } catch (RuntimeException e) {
                ReferenceCounted.safeRelease(msg);
                promise.tryFailure(e);
                return;
            }
            f.addListener(x -> {
                if (x.isSuccess()) {
                    promise.trySuccess(null);
                } else {
                    promise.tryFailure(x.cause() != null ? x.cause() : new ClosedChannelException());
                }
            });
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            DatagramChannel successor = generation.retired ? channel() : null;
            if (successor != null && successor != ctx.channel()) {
                successor.flush();
            }
            ctx.flush();
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "ManagedDatagramEndpoint[" + (boundAddress != null ? boundAddress : requestedAddress)
                    + ", transport=" + (current == null ? "(none)" : current.transport.name()) + ", retiring="
                    + retiring.size() + ", " + state + "]";
        }
    }
}
