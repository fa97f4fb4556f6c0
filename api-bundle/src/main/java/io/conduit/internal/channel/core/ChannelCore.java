package io.conduit.internal.channel.core;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ChannelPipeline;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.DefaultChannelPipeline;
import io.conduit.internal.channel.OffLoopCloser;
import io.conduit.internal.channel.OutboundBuffer;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.concurrent.DefaultPromise;
import io.conduit.internal.metrics.CountedLoop;
import io.conduit.internal.metrics.LoopCounters;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.NotYetConnectedException;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared channel core: one implementation of channel semantics (DESIGN.md, channel core) for every transport. A
 * transport supplies an {@link IoSocket} (the kernel socket with non-blocking, readiness-based calls) and an
 * {@link io.conduit.transport.spi.IoHandler} that reports readiness through {@link io.conduit.transport.spi.IoEvents}.
 * This class holds what every kind of channel shares:
 *
 * <ul>
 *   <li><b>life cycle</b>: registration, {@code channelActive}, close with its reason, the close future, the
 *       {@link OpenChannels} listing;</li>
 *   <li><b>pipeline and config</b>: a {@link DefaultChannelPipeline} whose head calls the channel's {@link KindIo},
 *       and an {@link IoChannelConfig} (core options here, socket options on the {@link IoSocket}; unsupported
 *       options are ignored with one warning per option and transport);</li>
 *   <li><b>writes</b>: an {@link OutboundBuffer} with flushed and unflushed parts, the flush with its spin count
 *       and continuation; at most {@code WRITE_SPIN_COUNT} write calls per flush, after which write interest
 *       (socket full) or a continuation task (budget spent) resumes; the continuation writes only what had been
 *       flushed; water marks fire {@code channelWritabilityChanged} in order. A write flushed on a channel that is
 *       neither active nor connecting (never connected, a datagram channel neither bound nor connected) fails at
 *       once with a {@link NotYetConnectedException} naming the channel, and its message is released (Netty's rule;
 *       unflushed writes wait for their flush). Writes made while a connect is in progress wait in the outbound
 *       buffer: they are written once it succeeded, or fail with a {@link ChannelClosedException} naming the
 *       connect's failure;</li>
 *   <li><b>close</b>: every pending write fails with a {@link ChannelClosedException} naming the cause;
 *       {@code SO_LINGER > 0} closes off the loop after deregistration.</li>
 * </ul>
 *
 * <p>The write path (outbound buffer, flush, continuation) lives on {@link KindIo}, the object the pipeline head
 * calls. What differs by kind is the channel's {@link KindIo} subclass, chosen at construction from the socket:
 * {@link StreamIo} (reads, read-ahead, half-closure, gathering writes, {@code FileRegion}, splice, connect), {@link AcceptIo} (accept
 * and back-off) or {@link DatagramIo} (datagrams, batches, membership). The subclasses are the public faces of each
 * kind ({@link IoSocketChannel}, {@link IoDomainSocketChannel}, {@link IoServerSocketChannel},
 * {@link IoDatagramChannel}, {@link IoDomainDatagramChannel}) and offer only that kind's operations.
 *
 * <p>Threading: public methods may be called from any thread. All I/O and every field documented as
 * "loop-confined" are touched only on the channel's event loop.
 */
public abstract class ChannelCore implements Channel, CoreChannel {

    private static final System.Logger LOG = System.getLogger(ChannelCore.class.getName());
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    private static final VarHandle CLOSE_FUTURE;

    static {
        try {
            CLOSE_FUTURE = MethodHandles.lookup().findVarHandle(ChannelCore.class, "closeFuture",
                    DefaultPromise.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The number behind {@link #id()}; unique per JVM (a bijection of a counter). */
    private final int idNumber;
    /** {@link #id()}'s text, made on first use; racy single-check (a String is immutable), no guard. */
    private String idText;
    final String transportName;
    final ChannelType type;
    final IoSocket socket;
    private final Channel parent;
    final IoChannelConfig config;
    final ChannelPipeline pipeline;
    /**
     * The kind's I/O: reads, writes and the pipeline head's operations, the poller's events, the config's change
     * listener and the {@link OpenChannels} counters. One object per channel.
     */
    final KindIo io;
    /** Made by the first {@link #closeFuture()} call (CAS through {@link #CLOSE_FUTURE}); completed at close. */
    private volatile DefaultPromise<Void> closeFuture;
    /** The close finished: a close future made from now on is completed at once. Written by the closing thread. */
    private volatile boolean closeCompleted;

    private volatile EventLoop loop;           // set before registration, never changed after it
    volatile boolean registered;               // written by the loop
    volatile boolean open = true;              // written by the loop (and the constructor)
    volatile boolean active;                   // written by the loop
    private volatile SocketAddress localAddress;   // cache, written by the loop
    /** the bound address of a renamed Unix listener and the one shown for it ({@link #localAddressRenamed}) */
    private volatile SocketAddress renamedBound;
    private volatile SocketAddress renamedTo;
    private volatile SocketAddress remoteAddress;  // cache, written by the loop (or any thread reading it lazily)
    /**
     * An IPv4 peer kept compactly instead of an {@link InetSocketAddress} object (96 bytes per idle connection):
     * bit 48 set, address in bits 16–47, port in bits 0–15; {@code 0} when none. Stream channels only; written by
     * the loop once, when the channel becomes active; {@link #remoteAddress()} makes (and caches) the object on
     * first use.
     */
    private volatile long compactRemote;
    // Traffic counters for OpenChannels (Gogo conduit:channels): single writer (the loop), read from any thread.
    volatile long bytesRead;                   // written by the loop
    volatile long bytesWritten;                // written by the loop
    volatile long registeredAtNanos;           // System.nanoTime() at registration, written by the loop
    /** The loop's metrics (io.conduit.metrics); set on the loop at registration, before any I/O. */
    LoopCounters loopCounters = LoopCounters.UNLISTED;

    private boolean closeStarted;              // loop-confined
    int interestOps;                           // loop-confined: IoSocket.OP_* bits currently requested
    boolean readPending;                       // loop-confined: read() asked for input not yet delivered
    private volatile Throwable closeCauseForMessages; // written by the loop at close; read for messages only
    private volatile String closeReason;       // written by the loop at close: why it closed, e.g. "close() was called"

    /**
     * @param transportName name of the transport, e.g. {@code "nio"}
     * @param type the channel kind; must match the socket ({@link io.conduit.transport.spi.IoStreamSocket} for
     *        TCP/Unix stream, {@link IoServerSocket} for their servers, {@link IoDatagramSocket} for UDP)
     * @param socket the transport's socket, open and not yet registered
     * @param parent the server channel that accepted it, or {@code null}
     * @param loop the event loop to register with, or {@code null} when set later ({@link #register(EventLoop)})
     */
    ChannelCore(String transportName, ChannelType type, IoSocket socket, Channel parent, EventLoop loop) {
        this.idNumber = NEXT_ID.incrementAndGet() * 0x9E3779B9;
        this.transportName = transportName;
        this.type = type;
        this.socket = socket;
        this.parent = parent;
        this.loop = loop;
        this.io = socket instanceof IoServerSocket ? new AcceptIo(this)
                : socket instanceof IoDatagramSocket ? new DatagramIo(this) : new StreamIo(this);
        this.config = new IoChannelConfig(this, socket, io);
        this.pipeline = new DefaultChannelPipeline(this, io);
    }

    // ------------------------------------------------------------------------------------------ Channel API

    /**
     * {@inheritDoc}
     *
     * <p>The text is made on the first call (not per channel up front) and the same {@link String} is returned
     * from then on.
     */
    @Override
    public String id() {
        String text = idText;
        if (text == null) {
            text = String.format("0x%08x", idNumber);
            idText = text;
        }
        return text;
    }

    @Override
    public String transportName() {
        return transportName;
    }

    /** @return the channel kind */
    public ChannelType channelType() {
        return type;
    }

    @Override
    public boolean unixDomain() {
        return type == ChannelType.UNIX_STREAM || type == ChannelType.UNIX_DATAGRAM;
    }

    /** @return the event loop, or {@code null} for an accepted channel not yet given one */
    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    private EventLoop loopOrThrow() {
        EventLoop l = loop;
        if (l == null) {
            throw new IllegalStateException("channel " + id() + " has no event loop yet; register it first");
        }
        return l;
    }

    @Override
    public Channel parent() {
        return parent;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public ChannelPipeline pipeline() {
        return pipeline;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isRegistered() {
        return registered;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public SocketAddress localAddress() {
        SocketAddress a = localAddress;
        if (a == null && open) {
            a = shown(socket.localAddress());
            localAddress = a;
        }
        return a;
    }

    @Override
    public void localAddressRenamed(SocketAddress bound, SocketAddress now) {
        renamedTo = now;
        renamedBound = bound;
        localAddress = now;
    }

    /** @return {@code a}, or the name a renamed listener is reached at when {@code a} is its bound one */
    private SocketAddress shown(SocketAddress a) {
        SocketAddress bound = renamedBound;
        return bound != null && bound.equals(a) ? renamedTo : a;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Known from the moment the channel became active until after it closed. An IPv4 peer is kept compactly
     * until the first call, which makes the {@link InetSocketAddress} (returned from then on).
     */
    @Override
    public SocketAddress remoteAddress() {
        SocketAddress a = remoteAddress;
        if (a == null) {
            long compact = compactRemote;
            if (compact != 0) {
                a = expandRemote(compact);
                remoteAddress = a;
            } else if (open) {
                a = socket.remoteAddress();
                remoteAddress = a;
            }
        }
        return a;
    }

    /**
     * Caches the peer at activation. {@code compactly}: an IPv4 {@link InetSocketAddress} as {@link #compactRemote}
     * (a stream's peer never changes), else as is (a datagram channel may disconnect and connect again).
     */
    void keepRemote(SocketAddress a, boolean compactly) {
        if (compactly && a instanceof InetSocketAddress i && !i.isUnresolved()
                && i.getAddress() instanceof Inet4Address v4) {
            byte[] b = v4.getAddress();
            long ip = ((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL);
            compactRemote = (1L << 48) | (ip << 16) | i.getPort();
            remoteAddress = null;
        } else {
            remoteAddress = a;
        }
    }

    /** Caches the local and remote address as the socket reports them now (a datagram channel may reconnect). */
    void addressesChanged() {
        remoteAddress = socket.remoteAddress();
        localAddress = shown(socket.localAddress());
    }

    /** Forgets the cached peer (a datagram channel disconnected). */
    void forgetRemote() {
        remoteAddress = null;
        compactRemote = 0;
    }

    /** Caches the local address as the socket reports it now (after a bind). */
    void localAddressChanged() {
        localAddress = shown(socket.localAddress());
    }

    private static InetSocketAddress expandRemote(long compact) {
        byte[] b = {(byte) (compact >>> 40), (byte) (compact >>> 32), (byte) (compact >>> 24), (byte) (compact >>> 16)};
        try {
            return new InetSocketAddress(InetAddress.getByAddress(b), (int) (compact & 0xffff));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError("4 bytes are always a valid IPv4 address", e);
        }
    }

    /**
     * Keeps the local address of an accepted channel: when it equals its listener's (a listener bound to one
     * address, the common case), the listener's object is shared instead of one per connection.
     */
    private SocketAddress shareLocal(SocketAddress a) {
        if (a != null && parent != null) {
            SocketAddress listening = parent.localAddress();
            if (a.equals(listening)
                    || parent instanceof ChannelCore p && p.renamedBound != null && a.equals(p.renamedBound)) {
                return listening;
            }
        }
        return a;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Made on the first call (an idle channel nobody asked holds none); the same future from then on.
     */
    @Override
    public Future<Void> closeFuture() {
        DefaultPromise<Void> f = closeFuture;
        if (f == null) {
            DefaultPromise<Void> fresh = new CloseFuture();
            @SuppressWarnings("unchecked")
            DefaultPromise<Void> raced = (DefaultPromise<Void>) CLOSE_FUTURE.compareAndExchange(this,
                    (DefaultPromise<?>) null, fresh);
            f = raced != null ? raced : fresh;
            if (closeCompleted) {
                f.trySuccess(null); // the close finished before the future existed (it may race: trySuccess)
            }
        }
        return f;
    }

    /** The close finished: completes the close future (when one was made) and leaves {@link OpenChannels}. */
    private void closeCompleted() {
        closeCompleted = true;
        OpenChannels.remove(io);
        DefaultPromise<Void> f = closeFuture;
        if (f != null) {
            f.trySuccess(null);
        }
    }

    @Override
    public boolean isWritable() {
        OutboundBuffer ob = io.outboundOrNull;
        return open && (ob == null || ob.isWritable());
    }

    @Override
    public long bytesBeforeUnwritable() {
        OutboundBuffer ob = io.outboundOrNull;
        return ob != null ? ob.bytesBeforeUnwritable() : config.waterMark().high() + 1L;
    }

    @Override
    public long bytesBeforeWritable() {
        OutboundBuffer ob = io.outboundOrNull;
        return ob != null ? ob.bytesBeforeWritable() : 0;
    }

    @Override
    public BufferAllocator alloc() {
        return config.getAllocator();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Runs on the channel's loop; callable from any thread. Closing does not go through the pipeline's outbound
     * handlers (the channel is closed directly, then {@code channelInactive}/{@code channelUnregistered} fire). A
     * {@code ManagedServer} passes a {@link io.conduit.transport.TransportSwapException} when a transport swap's grace
     * period ran out, so a writer can tell why its data was not sent.
     */
    @Override
    public Future<Void> close(Throwable cause) {
        Objects.requireNonNull(cause, "cause");
        Promise<Void> promise = newPromise();
        onLoop(() -> {
            if (promise.setUncancellable()) { // a cancel that came first: the channel stays open, as it said
                close0(cause, promise);
            }
        }, promise);
        return promise;
    }

    @Override
    public Future<Void> closeAcceptingQueued() {
        Promise<Void> promise = newPromise();
        onLoop(() -> {
            if (promise.setUncancellable()) {
                if (open && registered) {
                    io.takeQueued();
                }
                close0(null, promise);
            }
        }, promise);
        return promise;
    }

    /**
     * {@inheritDoc} For every socket kind: listeners and UDP sockets join {@code SO_REUSEPORT} groups
     * ({@link IoSocket#steerReuseportGroup}); other sockets answer {@code false}.
     */
    @Override
    public Future<Boolean> steerReuseportGroup(boolean steer, int index) {
        Promise<Boolean> result = new DefaultPromise<>(null);
        Runnable task = () -> {
            if (!open) {
                result.tryFailure(new java.nio.channels.ClosedChannelException());
                return;
            }
            try {
                result.trySuccess(steer ? socket.steerReuseportGroup(index) : socket.unsteerReuseportGroup());
            } catch (Exception e) {
                result.tryFailure(e);
            }
        };
        try {
            loopOrThrow().execute(task);
        } catch (RejectedExecutionException | IllegalStateException e) {
            result.tryFailure(new java.nio.channels.ClosedChannelException());
        }
        return result;
    }

    @Override
    public Promise<Void> newPromise() {
        return new DefaultPromise<>(loopOrThrow());
    }

    @Override
    public String toString() {
        SocketAddress l = localAddress;
        SocketAddress r = remoteAddress;
        if (r == null && compactRemote != 0) {
            r = expandRemote(compactRemote);
        }
        return "[" + id() + ", " + transportName + " " + (io instanceof AcceptIo ? "server " : "") + type
                + (l != null ? ", L:" + l : "") + (r != null ? (active ? " - R:" : " ! R:") + r : "") + "]";
    }

    /** @return the socket this channel drives (for transports and tests) */
    IoSocket socket() {
        return socket;
    }

    // ---------------------------------------------------------------------------------------- registration

    @Override
    public void eventLoop(EventLoop eventLoop) {
        if (registered && eventLoop != loop) {
            throw new IllegalStateException("channel " + id() + " is already registered with " + loop);
        }
        this.loop = eventLoop;
    }

    @Override
    public Future<Void> register() {
        return register(loopOrThrow());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Fails with {@link IllegalStateException} when the loop belongs to another transport, or with
     * {@link RejectedExecutionException} when it shut down. Any thread.
     */
    @Override
    public Future<Void> register(EventLoop eventLoop) {
        eventLoop(eventLoop);
        DefaultPromise<Void> promise = new DefaultPromise<>(eventLoop);
        try {
            eventLoop.execute(() -> register0(promise));
        } catch (RejectedExecutionException e) {
            promise.tryFailure(e);
            closeWithoutLoop();
        }
        return promise;
    }

    /**
     * Lists this channel in {@link OpenChannels} (Gogo {@code conduit:channels}) until it closes
     * ({@link #closeCompleted()} removes it). Called once, on the loop, when registration succeeds.
     */
    private void listOpen() {
        OpenChannels.add(io);
        if (closeCompleted) {
            OpenChannels.remove(io); // closed meanwhile (not on this loop): do not leave it listed
        }
    }

    private void register0(Promise<Void> promise) {
        if (registered) {
            promise.tryFailure(new IllegalStateException("channel " + id() + " is already registered"));
            return;
        }
        if (!open) {
            promise.tryFailure(closedException("register"));
            return;
        }
        try {
            socket.register(eventLoop(), io);
        } catch (IOException | RuntimeException | LinkageError e) {
            // LinkageError: the transport's classes are gone (its bundle was refreshed while this channel registered);
            // without failing the promise here the socket stayed open and nobody ever learnt of it
            promise.tryFailure(e);
            closeWithoutLoop();
            return;
        }
        registered = true;
        registeredAtNanos = System.nanoTime();
        loopCounters = eventLoop() instanceof CountedLoop counted ? counted.counters() : LoopCounters.UNLISTED;
        listOpen();
        // decided before the promise's listeners run: one of them may start a connect that completes at once
        boolean connected = io.connectedBeforeActive();
        promise.trySuccess(null);
        pipeline.fireChannelRegistered();
        if (connected) {
            becomeActive();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Without it the socket of a bootstrap's channel whose set-up failed stayed open for the life of the process,
     * as nobody held the channel any more. An error while closing the socket is ignored, also when the transport's
     * classes are gone.
     */
    @Override
    public void closeUnregistered() {
        if (registered) {
            throw new IllegalStateException("channel " + id() + " is registered; close it with close()");
        }
        closeWithoutLoop();
    }

    private void closeWithoutLoop() {
        open = false;
        try {
            socket.close();
        } catch (IOException | LinkageError ignored) {
            // nothing was registered; the socket is gone either way, or its transport's classes are (nothing to do)
        }
        closeCompleted();
    }

    private void becomeActive() {
        if (markActive()) {
            fireActive();
        }
    }

    /**
     * The first half of becoming active: {@link #isActive()} turns {@code true} and the addresses are kept. A bind or
     * connect completes its promise between the two halves, so that its listeners (and a thread waiting in
     * {@code sync()}) see an active channel, and {@code channelActive} follows them (Netty's order).
     *
     * @return {@code true} when the channel became active now: call {@link #fireActive()} next
     */
    private boolean markActive() {
        if (active || !open) {
            return false; // channelActive fires once
        }
        active = true;
        localAddress = shareLocal(socket.localAddress());
        io.keepRemote(socket.remoteAddress());
        return true;
    }

    /**
     * The second half: fires {@code channelActive}, then starts reading and flushes what was written before. A promise
     * listener may have closed the channel in between; {@code channelActive} still fires (the close's
     * {@code channelInactive} is a later task, so the events stay paired), nothing else happens.
     */
    private void fireActive() {
        pipeline.fireChannelActive();
        if (!open) {
            return;
        }
        if (config.isAutoRead()) {
            io.beginRead();
        } else {
            io.activeWithoutAutoRead();
        }
        io.flush0();
    }

    /**
     * Completes an uncancellable bind or connect promise with the channel already active (unless it was before), then
     * fires {@code channelActive}: see {@link #markActive()}.
     */
    void succeedAndActivate(Promise<Void> promise) {
        boolean activated = markActive();
        promise.trySuccess(null);
        if (activated) {
            fireActive();
        }
    }

    /** Runs {@code task} on the loop; when the loop rejects it, fails {@code promise} (when not {@code null}). */
    void onLoop(Runnable task, Promise<Void> promise) {
        EventLoop l = loopOrThrow();
        if (l.inEventLoop()) {
            task.run();
        } else {
            try {
                l.execute(task);
            } catch (RejectedExecutionException e) {
                if (promise != null) {
                    promise.tryFailure(e);
                }
            }
        }
    }

    // -------------------------------------------------------------------------------------- interest ops

    void setInterest(int bit, boolean on) {
        int ops = on ? interestOps | bit : interestOps & ~bit;
        if (ops != interestOps) {
            interestOps = ops;
            applyInterest();
        }
    }

    /** Hands the poller this core's interest, adjusted by the kind's I/O (zero-copy forwarding: {@link StreamIo}). */
    void applyInterest() {
        if (registered && open) {
            socket.interestOps(io.pollerInterest(interestOps));
        }
    }

    // ---------------------------------------------------------------------------------------------- writes

    /** Adds written payload bytes to the channel's and its loop's counters. */
    void countWritten(long n) {
        bytesWritten += n;
        loopCounters.bytesWritten(n);
    }

    /** Adds read payload bytes to the channel's and its loop's counters. */
    void countRead(long n) {
        bytesRead += n;
        loopCounters.bytesRead(n);
    }

    static Throwable annotate(Throwable e, SocketAddress remote) {
        if (remote == null || (e.getMessage() != null && e.getMessage().contains(String.valueOf(remote)))) {
            return e;
        }
        if (e instanceof ConnectException) {
            ConnectException c = new ConnectException(e.getMessage() + ": " + remote);
            c.initCause(e);
            return c;
        }
        if (e instanceof IOException) {
            return new IOException(e.getMessage() + ": " + remote, e);
        }
        return e;
    }

    // ---------------------------------------------------------------------------------------------- close

    ChannelClosedException closedException(String operation) {
        Throwable cause = closeCauseForMessages;
        return new ChannelClosedException(operation + " on channel " + id() + " failed: the channel is closed"
                + closeExplanation(), cause);
    }

    /** @return {@code " (close() was called)"}, {@code " (an I/O error while reading: …)"}, … or {@code ""} */
    String closeExplanation() {
        String reason = closeReason;
        Throwable cause = closeCauseForMessages;
        if (reason == null && cause == null) {
            return "";
        }
        return " (" + (reason != null ? reason : "closed") + (cause != null ? ": " + cause : "") + ")";
    }

    /** Closes the channel; {@code reason} says why (for the messages of everything it fails). */
    void close0(Throwable cause, String reason, Promise<Void> promise) {
        if (!closeStarted) {
            closeReason = reason;
        }
        close0(cause, promise);
    }

    /** Closes the channel: fails pending work, closes the socket (off the loop with SO_LINGER > 0), fires events. */
    private void close0(Throwable cause, Promise<Void> promise) {
        if (closeStarted) {
            if (promise != null) {
                closeFuture().addListener(f -> promise.trySuccess(null));
            }
            return;
        }
        closeStarted = true;
        closeCauseForMessages = cause;
        io.closeStarted();
        boolean wasActive = active;
        open = false;
        active = false;
        io.closing(cause);
        io.failAllPending(cause);
        io.closed();
        int linger = io.lingerOnClose();
        interestOps = 0;
        if (linger > 0 && registered) {
            // close(2) may block for up to `linger` seconds: deregister, then close on another thread
            EventLoop l = eventLoop();
            socket.deregister(() -> OffLoopCloser.execute(() -> {
                closeSocketQuietly();
                try {
                    l.execute(() -> closeComplete(wasActive, promise));
                } catch (RejectedExecutionException e) {
                    closeCompleted();
                    if (promise != null) {
                        promise.trySuccess(null);
                    }
                }
            }));
            return;
        }
        if (registered) {
            socket.deregister(null);
        }
        closeSocketQuietly();
        closeComplete(wasActive, promise);
    }

    /** @return {@code SO_LINGER} of the socket, or {@code -1} when it cannot be read */
    int linger() {
        try {
            Integer l = socket.getOption(ChannelOption.SO_LINGER);
            return l == null ? -1 : l;
        } catch (IOException | RuntimeException ignored) {
            return -1; // closed already: a plain close will do
        }
    }

    private void closeSocketQuietly() {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the socket of " + this + " failed", e);
        }
    }

    private void closeComplete(boolean wasActive, Promise<Void> promise) {
        OpenChannels.remove(io); // before close() completes: a channel whose close finished is not listed
        if (promise != null) {
            promise.trySuccess(null);
        }
        closeCompleted();
        boolean wasRegistered = registered;
        registered = false;
        // as a task: a close from inside channelRead must not fire inactive before that read's readComplete
        Runnable events = () -> {
            if (wasActive) {
                pipeline.fireChannelInactive();
            }
            if (wasRegistered) {
                pipeline.fireChannelUnregistered();
            }
        };
        EventLoop l = loop;
        if (l == null) {
            events.run();
            return;
        }
        try {
            l.execute(events);
        } catch (RejectedExecutionException e) {
            events.run(); // the loop is terminating: fire here rather than never
        }
    }

    /**
     * The close future, bound to the channel's event loop as soon as the channel has one: its listeners run on
     * the loop, and {@code sync()}/{@code await()}/{@code get()} called on the loop thread throw
     * {@link io.conduit.concurrent.BlockingOperationException} instead of dead-locking (the loop is the thread
     * that would complete it). An accepted channel has no loop until it is given one; until then listeners run
     * on the completing thread and waiting is not checked.
     */
    private final class CloseFuture extends DefaultPromise<Void> {
        CloseFuture() {
            super(null);
        }

        @Override
        public io.conduit.concurrent.EventExecutor executor() {
            return loop;
        }
    }
}
