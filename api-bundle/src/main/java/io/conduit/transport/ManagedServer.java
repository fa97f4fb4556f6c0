package io.conduit.transport;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.internal.channel.access.ChannelSetup;

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
 * <p>What a swap does is written once, in the project's {@code DESIGN.md}, section "Selection and swap": a
 * selection change <b>keeps</b> the connections on the old transport while it is still provided; a transport that
 * goes away <b>drains</b> them (reading stops, pending writes are flushed, the connection closes; after the
 * {@linkplain #gracePeriod grace period} unflushed writes fail with a {@link TransportSwapException} cause); with
 * {@link ChannelOption#SO_REUSEPORT} on both transports the new listener binds <b>next to</b> the old one, otherwise
 * the old one closes first and, if the new bind fails, binds again. Every bind but that overlap first probes the
 * address, so a taken address fails with a {@link java.net.BindException} naming it. The user's guide is
 * {@code docs/runtime-swap.md}.
 *
 * <h2>Threading</h2>
 * Configure on one thread before {@link #start()}; after that every method may be called from any thread.
 * Swaps run one at a time on a thread of the server's own ({@code conduit-managed-server-…}) and coalesce. The child
 * handler is added to channels of every transport the server runs on, so it must be {@link ChannelHandler.Sharable}
 * (e.g. a {@link io.conduit.channel.ChannelInitializer}). The drain writes an empty {@link Buffer} behind the pending
 * writes, so outbound handlers of the child pipeline must pass an empty buffer through.
 *
 * <h2>Errors</h2>
 * {@link #start()} fails its future with {@link UnavailableTransportException} when no transport is selected, or
 * with the bind error; configuration methods throw {@link IllegalStateException} once started.
 */
public final class ManagedServer extends ManagedEndpoint {

    private static final System.Logger LOG = System.getLogger(ManagedServer.class.getName());
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    /**
     * How long an overlap waits, after steering new connections to the new listener, before it closes the old one,
     * in milliseconds: handshakes the old listener answered just before complete into its queue meanwhile.
     */
    static final long HANDSHAKE_SETTLE_MILLIS = 100;
    /** Default grace period of a drained connection, in milliseconds. */
    public static final long DEFAULT_GRACE_PERIOD_MILLIS = 10_000;

    private final SocketAddress requestedAddress;
    private final Engine engine;

    // configuration: written before start() only
    private ChannelType channelType = ChannelType.TCP;
    private final Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
    private final Map<ChannelOption<?>, Object> childOptions = new LinkedHashMap<>();
    /** Addresses every transport the server runs on must also support (e.g. a relay's upstream). */
    private final List<SocketAddress> requiredAddresses = new ArrayList<>();
    private ChannelHandler childHandler;

    /**
     * @param localAddress where to listen: an {@link InetSocketAddress} for TCP (port 0 picks a free port once, and
     *        every later re-bind uses that port) or a {@link UnixDomainSocketAddress} with
     *        {@link #channelType channelType(UNIX_STREAM)}
     */
    public ManagedServer(SocketAddress localAddress) {
        this.requestedAddress = Objects.requireNonNull(localAddress, "localAddress");
        this.engine = new Engine();
    }

    @Override
    SwapEngine<?> engine() {
        return engine;
    }

    /** @param channelType {@link ChannelType#TCP} (default) or {@link ChannelType#UNIX_STREAM} */
    public ManagedServer channelType(ChannelType channelType) {
        Objects.requireNonNull(channelType, "channelType");
        if (channelType != ChannelType.TCP && channelType != ChannelType.UNIX_STREAM) {
            throw new IllegalArgumentException("a ManagedServer listens on TCP or UNIX_STREAM, not " + channelType);
        }
        engine.checkNew();
        this.channelType = channelType;
        return this;
    }

    /** An option of every listener (e.g. {@link ChannelOption#SO_BACKLOG}); {@code null} removes it. */
    public <T> ManagedServer option(ChannelOption<T> option, T value) {
        engine.checkNew();
        ChannelSetup.putOption(options, option, value);
        return this;
    }

    /** An option of every accepted channel; {@code null} removes it. */
    public <T> ManagedServer childOption(ChannelOption<T> option, T value) {
        engine.checkNew();
        ChannelSetup.putOption(childOptions, option, value);
        return this;
    }

    /**
     * @param childHandler added to every accepted channel, on every transport; must be
     *        {@link ChannelHandler.Sharable}
     */
    public ManagedServer childHandler(ChannelHandler childHandler) {
        engine.checkNew();
        this.childHandler = Objects.requireNonNull(childHandler, "childHandler");
        return this;
    }

    /** @param threads event loops of the group made for each transport (listener and connections); default 1 */
    public ManagedServer threads(int threads) {
        engine.threads(threads);
        return this;
    }

    /**
     * @param gracePeriod longest time a drained connection (its transport went away, or {@link #close()}) gets to
     *        flush its writes before it is closed anyway (its unflushed writes then fail with a
     *        {@link TransportSwapException} cause); &gt;= 0. Connections kept after a selection change have no limit.
     */
    public ManagedServer gracePeriod(long gracePeriod, TimeUnit unit) {
        engine.gracePeriod(gracePeriod, unit);
        return this;
    }

    /**
     * @param keep {@code true} (default): on a selection change while the old transport is still available, the
     *        connections accepted on it stay open on its event loops until they close by themselves (see the class
     *        comment); {@code false}: they are drained at once, as when the old transport goes away
     */
    public ManagedServer keepConnectionsOnSelectionChange(boolean keep) {
        engine.keepOnSelectionChange(keep);
        return this;
    }

    /**
     * Also requires every transport this server runs on to {@linkplain Transport#supportsAddress support}
     * {@code address}, besides its own listening address: e.g. the upstream a relay connects to for every accepted
     * connection (a Linux abstract Unix name only epoll and io_uring reach). {@link #start()} fails when the selected transport
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
        engine.checkNew();
        requiredAddresses.add(address);
        return this;
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
        engine.checkStartable(childHandler == null ? "no child handler set: call childHandler(ChannelHandler)" : null);
        return engine.start();
    }

    /** @return the bound address (with the actual port), or {@code null} before the first bind succeeded */
    public SocketAddress localAddress() {
        return engine.boundAddress();
    }

    /** @return connections open now, on the current transport and on old ones (kept or being drained) */
    public int openConnections() {
        return engine.members();
    }

    /**
     * Stops following the selection, closes the listener and drains every connection, also those kept on old
     * transports, as a swap to a transport going away does (stop reading, flush, close; at most the grace period),
     * then stops the event loops. Idempotent.
     *
     * @return succeeds when every event-loop group of the server has terminated
     */
    public Future<Void> close() {
        return engine.close();
    }

    /** The swap engine with what a listener needs: its probe, its bind, its socket file. */
    private final class Engine extends SwapEngine<Listener> {

        Engine() {
            super(LOG, "ManagedServer", true, "conduit-managed-server-" + NEXT_ID.incrementAndGet(),
                    ManagedServer.this.requestedAddress,
                    TimeUnit.MILLISECONDS.toNanos(DEFAULT_GRACE_PERIOD_MILLIS));
        }

        /**
         * @return {@code null} when {@code t} can bind this server's address and reach every
         *         {@linkplain #requireSupportFor required} address, otherwise why not, naming the first one it cannot
         */
        @Override
        String cannotServe(Transport t) {
            SocketAddress own = address();
            SocketAddress unsupported = t.supportsAddress(own) ? null : own;
            for (int i = 0; unsupported == null && i < requiredAddresses.size(); i++) {
                if (!t.supportsAddress(requiredAddresses.get(i))) {
                    unsupported = requiredAddresses.get(i);
                }
            }
            if (unsupported == null) {
                return null;
            }
            return "transport '" + t.name() + "' cannot " + (unsupported.equals(own) ? "bind " : "reach ") + unsupported
                    + " (" + unsupported.getClass().getSimpleName() + "; " + capableTransports(unsupported) + ")";
        }

        @Override
        String addressLabel() {
            return channelType + " " + address();
        }

        @Override
        boolean reusesPort(Transport t) {
            return channelType == ChannelType.TCP && t.supports(ChannelOption.SO_REUSEPORT);
        }

        /**
         * Binds an unconnected, non-listening TCP socket with {@code SO_REUSEADDR} and without {@code SO_REUSEPORT}.
         * On Linux (socket(7), {@code inet_csk_bind_conflict}) such a bind conflicts with any socket in {@code LISTEN}
         * on the address (also a wildcard one), whether or not it set {@code SO_REUSEPORT}, but not with connections
         * (accepted sockets share the listener's port) nor {@code TIME_WAIT}, so connections kept on an old
         * transport do not trip it. Not listening, the probe never takes a connection.
         */
        @Override
        void probeBind(InetSocketAddress address) throws IOException {
            try (java.net.Socket probe = new java.net.Socket()) {
                probe.setReuseAddress(true);
                probe.bind(address);
            }
        }

        /**
         * Steers the {@code SO_REUSEPORT} group to the new listener (the last to join it, index 1 next to the old
         * one at 0) through whichever of the two transports can (Linux: epoll, io_uring), then waits
         * {@value #HANDSHAKE_SETTLE_MILLIS} ms. New connections then reach only the new listener, so the old one
         * closes with no handshake in flight: Linux resets a connection whose handshake completes while its listener
         * closes, even with {@code tcp_migrate_req}. Connections that stay open are accepted meanwhile; connections
         * that would be drained wait in the queue, for {@code tcp_migrate_req} to move them at the close.
         */
        @Override
        String handOver(Listener old, boolean keep) {
            if (channelType != ChannelType.TCP) {
                return null;
            }
            Listener next = current();
            Channel oldChannel = old.channel;
            if (next == null || next.channel == null || oldChannel == null) {
                return null;
            }
            try {
                String failure = CoreCalls.steerToNewest(next.channel, oldChannel);
                if (failure != null) {
                    return failure.isEmpty() ? null : "steering new connections to the new listener failed ("
                            + failure + "); connections in the old listener's handshake may be reset";
                }
                if (!keep) {
                    oldChannel.config().setAutoRead(false); // queued ones stay for tcp_migrate_req to move
                }
                Thread.sleep(HANDSHAKE_SETTLE_MILLIS);
                steered = true;
                return "new connections steered to the new listener (SO_ATTACH_REUSEPORT_CBPF) "
                        + HANDSHAKE_SETTLE_MILLIS + " ms before the old one closed";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "the hand-over was interrupted";
            }
        }

        /** A Unix-domain listener on a path (not an abstract name) swaps by binding beside and renaming over. */
        @Override
        Path renamesOver() {
            return channelType == ChannelType.UNIX_STREAM && requestedAddress instanceof UnixDomainSocketAddress u
                    && !u.getPath().toString().isEmpty() ? u.getPath() : null;
        }

        @Override
        Listener newGeneration(Transport t, EventLoopGroup group) {
            return new Listener(t, group);
        }

        @Override
        Future<Channel> bind(Listener g, boolean reusePort, SocketAddress address) {
            Map<ChannelOption<?>, Object> listenerOptions = new LinkedHashMap<>(options);
            if (reusePort) {
                listenerOptions.put(ChannelOption.SO_REUSEPORT, Boolean.TRUE);
            }
            if (channelType == ChannelType.TCP && !options.containsKey(ChannelOption.SO_REUSEADDR)) {
                // connections accepted by the old listener still hold the port while they drain: without
                // SO_REUSEADDR (on them and on the new listener) the close-then-bind fallback fails with EADDRINUSE
                listenerOptions.put(ChannelOption.SO_REUSEADDR, Boolean.TRUE);
            }
            ServerChannel server = ChannelSetup.configureServer(g.transport.newServerChannel(channelType, g.group.next()),
                    listenerOptions, new Tracker(g), g.group, new LinkedHashMap<>(childOptions), childHandler);
            return ChannelSetup.bind(server, address);
        }

        @Override
        void socketClosed() {
            if (requestedAddress instanceof UnixDomainSocketAddress u) {
                Path p = u.getPath();
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "deleting the socket file " + p + " failed", e);
                }
            }
        }
    }

    /** One transport's listener, group and accepted connections. */
    private final class Listener extends SwapGeneration {
        /** Accepted connections still open; concurrent set (added on the listener's loop, removed on close). */
        final Set<Channel> children = ConcurrentHashMap.newKeySet();
        /** Connections a drain was started for; concurrent set. */
        final Set<Channel> draining = ConcurrentHashMap.newKeySet();

        Listener(Transport transport, EventLoopGroup group) {
            super(engine, transport, group);
        }

        @Override
        int members() {
            return children.size();
        }

        @Override
        void drainMembers() {
            for (Channel c : children) {
                drain(c);
            }
        }

        void accepted(Channel child) {
            metrics().accepted();
            children.add(child);
            child.closeFuture().addListener(f -> {
                children.remove(child);
                draining.remove(child);
                maybeRelease();
            });
            if (drainCause != null) {
                drain(child); // accepted while the listener was closing, or raced with startDrain
            }
        }

        /** Stop reading, flush, close once flushed; at the deadline close with a {@link TransportSwapException}. */
        private void drain(Channel c) {
            if (!draining.add(c)) {
                return;
            }
            long graceNanos = gracePeriodNanos();
            try {
                c.eventLoop().execute(() -> {
                    if (!c.isOpen()) {
                        return;
                    }
                    c.config().setAutoRead(false);
                    // writes complete in order, so an empty write completes when everything before it was flushed
                    Buffer marker = c.alloc().buffer(0);
                    c.writeAndFlush(marker).addListener(f -> c.close());
                    boolean[] timedOut = new boolean[1]; // on c's loop only
                    ScheduledFuture<?> deadline = c.eventLoop().schedule(() -> {
                        if (c.isOpen()) {
                            timedOut[0] = true;
                            CoreCalls.closeWithCause(c, new TransportSwapException(drainCause + ": connection "
                                    + c.id() + " (" + c.remoteAddress() + ") still had unflushed writes after the "
                                    + "grace period of " + TimeUnit.NANOSECONDS.toMillis(graceNanos) + " ms; they are "
                                    + "failed"));
                        }
                    }, graceNanos, TimeUnit.NANOSECONDS);
                    c.closeFuture().addListener(f -> {
                        deadline.cancel(false);
                        metrics().drained(timedOut[0]);
                    });
                });
            } catch (RejectedExecutionException e) {
                c.close();
            }
        }
    }

    /** The listener's handler: records each accepted channel before the acceptor sets it up. */
    @ChannelHandler.Sharable
    private static final class Tracker implements ChannelHandler {
        private final Listener generation;

        Tracker(Listener generation) {
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
}
