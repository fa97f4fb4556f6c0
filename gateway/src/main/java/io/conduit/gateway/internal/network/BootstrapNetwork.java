package io.conduit.gateway.internal.network;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.transport.ManagedDatagramEndpoint;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

/**
 * A {@link Network} whose endpoints follow the selected transport: stream listeners are {@link ManagedServer}s and
 * UDP endpoints {@link ManagedDatagramEndpoint}s, each with event loops of its own per transport; connects use the
 * transport of the loop they are made on. Thread-safe (each call builds its own bootstrap).
 *
 * <p>Closing: a listener's close drains its connections (stop reading, flush, close), which a client that neither
 * reads nor closes holds up for ManagedServer's grace period. So an endpoint's close waits at most
 * {@value #CLOSE_BOUND_MILLIS} ms; then one WARNING line names the endpoints still open and their connections, which
 * are closed at once. While the gateway stops (the supplier given to the constructor says so), the first endpoint
 * closed closes every endpoint of the network at once, with that one bound for them all: closed one after another,
 * an {@code exit} with stalled clients on two endpoints took 20 to 30 s, and logged nothing.
 */
public final class BootstrapNetwork implements Network {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    /** Longest wait for endpoints being closed (and their connections drained), in milliseconds, for all at once. */
    static final long CLOSE_BOUND_MILLIS = 3_000;
    /** Longest wait for endpoints once their connections were closed at once, in milliseconds. */
    static final long FORCED_CLOSE_MILLIS = 1_000;

    /** Every endpoint bound and not closed yet; concurrent list. */
    private final List<Open> open = new CopyOnWriteArrayList<>();
    /** Whether the gateway is stopping: then a close closes every endpoint at once. */
    private final BooleanSupplier stopping;

    /** Listeners made by {@link #listen}, until closed; concurrent list. */
    private final List<ManagedServer> servers = new CopyOnWriteArrayList<>();
    /** Datagram endpoints made by {@link #bindDatagram}, until closed; concurrent list. */
    private final List<ManagedDatagramEndpoint> datagramEndpoints = new CopyOnWriteArrayList<>();

    /** Why no transport can be selected and what to do, from the selection error; see the constructor. */
    private final Function<RuntimeException, String> noTransport;

    /**
     * A network whose endpoints say "no transport is selected (the selection error)" while none is. It holds no
     * {@link Transport}: each endpoint holds the transports it runs on, so a stopped transport's classes are not kept.
     */
    public BootstrapNetwork() {
        this(BootstrapNetwork::noTransportSelected);
    }

    /**
     * @param noTransport from the error of {@link Transports#selected()}, why no transport can be selected and what
     *                    to do, one clause (e.g. which stopped transport bundle to start); called by
     *                    {@link Bound#problem()} on the caller's thread while no transport is selected, must not throw
     */
    public BootstrapNetwork(Function<RuntimeException, String> noTransport) {
        this(noTransport, () -> false);
    }

    /**
     * @param noTransport see {@link #BootstrapNetwork(Function)}
     * @param stopping    whether the gateway is stopping (its bundle is); any thread, must not throw
     */
    public BootstrapNetwork(Function<RuntimeException, String> noTransport, BooleanSupplier stopping) {
        this.noTransport = noTransport;
        this.stopping = stopping;
    }

    /**
     * An endpoint bound and not closed: how to close it, how many connections (or adopted channels) it has, and the
     * connections to close at once when the drain takes too long. Thread-safe.
     */
    private static final class Open {
        final String name;
        private final Supplier<Future<Void>> close;
        final IntSupplier connections;
        /** The accepted connections not closed yet; concurrent set (empty for a datagram endpoint). */
        final Set<Channel> children = ConcurrentHashMap.newKeySet();
        /** Set once, by the first close that found its time up. */
        final AtomicBoolean forced = new AtomicBoolean();
        /** The close started; guarded by this. */
        private Future<Void> closing;

        Open(String name, Supplier<Future<Void>> close, IntSupplier connections) {
            this.name = name;
            this.close = close;
            this.connections = connections;
        }

        /** @return the close, started by the first call */
        synchronized Future<Void> closing() {
            if (closing == null) {
                closing = close.get();
            }
            return closing;
        }
    }

    /**
     * Closes {@code endpoint}, and while the gateway stops every open endpoint with it: starts every close at once,
     * waits for them all at most {@value #CLOSE_BOUND_MILLIS} ms, then logs one WARNING line naming those still open
     * and closes their connections at once (waiting at most {@value #FORCED_CLOSE_MILLIS} ms more).
     */
    private void close(Open endpoint) throws InterruptedException {
        List<Open> all = new ArrayList<>();
        all.add(endpoint);
        if (stopping.getAsBoolean()) {
            for (Open o : open) {
                if (o != endpoint) {
                    all.add(o);
                }
            }
        }
        try {
            closeAtOnce(all, TimeUnit.MILLISECONDS.toNanos(CLOSE_BOUND_MILLIS));
        } finally {
            open.removeAll(all);
        }
    }

    /** Starts every close of {@code endpoints}, waits at most {@code boundNanos} for them all, then forces the rest. */
    private static void closeAtOnce(List<Open> endpoints, long boundNanos) throws InterruptedException {
        long deadline = System.nanoTime() + boundNanos;
        for (Open o : endpoints) {
            o.closing();
        }
        List<Open> late = new ArrayList<>();
        for (Open o : endpoints) {
            if (!o.closing().await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                    && o.forced.compareAndSet(false, true)) {
                late.add(o);
            }
        }
        if (late.isEmpty()) {
            return;
        }
        List<String> named = new ArrayList<>();
        for (Open o : late) {
            int n = Math.max(o.connections.getAsInt(), o.children.size());
            named.add(o.name + " (" + n + (n == 1 ? " connection)" : " connections)"));
        }
        LOG.log(System.Logger.Level.WARNING, "closing took more than " + TimeUnit.NANOSECONDS.toMillis(boundNanos)
                + " ms: " + String.join(", ", named) + " still open, with clients that neither read nor close; "
                + "their connections are closed now");
        for (Open o : late) {
            for (Channel c : o.children) {
                c.close();
            }
        }
        long forcedDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FORCED_CLOSE_MILLIS);
        for (Open o : late) {
            o.closing().await(Math.max(0, forcedDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    /** @return {@code no transport is selected (<the selection error>)}, the default of {@link Bound#problem()} */
    static String noTransportSelected(RuntimeException selectionError) {
        return "no transport is selected (" + selectionError.getMessage() + ")";
    }

    /**
     * While no transport can be selected (e.g. the transport bundles or the API bundle stopped), a bind waits for one
     * instead of failing for good: {@link Listeners} binds a {@link NotOnThisTransport} endpoint again on the next
     * transport change.
     *
     * @param what e.g. {@code "it listens"}
     * @return the selected transport
     * @throws NotOnThisTransport saying why nothing can be bound now and what to do, when none is selected
     */
    private Transport selectedOrWait(String what) throws NotOnThisTransport {
        Transport t;
        try {
            t = Transports.selected();
        } catch (RuntimeException noneSelected) {
            throw new NotOnThisTransport(noTransport.apply(noneSelected) + "; " + what + " as soon as a transport is"
                    + " selected");
        }
        if (t == null) {
            throw new NotOnThisTransport("no transport is selected; " + what + " as soon as one is");
        }
        return t;
    }

    /**
     * Why an endpoint that was bound and not closed has no listener or socket now ({@link Bound#problem()}).
     *
     * @param endpoint the endpoint
     * @param reaches  the endpoints its connections reach
     * @return one line: no transport is selected, or the selected one cannot serve it, or binding on it failed
     */
    private String notListening(GatewayUri endpoint, List<GatewayUri> reaches) {
        String again = "; it listens again as soon as a transport is selected";
        Transport now;
        try {
            now = Transports.selected();
        } catch (RuntimeException noneSelected) {
            return noTransport.apply(noneSelected) + again;
        }
        if (now == null) {
            return "no transport is selected" + again;
        }
        String cannot = cannotServe(endpoint, reaches, now);
        if (cannot != null) {
            return cannot + "; its transport went away, it listens again as soon as a transport that can is selected";
        }
        return "it is not bound on the selected transport '" + now.name() + "' (the bind failed or is under way: see the"
                + " log); it is bound again on the next transport change";
    }

    /** @return the selected transport's name (listeners follow the selection), or {@code none} while none is */
    @Override
    public String transportName() {
        try {
            Transport t = Transports.selected();
            return t != null ? t.name() : "none";
        } catch (RuntimeException noneSelected) {
            return "none";
        }
    }

    /**
     * Listens through a {@link ManagedServer}: it binds on the selected transport and re-binds on every transport
     * swap ({@code conduit:use nio}, a transport bundle stopping or starting). Open connections stay on the old
     * transport after a selection change while it is still available, and are drained when it goes away.
     */
    @Override
    public CompletionStage<Bound> listen(GatewayUri endpoint, List<GatewayUri> reaches,
            Map<ChannelOption<?>, Object> childOptions, ChannelHandler childHandler) {
        Transport selected;
        try {
            selected = selectedOrWait("it listens");
        } catch (NotOnThisTransport none) {
            return CompletableFuture.failedStage(none);
        }
        String cannot = cannotServe(endpoint, reaches, selected);
        if (cannot != null) {
            return CompletableFuture.failedStage(new NotOnThisTransport(cannot + "; it listens as soon as a "
                    + "transport that can is selected"));
        }
        ManagedServer server = new ManagedServer(endpoint.address()).channelType(endpoint.channelType())
                .threads(Math.max(1, Runtime.getRuntime().availableProcessors()));
        Open opened = new Open(endpoint.toString(), server::close, server::openConnections);
        server.childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                // known, so a close whose time is up can close it at once
                opened.children.add(channel);
                channel.closeFuture().addListener(f -> opened.children.remove(channel));
                channel.pipeline().addLast(childHandler);
            }
        });
        for (GatewayUri r : reaches) {
            server.requireSupportFor(r.kindAddress()); // e.g. an abstract upstream: stay where it is reachable
        }
        if (endpoint.kind() == GatewayUri.Kind.TCP) {
            server.option(ChannelOption.SO_REUSEADDR, Boolean.TRUE);
            server.childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE);
        }
        childOptions.forEach((k, v) -> childOption(server, k, v));
        servers.add(server);
        open.add(opened);
        return server.start().toCompletionStage().thenApply(address -> (Bound) new Bound() {
            /** Set once by {@link #close()}. */
            private volatile boolean closed;

            @Override
            public SocketAddress localAddress() {
                return server.localAddress();
            }

            @Override
            public void close() throws InterruptedException {
                closed = true;
                try {
                    BootstrapNetwork.this.close(opened);
                } finally {
                    servers.remove(server);
                }
            }

            @Override
            public String transportName() {
                return server.transportName();
            }

            @Override
            public String problem() {
                if (closed || server.transportName() != null) {
                    return null; // listening, or closed on purpose
                }
                return notListening(endpoint, reaches);
            }
        }).whenComplete((b, failure) -> {
            if (failure != null) {
                servers.remove(server);
                open.remove(opened);
            }
        });
    }

    /**
     * @return why {@code t} cannot serve a listener on {@code endpoint} whose connections reach {@code reaches} (see
     *         {@link GatewayUri#unsupportedBy}), or {@code null} when it can
     */
    private static String cannotServe(GatewayUri endpoint, List<GatewayUri> reaches, Transport t) {
        String cannot = endpoint.unsupportedBy(t);
        for (GatewayUri r : reaches) {
            String upstream = r.unsupportedBy(t);
            if (cannot == null && upstream != null) {
                cannot = "the upstream " + upstream;
            }
        }
        return cannot;
    }

    /**
     * The transport of {@code loop}: the one a listener or datagram endpoint made its group with (current, binding,
     * or old and kept or draining).
     *
     * @throws IllegalArgumentException when no endpoint of this network made {@code loop}
     */
    private Transport transportOf(EventLoop loop) {
        for (ManagedServer s : servers) {
            Transport t = s.transportOf(loop);
            if (t != null) {
                return t;
            }
        }
        for (ManagedDatagramEndpoint e : datagramEndpoints) {
            Transport t = e.transportOf(loop);
            if (t != null) {
                return t;
            }
        }
        throw new IllegalArgumentException("event loop " + loop + " belongs to no listener or datagram endpoint of this"
                + " network (its group stopped, or another group made it); connect on the loop of the connection or"
                + " endpoint being relayed");
    }

    /**
     * Binds through a {@link ManagedDatagramEndpoint}: on a transport swap it binds a socket on the new transport at
     * the same address ({@code SO_REUSEPORT}), steers the old one away and reads it dry, and keeps or drains the
     * channels its handler {@linkplain DatagramEndpoint#adopt adopted} as {@link ManagedServer} does connections.
     */
    @Override
    public CompletionStage<Bound> bindDatagram(GatewayUri endpoint, Map<ChannelOption<?>, Object> options,
            Function<DatagramEndpoint, ChannelHandler> handler) {
        Transport selected;
        try {
            selected = selectedOrWait("it is bound");
        } catch (NotOnThisTransport none) {
            return CompletableFuture.failedStage(none);
        }
        String cannot = cannotServe(endpoint, List.of(), selected);
        if (cannot != null) {
            return CompletableFuture.failedStage(new NotOnThisTransport(cannot + "; it is bound as soon as a "
                    + "transport that can is selected"));
        }
        ManagedDatagramEndpoint udp = new ManagedDatagramEndpoint((InetSocketAddress) endpoint.address());
        options.forEach((k, v) -> datagramOption(udp, k, v));
        udp.handler(handler.apply(new DatagramEndpoint() {
            @Override
            public Channel channel() {
                return udp.channel();
            }

            @Override
            public Future<Void> adopt(Channel channel) {
                return udp.adopt(channel);
            }
        }));
        datagramEndpoints.add(udp);
        Open opened = new Open(endpoint.toString(), udp::close, udp::adoptedChannels);
        open.add(opened);
        return udp.start().toCompletionStage().thenApply(address -> {
            reportReceiveBuffer(endpoint, udp.channel(), options.get(ChannelOption.SO_RCVBUF));
            return address;
        }).thenApply(address -> (Bound) new Bound() {
            /** Set once by {@link #close()}. */
            private volatile boolean closed;

            @Override
            public SocketAddress localAddress() {
                return udp.localAddress();
            }

            @Override
            public void close() throws InterruptedException {
                closed = true;
                try {
                    BootstrapNetwork.this.close(opened);
                } finally {
                    datagramEndpoints.remove(udp);
                }
            }

            @Override
            public String transportName() {
                return udp.transportName();
            }

            @Override
            public String problem() {
                if (closed || udp.transportName() != null) {
                    return null; // bound, or closed on purpose
                }
                return notListening(endpoint, List.of());
            }
        }).whenComplete((b, failure) -> {
            if (failure != null) {
                datagramEndpoints.remove(udp);
                open.remove(opened);
            }
        });
    }

    @Override
    public Future<Channel> connect(GatewayUri endpoint, EventLoop loop, Map<ChannelOption<?>, Object> options,
            ChannelHandler handler) {
        Transport t = transportOf(loop);
        String cannot = endpoint.unsupportedBy(t);
        if (cannot != null) {
            throw new UnsupportedOperationException(cannot);
        }
        Bootstrap b = new Bootstrap().transport(t).group(loop).channelType(endpoint.channelType())
                .handler(handler);
        if (endpoint.kind() == GatewayUri.Kind.TCP) {
            b.option(ChannelOption.TCP_NODELAY, Boolean.TRUE);
        }
        options.forEach((k, v) -> option(b, k, v));
        return b.connect(endpoint.address());
    }

    /** Calls {@code onChange} on every change of the selected transport ({@link Transports#addListener}). */
    @Override
    public AutoCloseable onTransportChange(Runnable onChange) {
        io.conduit.transport.TransportChangeListener l = (previous, current) -> onChange.run();
        Transports.addListener(l);
        return () -> Transports.removeListener(l);
    }

    /**
     * One INFO line when the kernel gave {@code channel} a smaller receive buffer than {@code requested}: Linux caps
     * {@code SO_RCVBUF} at {@code net.core.rmem_max} (and reports twice the value set, socket(7)).
     */
    private static void reportReceiveBuffer(GatewayUri endpoint, Channel channel, Object requested) {
        if (!(requested instanceof Integer wanted) || channel == null) {
            return;
        }
        Integer got;
        try {
            got = channel.config().getOption(ChannelOption.SO_RCVBUF);
        } catch (RuntimeException e) {
            return; // closed meanwhile
        }
        if (got != null && got < wanted) {
            LOG.log(System.Logger.Level.INFO, endpoint + ": the receive buffer (SO_RCVBUF) is " + got + " bytes, "
                    + "below the " + wanted + " asked for ('udp.receive.buffer.bytes'): the kernel caps it at "
                    + "net.core.rmem_max; to get it, run sysctl -w net.core.rmem_max=" + wanted);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void datagramOption(ManagedDatagramEndpoint e, ChannelOption<T> option, Object value) {
        e.option(option, (T) value);
    }

    @SuppressWarnings("unchecked")
    private static <T> void childOption(ManagedServer s, ChannelOption<T> option, Object value) {
        s.childOption(option, (T) value);
    }

    @SuppressWarnings("unchecked")
    private static <T> void option(Bootstrap b, ChannelOption<T> option, Object value) {
        b.option(option, (T) value);
    }
}
