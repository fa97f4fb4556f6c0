package io.conduit.transport;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.access.ChannelSetup;
import io.conduit.internal.concurrent.DefaultPromise;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * <p>What a swap does is written once, in the project's {@code DESIGN.md}, section "Selection and swap": with
 * {@link ChannelOption#SO_REUSEPORT} on both transports the new socket binds <b>next to</b> the old one, the old one is
 * {@code connect(2)}ed away to a sink so every new datagram goes to the new one, and it is read dry behind a marker
 * before it closes; without {@code SO_REUSEPORT} the old socket closes first. From the moment the successor is bound,
 * writes on the old channel leave from the successor (same address and port). Channels {@linkplain #adopt adopted}
 * by the endpoint are kept or drained as {@link ManagedServer}'s connections are. The user's guide, with the
 * datagrams lost per swap as measured, is {@code docs/runtime-swap.md}.
 *
 * <h2>Threading</h2>
 * Configure before {@link #start()}; afterwards every method may be called from any thread. Swaps run one at a
 * time on the endpoint's own thread ({@code conduit-managed-datagram-…}) and coalesce like {@link ManagedServer}'s.
 * The handler is added to the channel of every transport and may see datagrams from two channels (two event loops)
 * at once during a hand-over, so it must be {@link ChannelHandler.Sharable} and thread-safe.
 */
public final class ManagedDatagramEndpoint extends ManagedEndpoint {

    private static final System.Logger LOG = System.getLogger(ManagedDatagramEndpoint.class.getName());
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Default grace period of a drained adopted channel, in milliseconds. */
    public static final long DEFAULT_GRACE_PERIOD_MILLIS = 2_000;
    /** Longest wait for the marker behind the old socket's queue, in milliseconds. */
    private static final long HAND_OVER_TIMEOUT_MILLIS = 2_000;
    /** How often the marker is sent again while it has not arrived, in milliseconds. */
    private static final long MARKER_RESEND_MILLIS = 50;

    private final InetSocketAddress requestedAddress;
    private final Engine engine;

    // configuration: written before start() only
    private final Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
    private ChannelHandler handler;

    /**
     * @param localAddress where to bind; port 0 picks a free port once, and every later bind uses that port
     */
    public ManagedDatagramEndpoint(InetSocketAddress localAddress) {
        this.requestedAddress = Objects.requireNonNull(localAddress, "localAddress");
        this.engine = new Engine();
    }

    @Override
    SwapEngine<?> engine() {
        return engine;
    }

    /** An option of every socket (e.g. {@link ChannelOption#SO_RCVBUF}); {@code null} removes it. */
    public <T> ManagedDatagramEndpoint option(ChannelOption<T> option, T value) {
        engine.checkNew();
        ChannelSetup.putOption(options, option, value);
        return this;
    }

    /** @param handler added to the channel of every transport; {@link ChannelHandler.Sharable} and thread-safe */
    public ManagedDatagramEndpoint handler(ChannelHandler handler) {
        engine.checkNew();
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /** @param threads event loops of the group made for each transport (the socket and adopted channels); default 1 */
    public ManagedDatagramEndpoint threads(int threads) {
        engine.threads(threads);
        return this;
    }

    /**
     * @param gracePeriod how long a drained adopted channel (its transport went away) keeps reading before it is
     *        closed; &gt;= 0
     */
    public ManagedDatagramEndpoint gracePeriod(long gracePeriod, TimeUnit unit) {
        engine.gracePeriod(gracePeriod, unit);
        return this;
    }

    /**
     * @param keep {@code true} (default): adopted channels stay on a still-available old transport after a selection
     *        change; {@code false}: they are drained on every swap
     */
    public ManagedDatagramEndpoint keepAdoptedOnSelectionChange(boolean keep) {
        engine.keepOnSelectionChange(keep);
        return this;
    }

    /**
     * Binds on {@link Transports#selected()} and starts following the selection.
     *
     * @return succeeds with the bound address, or fails with {@link UnavailableTransportException} (nothing selected)
     *         or the bind error; after a failure the endpoint is closed
     * @throws IllegalStateException when started twice or no handler was set
     */
    @SuppressWarnings("unchecked")
    public Future<InetSocketAddress> start() {
        engine.checkStartable(handler == null ? "no handler set: call handler(ChannelHandler)" : null);
        Future<?> bound = engine.start(); // the bound address of a UDP socket is an InetSocketAddress
        return (Future<InetSocketAddress>) bound;
    }

    /**
     * @return the channel taking the endpoint's datagrams now (write replies here: they leave from the endpoint's
     *         address), or {@code null} while no socket is bound
     */
    public DatagramChannel channel() {
        Socket g = engine.current();
        return g == null ? null : (DatagramChannel) g.channel;
    }

    /** @return the bound address (with the actual port), or {@code null} before the first bind succeeded */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) engine.boundAddress();
    }

    /** @return adopted channels open now, on the current transport and on old ones */
    public int adoptedChannels() {
        return engine.members();
    }

    /**
     * Ties {@code channel}, made on one of this endpoint's event loops, to the endpoint's transport; closing it is
     * still its owner's business. An application often makes channels of its own on the endpoint's event loops (a
     * UDP relay's upstream socket per client):
     * <ul>
     *   <li><b>Selection change</b> (the old transport is still registered and available): adopted channels
     *       <b>stay</b> open on the old transport's event loops and keep working until they close by themselves;
     *       the old group stops after the last one closed.</li>
     *   <li><b>Transport going away</b> (provider unregistered, unavailable, or its name now maps to another
     *       instance): adopted channels are <b>drained</b>: the future this method returned completes (so the
     *       application stops sending new work through the channel, e.g. opens a new upstream socket on
     *       {@link #channel()}'s loop), the channel keeps reading for the {@linkplain #gracePeriod grace period}
     *       (default 2 s: late replies still arrive), then it is closed; writes still pending then fail with a
     *       {@link TransportSwapException} cause.</li>
     * </ul>
     * {@link #keepAdoptedOnSelectionChange(boolean) keepAdoptedOnSelectionChange(false)} drains on every swap;
     * {@link #close()} closes adopted channels at once. The event loops run until every adopted channel has closed.
     *
     * @return completes when the channel's drain starts (it is closed a grace period later); fails with an
     *         {@link IllegalArgumentException} when {@code channel} is not on one of this endpoint's loops
     */
    public Future<Void> adopt(Channel channel) {
        DefaultPromise<Void> drained = new DefaultPromise<>(null);
        Socket g = engine.generationOf(channel.eventLoop());
        if (g == null) {
            drained.tryFailure(new IllegalArgumentException(channel + " is not on an event loop of "
                    + "ManagedDatagramEndpoint " + engine.boundAddress() + " (make it on channel().eventLoop())"));
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
        return engine.close();
    }

    /** The swap engine with what a UDP socket needs: its probe, its bind, and the hand-over of the old socket. */
    private final class Engine extends SwapEngine<Socket> {

        Engine() {
            super(LOG, "ManagedDatagramEndpoint", false, "conduit-managed-datagram-" + NEXT_ID.incrementAndGet(),
                    ManagedDatagramEndpoint.this.requestedAddress, TimeUnit.MILLISECONDS.toNanos(DEFAULT_GRACE_PERIOD_MILLIS));
        }

        @Override
        String cannotServe(Transport t) {
            SocketAddress a = address();
            if (t.channelTypes().contains(ChannelType.UDP) && t.supportsAddress(a)) {
                return null;
            }
            return "transport '" + t.name() + "' cannot bind a UDP socket at " + a;
        }

        @Override
        boolean reusesPort(Transport t) {
            return t.supports(ChannelOption.SO_REUSEPORT);
        }

        @Override
        Socket newGeneration(Transport t, EventLoopGroup group) {
            return new Socket(t, group);
        }

        @Override
        Future<Channel> bind(Socket g, boolean reusePort, SocketAddress address) {
            Map<ChannelOption<?>, Object> socketOptions = new LinkedHashMap<>(options);
            if (reusePort) {
                socketOptions.put(ChannelOption.SO_REUSEPORT, Boolean.TRUE);
            }
            Channel ch = ChannelSetup.configure(g.transport.newChannel(ChannelType.UDP, g.group.next()), socketOptions,
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            channel.pipeline().addLast("managed-datagram-hand-over", new HandOverHandler(g));
                            channel.pipeline().addLast(handler);
                        }
                    });
            return ChannelSetup.bind(ch, address);
        }

        /**
         * On the swap thread, after the successor was bound next to {@code old}'s socket: steers the
         * {@code SO_REUSEPORT} group to the successor where a transport can (Linux: epoll, io_uring; undone by
         * {@link #handedOver}), then connects the old socket away to a sink, so Linux gives every new datagram to the
         * successor, and reads it dry behind a marker the sink sends (its receive queue is FIFO); see DESIGN.md,
         * "Selection and swap". Steering first closes the window of nio's connect, which drops what arrives between
         * its last read and {@code connect(2)}.
         */
        @Override
        String handOver(Socket old, boolean keep) {
            Channel ch = old.channel;
            Socket next = current();
            String steering = "";
            if (next != null && next.channel != null && ch != null) {
                try {
                    String failure = CoreCalls.steerToNewest(next.channel, ch);
                    steered = failure == null;
                    steering = failure == null ? "new datagrams steered to the new socket (SO_ATTACH_REUSEPORT_CBPF); "
                            : failure.isEmpty() ? "" : "steering new datagrams to the new socket failed (" + failure
                            + "); ";
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return "the hand-over was interrupted; the old socket was closed";
                }
            }
            return steering + connectAwayAndReadDry(old, ch);
        }

        /** Connects {@code ch}, {@code old}'s channel, away to a sink and reads it dry behind the sink's marker. */
        private String connectAwayAndReadDry(Socket old, Channel ch) {
            InetSocketAddress local = (InetSocketAddress) ch.localAddress();
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
                Future<Boolean> away = CoreCalls.connectAway(ch, sinkAddress);
                if (!away.await(SwapEngine.STEP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS) || !away.isSuccess()) {
                    return "connecting the old socket away failed (" + away.cause() + "); it was closed with what it "
                            + "held";
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

        /**
         * Binds a plain UDP socket (neither {@code SO_REUSEADDR} nor {@code SO_REUSEPORT}), which conflicts with any
         * socket bound to the address or the wildcard on its port.
         */
        @Override
        void probeBind(InetSocketAddress address) throws IOException {
            try (DatagramSocket probe = new DatagramSocket(null)) {
                probe.setReuseAddress(false);
                probe.bind(address);
            }
        }
    }

    /** One transport's socket, group and adopted channels. */
    private final class Socket extends SwapGeneration {
        /** Adopted channels still open, with the future their drain completes; concurrent map. */
        final Map<Channel, DefaultPromise<Void>> adopted = new ConcurrentHashMap<>();
        /** Written by {@link #closeMembers} before {@link #startDrain}: the endpoint closes, adopted ones at once. */
        private volatile boolean closing;
        /** The sink's port and the marker's bytes, set by the swap thread before the marker is sent. */
        volatile int markerPort = -1;
        volatile byte[] marker;
        final CountDownLatch markerSeen = new CountDownLatch(1);
        /** Datagrams the old channel read after it was retired (for the log line). */
        final AtomicInteger readAfterBind = new AtomicInteger();

        Socket(Transport transport, EventLoopGroup group) {
            super(engine, transport, group);
        }

        void expectMarker(int port, byte[] token) {
            marker = token;
            markerPort = port;
        }

        @Override
        int members() {
            return adopted.size();
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

        @Override
        void drainMembers() {
            adopted.forEach(this::drain);
        }

        /** Closes every adopted channel now (a drain already running is cut short). */
        @Override
        void closeMembers(String cause) {
            closing = true;
            startDrain(cause);
            adopted.forEach((c, drained) -> closeLater(c, drained, 0, cause));
        }

        private void drain(Channel c, DefaultPromise<Void> drained) {
            closeLater(c, drained, closing ? 0 : gracePeriodNanos(), drainCause);
        }

        /** Completes {@code drained}, then flushes and closes {@code c} on its loop after {@code graceNanos}. */
        private void closeLater(Channel c, DefaultPromise<Void> drained, long graceNanos, String cause) {
            drained.trySuccess(null);
            Runnable closeIt = () -> {
                if (c.isOpen()) {
                    c.flush();
                    CoreCalls.closeWithCause(c, new TransportSwapException(cause + ": channel " + c.id() + " adopted"
                            + " by the endpoint was closed after a grace period of "
                            + TimeUnit.NANOSECONDS.toMillis(graceNanos) + " ms; writes still pending fail"));
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
    }

    /**
     * First handler of each generation's channel: swallows the hand-over marker (and closes the channel when it
     * arrives: everything queued before it was read), and once the generation is retired sends its writes from the
     * current channel. Not sharable: one per channel.
     */
    private final class HandOverHandler implements ChannelHandler {
        private final Socket generation;

        HandOverHandler(Socket generation) {
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

}
