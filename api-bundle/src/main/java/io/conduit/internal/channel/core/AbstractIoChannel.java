package io.conduit.internal.channel.core;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.IllegalReferenceCountException;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ChannelPipeline;
import io.conduit.channel.ConnectTimeoutException;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.channel.FileRegion;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.InputShutdownReadCompleteEvent;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.internal.channel.ChannelIoOperations;
import io.conduit.internal.channel.DefaultChannelPipeline;
import io.conduit.internal.channel.OffLoopCloser;
import io.conduit.internal.channel.OutboundBuffer;
import io.conduit.internal.channel.RecvSizer;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.concurrent.DefaultPromise;
import io.conduit.internal.metrics.CountedLoop;
import io.conduit.internal.metrics.LoopCounters;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoSpliceSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared channel core: one implementation of channel semantics (DESIGN.md, channel core) for every transport. A
 * transport supplies an {@link IoSocket} (the kernel socket with non-blocking, readiness-based calls) and an
 * {@link IoHandler} that reports readiness through {@link IoEvents}; everything else lives here:
 *
 * <ul>
 *   <li><b>pipeline and config</b>: a {@link DefaultChannelPipeline} whose head calls this core, and an
 *       {@link IoChannelConfig} (core options here, socket options on the {@link IoSocket}; unsupported
 *       options are ignored with one warning per option and transport);</li>
 *   <li><b>reads</b>: nothing is delivered before {@link #read()} or {@code AUTO_READ}; adaptive buffer sizes
 *       ({@link RecvSizer}); at most {@code MAX_MESSAGES_PER_READ} messages per read operation. With auto-read
 *       off and no read pending, a stream channel still reads ahead up to {@value #READ_AHEAD_MAX_BYTES} bytes
 *       (held, not delivered) so that end-of-stream is always noticed: then the held data is delivered, and
 *       end-of-stream handled (half-closure or close);</li>
 *   <li><b>half-closure</b> ({@code ALLOW_HALF_CLOSURE}): end-of-stream fires exactly one
 *       {@link InputShutdownEvent} then one {@link InputShutdownReadCompleteEvent} and stops polling input;</li>
 *   <li><b>writes</b>: an {@link OutboundBuffer} with flushed and unflushed parts; gathering writes of at most
 *       {@link OutboundBuffer#IOV_MAX} buffers and an adaptive byte budget (twice {@code SO_SNDBUF} at first,
 *       then following what the socket accepted); at most {@code WRITE_SPIN_COUNT} write calls per flush, after
 *       which write interest (socket full) or a continuation task (budget spent) resumes; the continuation
 *       writes only what had been flushed; water marks fire {@code channelWritabilityChanged} in order. A write
 *       flushed on a channel that is neither active nor connecting (never connected, a datagram channel neither
 *       bound nor connected) fails at once with a {@link NotYetConnectedException} naming the channel, and its
 *       message is released (Netty's rule; unflushed writes wait for their flush). Writes made while a connect is
 *       in progress wait in the outbound buffer: they are written once it succeeded, or fail with a
 *       {@link ChannelClosedException} naming the connect's failure (Netty's NIO transport fails them with
 *       {@code NotYetConnectedException}; waiting is what a caller who writes right after {@code connect}
 *       expects);</li>
 *   <li><b>connect</b>: {@code CONNECT_TIMEOUT_MILLIS} timer on the loop ({@link ConnectTimeoutException}
 *       naming address and timeout); cancelling the connect promise closes the channel, also when the cancel
 *       came before the connect reached the loop, whichever entry it came through ({@link #connect},
 *       {@link ChannelPipeline#connect}, a handler's context); bind, disconnect and close make their promise
 *       uncancellable before they act, so a cancel either stopped them on their way or returns {@code false};</li>
 *   <li><b>close</b>: every pending write fails with a {@link ChannelClosedException} naming the cause;
 *       {@code SO_LINGER > 0} closes off the loop after deregistration;</li>
 *   <li><b>accept</b>: errors such as {@code EMFILE}/{@code ENFILE} never close the listener: accepting pauses
 *       ({@value #ACCEPT_BACKOFF_MILLIS} ms, no polling in between) and the error fires once per burst.</li>
 * </ul>
 *
 * <p>Subclasses only narrow the public type ({@link IoSocketChannel}, {@link IoDomainSocketChannel},
 * {@link IoServerSocketChannel}, {@link IoDatagramChannel}); they add no behaviour.
 *
 * <p>Threading: public methods may be called from any thread. All I/O and every field documented as
 * "loop-confined" are touched only on the channel's event loop.
 */
public abstract class AbstractIoChannel implements Channel, CoreChannel, ZeroCopyForwarding {

    private static final System.Logger LOG = System.getLogger(AbstractIoChannel.class.getName());
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    private static final VarHandle CLOSE_FUTURE;

    static {
        try {
            CLOSE_FUTURE = MethodHandles.lookup().findVarHandle(AbstractIoChannel.class, "closeFuture",
                    DefaultPromise.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Bytes a stream channel reads ahead (held, not delivered) while auto-read is off and no read is pending. */
    public static final int READ_AHEAD_MAX_BYTES = 64 * 1024;
    /** Most held read-ahead buffers (bounds the count when an allocator hands out tiny buffers). */
    private static final int READ_AHEAD_MAX_BUFFERS = 4096;
    /** Pause of accepting after an accept error ({@code EMFILE}, {@code ENFILE}, …), in milliseconds. */
    public static final int ACCEPT_BACKOFF_MILLIS = 100;
    /** Largest datagram payload received, in bytes (IPv4/IPv6 payloads are at most 65,507/65,527 bytes). */
    private static final int DATAGRAM_MAX_BYTES = 65_536;

    private enum Kind { STREAM, SERVER, DATAGRAM }

    /** The number behind {@link #id()}; unique per JVM (a bijection of a counter). */
    private final int idNumber;
    /** {@link #id()}'s text, made on first use; racy single-check (a String is immutable), no guard. */
    private String idText;
    private final String transportName;
    private final ChannelType type;
    private final Kind kind;
    private final IoSocket socket;
    private final Channel parent;
    private final IoChannelConfig config;
    private final ChannelPipeline pipeline;
    /** Made by the first {@link #closeFuture()} call (CAS through {@link #CLOSE_FUTURE}); completed at close. */
    private volatile DefaultPromise<Void> closeFuture;
    /** The close finished: a close future made from now on is completed at once. Written by the closing thread. */
    private volatile boolean closeCompleted;
    /**
     * Messages written and not yet sent; {@code null} until the first write (an idle channel holds none). Created
     * and used on the loop; read by any thread ({@link #isWritable()}); volatile so that a water-mark change
     * from another thread reaches a buffer created meanwhile.
     */
    private volatile OutboundBuffer outboundOrNull;
    private RecvSizer recvSizer;               // loop-confined: created by the first read
    /** Pipeline head operations, poller events, config changes and OpenChannels stats: one object. */
    private final Internals internals = new Internals();

    private volatile EventLoop loop;           // set before registration, never changed after it
    private volatile boolean registered;       // written by the loop
    private volatile boolean open = true;      // written by the loop (and the constructor)
    private volatile boolean active;           // written by the loop
    private volatile boolean inputShutdown;    // written by the loop
    private volatile boolean outputShutdown;   // written by the loop
    private volatile SocketAddress localAddress;   // cache, written by the loop
    private volatile SocketAddress remoteAddress;  // cache, written by the loop (or any thread reading it lazily)
    /**
     * An IPv4 peer kept compactly instead of an {@link InetSocketAddress} object (96 bytes per idle connection):
     * bit 48 set, address in bits 16–47, port in bits 0–15; {@code 0} when none. Stream channels only; written by
     * the loop once, when the channel becomes active; {@link #remoteAddress()} makes (and caches) the object on
     * first use.
     */
    private volatile long compactRemote;
    // Traffic counters for OpenChannels (Gogo conduit:channels): single writer (the loop), read from any thread.
    private volatile long bytesRead;           // written by the loop
    private volatile long bytesWritten;        // written by the loop
    private volatile long registeredAtNanos;   // System.nanoTime() at registration, written by the loop
    /** The loop's metrics (io.conduit.metrics); set on the loop at registration, before any I/O. */
    private LoopCounters loopCounters = LoopCounters.UNLISTED;

    private boolean closeStarted;              // loop-confined
    private int interestOps;                   // loop-confined: IoSocket.OP_* bits currently requested
    private boolean readPending;               // loop-confined: read() asked for input not yet delivered
    private boolean readInProgress;            // loop-confined: inside the read loop (read() calls there are noted only)
    private ArrayDeque<Buffer> heldReadsOrNull; // loop-confined: read-ahead, not yet delivered; null until needed
    private int heldBytes;                     // loop-confined
    private boolean heldEof;                   // loop-confined: end-of-stream was seen behind the held data
    private boolean inputShutdownFired;        // loop-confined
    private Promise<Void> connectPromise;      // loop-confined: pending connect, or null
    private SocketAddress connectTarget;       // loop-confined
    private ScheduledFuture<?> connectTimeout; // loop-confined
    private boolean flushing;                  // loop-confined: inside doWrite
    private boolean continuationScheduled;     // loop-confined
    private long maxBytesPerGatheringWrite;    // loop-confined: 0 = not computed yet
    private Promise<Void> shutdownOutputPromise; // loop-confined: shutdownOutput waiting for flushed data
    private boolean acceptPaused;              // loop-confined: backing off after an accept error
    private boolean acceptErrorReported;       // loop-confined: the current burst was reported
    private ByteBuffer datagramScratch;        // loop-confined, allocated on the first unbatched datagram read
    /** loop-confined: the socket answered -1 to receiveBatch (each direction batches, or not, on its own) */
    private boolean datagramReceiveBatchUnsupported;
    /** loop-confined: the socket answered -1 to sendBatch */
    private boolean datagramSendBatchUnsupported;
    private Object[] datagramBatch;            // loop-confined: scratch of flushed datagrams for sendBatch
    private SpliceForwarder spliceOut;         // loop-confined: forwards this channel's input (ZeroCopyForwarding), or null
    private SpliceForwarder spliceIn;          // loop-confined: splices into this channel's output, or null

    /**
     * @param transportName name of the transport, e.g. {@code "nio"}
     * @param type the channel kind; must match the socket ({@link IoStreamSocket} for TCP/Unix stream,
     *        {@link IoServerSocket} for their servers, {@link IoDatagramSocket} for UDP)
     * @param socket the transport's socket, open and not yet registered
     * @param parent the server channel that accepted it, or {@code null}
     * @param loop the event loop to register with, or {@code null} when set later ({@link #register(EventLoop)})
     */
    protected AbstractIoChannel(String transportName, ChannelType type, IoSocket socket, Channel parent, EventLoop loop) {
        this.idNumber = NEXT_ID.incrementAndGet() * 0x9E3779B9;
        this.transportName = transportName;
        this.type = type;
        this.socket = socket;
        this.parent = parent;
        this.loop = loop;
        this.kind = socket instanceof IoServerSocket ? Kind.SERVER
                : socket instanceof IoDatagramSocket ? Kind.DATAGRAM : Kind.STREAM;
        this.config = new IoChannelConfig(this, socket, internals);
        this.pipeline = new DefaultChannelPipeline(this, internals);
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
            a = socket.localAddress();
            localAddress = a;
        }
        return a;
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

    /** Caches the peer at activation: an IPv4 {@link InetSocketAddress} as {@link #compactRemote}, else as is. */
    private void keepRemote(SocketAddress a) {
        if (a instanceof InetSocketAddress i && !i.isUnresolved() && i.getAddress() instanceof Inet4Address v4) {
            byte[] b = v4.getAddress();
            long ip = ((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL);
            compactRemote = (1L << 48) | (ip << 16) | i.getPort();
            remoteAddress = null;
        } else {
            remoteAddress = a;
        }
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
            if (a.equals(listening)) {
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
        OpenChannels.remove(internals);
        DefaultPromise<Void> f = closeFuture;
        if (f != null) {
            f.trySuccess(null);
        }
    }

    @Override
    public boolean isWritable() {
        OutboundBuffer ob = outboundOrNull;
        return open && (ob == null || ob.isWritable());
    }

    @Override
    public long bytesBeforeUnwritable() {
        OutboundBuffer ob = outboundOrNull;
        return ob != null ? ob.bytesBeforeUnwritable() : config.waterMark().high() + 1L;
    }

    @Override
    public long bytesBeforeWritable() {
        OutboundBuffer ob = outboundOrNull;
        return ob != null ? ob.bytesBeforeWritable() : 0;
    }

    /** @return the outbound buffer, created on the first write (loop thread) */
    private OutboundBuffer outbound() {
        OutboundBuffer ob = outboundOrNull;
        if (ob == null) {
            WriteBufferWaterMark wm = config.waterMark();
            ob = new OutboundBuffer(wm.low(), wm.high());
            outboundOrNull = ob;
            WriteBufferWaterMark now = config.waterMark();
            if (now != wm) { // changed by another thread meanwhile, which may not have seen the new buffer
                ob.waterMarks(now.low(), now.high());
            }
        }
        return ob;
    }

    @Override
    public BufferAllocator alloc() {
        return config.getAllocator();
    }

    /**
     * Closes the channel because of {@code cause}: like {@link #close()}, but every write still pending fails with
     * a {@link ChannelClosedException} whose cause is {@code cause} (and whose message names it), so a writer can
     * tell why its data was not sent (e.g. {@code ManagedServer} passes a
     * {@link io.conduit.transport.TransportSwapException} when a transport swap's grace period ran out). Runs on
     * the channel's loop; callable from any thread. Closing does not go through the pipeline's outbound
     * handlers (the channel is closed directly, then {@code channelInactive}/{@code channelUnregistered} fire).
     *
     * @param cause why the channel is closed; not {@code null}
     * @return succeeds when the channel is closed (also when it was closed already)
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
        return "[" + id() + ", " + transportName + " " + (kind == Kind.SERVER ? "server " : "") + type
                + (l != null ? ", L:" + l : "") + (r != null ? (active ? " - R:" : " ! R:") + r : "") + "]";
    }

    // ---------------------------------------------------------------------------------------- registration

    /**
     * Sets the event loop of a channel made without one (an accepted channel) before it is registered; lets
     * handlers be added with the loop known.
     *
     * @throws IllegalStateException when the channel is already registered with another loop
     */
    @Override
    public void eventLoop(EventLoop eventLoop) {
        if (registered && eventLoop != loop) {
            throw new IllegalStateException("channel " + id() + " is already registered with " + loop);
        }
        this.loop = eventLoop;
    }

    /** Registers with the event loop given at construction or with {@link #eventLoop(EventLoop)}. */
    @Override
    public Future<Void> register() {
        return register(loopOrThrow());
    }

    /**
     * Registers the channel with {@code eventLoop} (a loop of a group made by this channel's transport): the
     * socket joins the loop's poller, {@code channelRegistered} fires, and a channel that is already connected
     * (an accepted one) becomes active and starts reading when auto-read is on. Any thread.
     *
     * @return a future that succeeds once registered, or fails (e.g. with {@link IllegalStateException} when
     *         the loop belongs to another transport, or {@link RejectedExecutionException} when it shut down)
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
        OpenChannels.add(internals);
        if (closeCompleted) {
            OpenChannels.remove(internals); // closed meanwhile (not on this loop): do not leave it listed
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
            socket.register(eventLoop(), internals);
        } catch (IOException | RuntimeException | LinkageError e) {
            // LinkageError: the transport's classes are gone (its bundle was refreshed while this channel registered);
            // without failing the promise here the socket stayed open and nobody ever learnt of it
            promise.tryFailure(e);
            closeWithoutLoop();
            return;
        }
        registered = true;
        registeredAtNanos = System.nanoTime();
        loopCounters = eventLoop() instanceof CountedLoop io ? io.counters() : LoopCounters.UNLISTED;
        listOpen();
        // decided before the promise's listeners run: one of them may start a connect that completes at once
        boolean connected = kind == Kind.STREAM && ((IoStreamSocket) socket).isConnected();
        promise.trySuccess(null);
        pipeline.fireChannelRegistered();
        if (connected) {
            becomeActive();
        }
    }

    /**
     * Closes a channel that was never registered, on the calling thread, with no event loop and no event: for a
     * bootstrap whose set-up of a new channel (its options, its handlers) failed before it was registered. Without
     * it the socket stayed open for the life of the process, as nobody held the channel any more. An error while
     * closing the socket is ignored, also when the transport's classes are gone.
     *
     * @throws IllegalStateException when the channel was registered (close it with {@link #close()})
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
        if (kind == Kind.STREAM) {
            keepRemote(socket.remoteAddress()); // a stream's peer never changes: kept compactly
        } else {
            remoteAddress = socket.remoteAddress(); // a datagram channel may disconnect and connect again
        }
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
            beginRead();
        } else if (kind == Kind.STREAM) {
            setInterest(IoSocket.OP_READ, true); // read-ahead keeps end-of-stream visible
        }
        flush0();
    }

    // ------------------------------------------------------------------------------------------ half-closure

    /** @return {@code true} once the input was shut down (stream channels) */
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    /** @return {@code true} once the output was shut down (stream channels) */
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    /** @return {@code true} when both directions are shut down */
    public boolean isShutdown() {
        return inputShutdown && outputShutdown;
    }

    /**
     * {@code shutdown(SHUT_RD)}: input stops; {@link InputShutdownEvent} fires once. Any thread. Like the other
     * operations here, the returned future is cancellable until the loop starts the operation: a successful cancel
     * means it did not happen.
     */
    public Future<Void> shutdownInput() {
        Promise<Void> promise = newPromise();
        onLoop(() -> {
            if (!promise.setUncancellable()) {
                return;
            }
            if (!open) {
                promise.tryFailure(closedException("shutdownInput"));
                return;
            }
            shutdownInput0();
            promise.trySuccess(null);
        }, promise);
        return promise;
    }

    /**
     * Fails unflushed writes, waits until the flushed ones are written, then {@code shutdown(SHUT_WR)}. Any thread.
     */
    public Future<Void> shutdownOutput() {
        Promise<Void> promise = newPromise();
        onLoop(() -> {
            if (promise.setUncancellable()) {
                shutdownOutput0(promise);
            }
        }, promise);
        return promise;
    }

    /** Shuts down both directions. Any thread. */
    public Future<Void> shutdown() {
        Promise<Void> promise = newPromise();
        onLoop(() -> {
            if (!promise.setUncancellable()) {
                return;
            }
            if (!open) {
                promise.tryFailure(closedException("shutdown"));
                return;
            }
            shutdownInput0();
            shutdownOutput0(promise);
        }, promise);
        return promise;
    }

    /** Runs {@code task} on the loop; when the loop rejects it, fails {@code promise} (when not {@code null}). */
    private void onLoop(Runnable task, Promise<Void> promise) {
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

    private void shutdownInput0() {
        if (inputShutdown) {
            return;
        }
        inputShutdown = true;
        readPending = false;
        setInterest(IoSocket.OP_READ, false);
        releaseHeld();
        try {
            ((IoStreamSocket) socket).shutdownInput();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "shutdownInput of " + this + " failed", e);
        }
        fireInputShutdownEvents();
    }

    private void fireInputShutdownEvents() {
        if (!inputShutdownFired) {
            inputShutdownFired = true;
            pipeline.fireUserEventTriggered(InputShutdownEvent.INSTANCE);
            pipeline.fireUserEventTriggered(InputShutdownReadCompleteEvent.INSTANCE);
        }
    }

    private void shutdownOutput0(Promise<Void> promise) {
        if (!open) {
            promise.tryFailure(closedException("shutdownOutput"));
            return;
        }
        if (outputShutdown) {
            promise.trySuccess(null);
            return;
        }
        OutboundBuffer ob = outboundOrNull;
        if (ob != null && ob.failUnflushed(() -> new ChannelClosedException("write of channel " + id()
                + " failed: the output was shut down before the write was flushed", null))) {
            pipeline.fireChannelWritabilityChanged();
        }
        if (!flushedEmpty()) {
            shutdownOutputPromise = promise; // completed by doWrite once the flushed data is written
            return;
        }
        shutdownOutputNow(promise);
    }

    private void shutdownOutputNow(Promise<Void> promise) {
        outputShutdown = true;
        try {
            ((IoStreamSocket) socket).shutdownOutput();
            promise.trySuccess(null);
        } catch (IOException e) {
            promise.tryFailure(e);
        }
    }

    // ----------------------------------------------------------------------------------------- datagrams

    /** @return {@code true} when a datagram channel is connected to one peer */
    public boolean isConnected() {
        return kind == Kind.DATAGRAM ? ((IoDatagramSocket) socket).isConnected()
                : kind == Kind.STREAM && ((IoStreamSocket) socket).isConnected();
    }

    /** Joins a multicast group (datagram channels). Any thread. */
    public Future<Void> joinGroup(InetAddress group, NetworkInterface networkInterface) {
        return membership(group, networkInterface, true);
    }

    /** Leaves a multicast group (datagram channels). Any thread. */
    public Future<Void> leaveGroup(InetAddress group, NetworkInterface networkInterface) {
        return membership(group, networkInterface, false);
    }

    private Future<Void> membership(InetAddress group, NetworkInterface nif, boolean join) {
        Promise<Void> promise = newPromise();
        onLoop(() -> {
            if (!promise.setUncancellable()) {
                return; // cancelled before the loop got to it: membership unchanged
            }
            try {
                if (join) {
                    ((IoDatagramSocket) socket).joinGroup(group, nif);
                } else {
                    ((IoDatagramSocket) socket).leaveGroup(group, nif);
                }
                promise.trySuccess(null);
            } catch (IOException | RuntimeException e) {
                promise.tryFailure(e);
            }
        }, promise);
        return promise;
    }

    /** @return the socket this channel drives (for transports and tests) */
    protected IoSocket socket() {
        return socket;
    }

    // -------------------------------------------------------------------------------------- interest ops

    private void setInterest(int bit, boolean on) {
        int ops = on ? interestOps | bit : interestOps & ~bit;
        if (ops != interestOps) {
            interestOps = ops;
            applyInterest();
        }
    }

    /**
     * Hands the poller this core's interest combined with zero-copy forwarding's: a forwarding source's read interest
     * belongs to its {@link SpliceForwarder}, and a splice target adds write interest while the pipe waits for room.
     */
    void applyInterest() {
        if (registered && open) {
            int ops = interestOps;
            if (spliceOut != null) {
                ops = (ops & ~IoSocket.OP_READ) | (spliceOut.wantsSourceRead() ? IoSocket.OP_READ : 0);
            }
            if (spliceIn != null && spliceIn.wantsTargetWrite()) {
                ops |= IoSocket.OP_WRITE;
            }
            socket.interestOps(ops);
        }
    }

    // --------------------------------------------------------------------------------------------- reads

    private void beginRead() {
        if (!open || !registered || inputShutdown) {
            return;
        }
        if (hasHeld() || heldEof) {
            deliverHeld();
            return;
        }
        if (kind == Kind.SERVER && acceptPaused) {
            readPending = true; // resumes when the back-off ends
            return;
        }
        readPending = true;
        if (active || kind == Kind.SERVER) {
            setInterest(IoSocket.OP_READ, true);
        }
    }

    private void readReady() {
        if (!open) {
            return;
        }
        switch (kind) {
            case STREAM -> {
                if (spliceOut != null) {
                    spliceOut.sourceReadable();
                } else {
                    streamRead();
                }
            }
            case SERVER -> acceptRead();
            case DATAGRAM -> datagramRead();
        }
    }

    private boolean wantsInput() {
        return config.isAutoRead() || readPending;
    }

    private void streamRead() {
        if (inputShutdown) {
            setInterest(IoSocket.OP_READ, false);
            return;
        }
        if (!wantsInput()) {
            readAhead();
            return;
        }
        if (hasHeld() || heldEof) {
            // Input was wanted again (auto-read turned on by another thread, whose read() task has not run yet):
            // what was read ahead came first, so it goes first, then the socket is read as usual.
            deliverHeld();
            if (!open || inputShutdown || !config.isAutoRead()) {
                return; // a read() request was satisfied by the held input
            }
        }
        IoStreamSocket s = (IoStreamSocket) socket;
        BufferAllocator alloc = config.getAllocator();
        RecvSizer recvSizer = recvSizer();
        int maxMessages = config.maxMessagesPerRead();
        int messages = 0;
        long total = 0;
        boolean eof = false;
        Throwable failure = null;
        readPending = false;
        readInProgress = true;
        try {
            do {
                Buffer buf = allocate(alloc, recvSizer.guess());
                int attempted = buf.writableBytes();
                int n;
                try {
                    n = s.read(buf.nioBuffer(buf.writerIndex(), attempted));
                } catch (Throwable t) {
                    buf.release();
                    throw t;
                }
                if (n <= 0) {
                    buf.release();
                    eof = n < 0;
                    break;
                }
                buf.writerIndex(buf.writerIndex() + n);
                recvSizer.record(n, attempted);
                messages++;
                total += n;
                bytesRead += n;
                pipeline.fireChannelRead(buf);
                if (n < attempted) {
                    break; // drained
                }
            } while (messages < maxMessages && open && !inputShutdown && config.isAutoRead());
        } catch (Throwable t) {
            failure = t;
        } finally {
            readInProgress = false;
        }
        recvSizer.readComplete(total);
        loopCounters.bytesRead(total);
        if (messages > 0) {
            pipeline.fireChannelReadComplete();
        }
        if (failure != null) {
            countIoError(failure);
            // Whatever failed (the socket, or the allocator: e.g. a malformed conduit.leakDetection or the direct
            // memory cap), the input cannot be read: left open, the channel would fail the same way on every event
            // and the peer would wait forever. One exception, then the channel closes (Netty's closeOnRead).
            Throwable cause = unwrapAllocatorFailure(failure);
            pipeline.fireExceptionCaught(cause);
            if (closesOnReadFailure(failure)) {
                close0(cause, readFailureReason(failure, "reading"), null);
            }
            return;
        }
        if (eof) {
            endOfStream();
            return;
        }
        if (messages == 0 && !config.isAutoRead()) {
            readPending = true; // the read() request is still open: nothing was delivered for it
        }
        // interest stays on: either more input is wanted, or read-ahead keeps end-of-stream visible
    }

    /** Auto-read off and no read pending: hold input (bounded) so that end-of-stream is still seen. */
    private void readAhead() {
        IoStreamSocket s = (IoStreamSocket) socket;
        BufferAllocator alloc = config.getAllocator();
        RecvSizer recvSizer = recvSizer();
        if (heldReadsOrNull == null) {
            heldReadsOrNull = new ArrayDeque<>();
        }
        ArrayDeque<Buffer> heldReads = heldReadsOrNull;
        try {
            while (heldBytes < READ_AHEAD_MAX_BYTES && heldReads.size() < READ_AHEAD_MAX_BUFFERS) {
                Buffer buf = allocate(alloc, Math.min(recvSizer.guess(), READ_AHEAD_MAX_BYTES - heldBytes));
                int attempted = buf.writableBytes();
                int n;
                try {
                    n = s.read(buf.nioBuffer(buf.writerIndex(), attempted));
                } catch (Throwable t) {
                    buf.release();
                    throw t;
                }
                if (n <= 0) {
                    buf.release();
                    if (n < 0) {
                        heldEof = true;
                        setInterest(IoSocket.OP_READ, false);
                        deliverHeld(); // the peer closed: the user learns it now, with every byte before it
                    }
                    return;
                }
                buf.writerIndex(buf.writerIndex() + n);
                bytesRead += n;
                loopCounters.bytesRead(n);
                heldReads.add(buf);
                heldBytes += n;
            }
            setInterest(IoSocket.OP_READ, false); // full: wait for read()
        } catch (Throwable t) {
            countIoError(t);
            Throwable cause = unwrapAllocatorFailure(t);
            pipeline.fireExceptionCaught(cause);
            if (closesOnReadFailure(t)) {
                deliverHeld();
                close0(cause, readFailureReason(t, "reading ahead"), null); // as in streamRead: it would fail again
            }
        }
    }

    /**
     * An allocator failure inside a read, wrapped so that the read can tell it from a socket error; never reaches
     * the pipeline ({@link #unwrapAllocatorFailure}). No stack trace of its own: the cause has it.
     */
    private static final class AllocatorFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AllocatorFailure(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    /** {@code alloc.buffer(capacity)}, its failure wrapped in an {@link AllocatorFailure}. */
    private static Buffer allocate(BufferAllocator alloc, int capacity) {
        try {
            return alloc.buffer(capacity);
        } catch (RuntimeException | Error e) {
            throw new AllocatorFailure(e);
        }
    }

    /**
     * @return whether a stream read that failed with {@code t} closes the channel: a socket error or an allocator
     *         failure (either would fail the same way on the next readiness event)
     */
    private static boolean closesOnReadFailure(Throwable t) {
        return t instanceof IOException || t instanceof AllocatorFailure;
    }

    private static Throwable unwrapAllocatorFailure(Throwable t) {
        return t instanceof AllocatorFailure ? t.getCause() : t;
    }

    /** @return the close reason for a read that failed with {@code t}: it names the allocator when that failed */
    private static String readFailureReason(Throwable t, String what) {
        return t instanceof AllocatorFailure
                ? "the channel's allocator failed while " + what + ": " + t.getCause()
                : (t instanceof IOException ? "an I/O error while " : "a failure while ") + what + ": " + t;
    }

    private boolean hasHeld() {
        return heldReadsOrNull != null && !heldReadsOrNull.isEmpty();
    }

    /** @return the receive-size predictor, made on the first read */
    private RecvSizer recvSizer() {
        RecvSizer r = recvSizer;
        if (r == null) {
            r = new RecvSizer();
            recvSizer = r;
        }
        return r;
    }

    private void deliverHeld() {
        readPending = false;
        boolean any = hasHeld();
        Buffer b;
        while (heldReadsOrNull != null && (b = heldReadsOrNull.poll()) != null) {
            heldBytes -= b.readableBytes();
            pipeline.fireChannelRead(b);
        }
        if (any) {
            pipeline.fireChannelReadComplete();
        }
        if (heldEof) {
            heldEof = false;
            endOfStream();
        } else if (open && !inputShutdown && active) {
            setInterest(IoSocket.OP_READ, true);
        }
    }

    private void releaseHeld() {
        Buffer b;
        while (heldReadsOrNull != null && (b = heldReadsOrNull.poll()) != null) {
            ReferenceCounted.safeRelease(b);
        }
        heldBytes = 0;
    }

    private void endOfStream() {
        setInterest(IoSocket.OP_READ, false);
        if (config.allowHalfClosure()) {
            if (!inputShutdown) {
                inputShutdown = true;
                readPending = false;
                fireInputShutdownEvents();
            }
        } else {
            close0(null, "the peer closed the connection (end of stream; ALLOW_HALF_CLOSURE is off)", null);
        }
    }

    private void acceptRead() {
        if (acceptPaused) {
            setInterest(IoSocket.OP_READ, false);
            return;
        }
        if (!wantsInput()) {
            setInterest(IoSocket.OP_READ, false);
            return;
        }
        readPending = false;
        IoServerSocket s = (IoServerSocket) socket;
        int maxMessages = config.maxMessagesPerRead();
        int messages = 0;
        Throwable failure = null;
        try {
            while (messages < maxMessages && open) {
                IoStreamSocket child = s.accept();
                if (child == null) {
                    break;
                }
                acceptErrorReported = false; // an accept worked: a later error starts a new burst
                messages++;
                loopCounters.accepted();
                pipeline.fireChannelRead(newChildChannel(child));
                if (!config.isAutoRead()) {
                    break;
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
        if (messages > 0) {
            pipeline.fireChannelReadComplete();
        }
        if (failure != null) {
            pauseAccepting(failure);
        } else if (!config.isAutoRead() && !readPending) {
            setInterest(IoSocket.OP_READ, false);
        }
    }

    private void pauseAccepting(Throwable failure) {
        // EMFILE/ENFILE and friends: the pending connection stays queued, so polling again at once would spin.
        acceptPaused = true;
        setInterest(IoSocket.OP_READ, false);
        if (!acceptErrorReported) {
            acceptErrorReported = true;
            loopCounters.ioError();
            pipeline.fireExceptionCaught(failure);
        }
        boolean wanted = config.isAutoRead() || readPending;
        readPending = wanted;
        eventLoop().schedule(() -> {
            acceptPaused = false;
            if (open && (config.isAutoRead() || readPending)) {
                readPending = false;
                setInterest(IoSocket.OP_READ, true);
                acceptRead(); // try at once: the poller would report the queued connection anyway
            }
        }, ACCEPT_BACKOFF_MILLIS, TimeUnit.MILLISECONDS);
    }

    private AbstractIoChannel newChildChannel(IoStreamSocket child) {
        return type == ChannelType.UNIX_STREAM
                ? new IoDomainSocketChannel(transportName, child, this, null)
                : new IoSocketChannel(transportName, child, this, null);
    }

    private void datagramRead() {
        if (!wantsInput()) {
            setInterest(IoSocket.OP_READ, false);
            return;
        }
        readPending = false;
        IoDatagramSocket s = (IoDatagramSocket) socket;
        if (datagramScratch == null && datagramReceiveBatchUnsupported) {
            datagramScratch = ByteBuffer.allocateDirect(DATAGRAM_MAX_BYTES);
        }
        BufferAllocator alloc = config.getAllocator();
        int maxMessages = config.maxMessagesPerRead();
        if (!datagramReceiveBatchUnsupported && datagramBatchRead(s, alloc, config.isAutoRead() ? maxMessages : 1)) {
            return;
        }
        int messages = 0;
        Throwable failure = null;
        try {
            while (messages < maxMessages && open) {
                ByteBuffer scratch = datagramScratch;
                scratch.clear();
                SocketAddress sender = s.receive(scratch);
                if (sender == null) {
                    break;
                }
                scratch.flip();
                bytesRead += scratch.remaining();
                loopCounters.datagramRead(scratch.remaining());
                messages++;
                pipeline.fireChannelRead(inboundDatagram(scratch, alloc, null, sender, false));
                if (!config.isAutoRead()) {
                    break;
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
        if (messages > 0) {
            pipeline.fireChannelReadComplete();
        }
        if (datagramReadFailed(failure)) {
            return;
        }
        if (!config.isAutoRead() && !readPending) {
            setInterest(IoSocket.OP_READ, false);
        }
    }

    /**
     * Fires a datagram read's failure, if any. A socket error (e.g. ICMP port unreachable on a connected channel)
     * leaves the channel open; an allocator failure closes it, as on a stream channel: every later datagram would
     * fail the same way.
     *
     * @return {@code true} when the channel was closed
     */
    private boolean datagramReadFailed(Throwable failure) {
        if (failure == null) {
            return false;
        }
        countIoError(failure);
        Throwable cause = unwrapAllocatorFailure(failure);
        pipeline.fireExceptionCaught(cause);
        if (!(failure instanceof AllocatorFailure)) {
            return false;
        }
        close0(cause, readFailureReason(failure, "reading a datagram"), null);
        return true;
    }

    /**
     * One {@link IoDatagramSocket#receiveBatch} call: packets are copied out first and fired after the call, so
     * the transport's shared batch memory is free again before any handler runs.
     *
     * @return {@code false} when the socket does not batch (the caller then reads one datagram at a time)
     */
    private boolean datagramBatchRead(IoDatagramSocket s, BufferAllocator alloc, int max) {
        ArrayDeque<Object> packets = new ArrayDeque<>(Math.min(max, 64));
        Throwable[] copyFailure = new Throwable[1];
        Throwable failure = null;
        int n;
        try {
            n = s.receiveBatch(max, (data, sender, recipient, truncated) -> {
                bytesRead += data.remaining(); // received, whether or not it can be copied
                loopCounters.datagramRead(data.remaining());
                if (copyFailure[0] != null) {
                    return; // the allocator failed on an earlier datagram of this batch: the channel closes
                }
                try {
                    packets.add(inboundDatagram(data, alloc, recipient, sender, truncated));
                } catch (AllocatorFailure e) {
                    copyFailure[0] = e; // not thrown through the transport's receive loop
                }
            });
        } catch (Throwable t) {
            n = 0;
            failure = t;
        }
        if (copyFailure[0] != null) {
            failure = copyFailure[0]; // a socket error after it changes nothing: the channel closes anyway
        }
        if (n < 0) {
            datagramReceiveBatchUnsupported = true;
            if (datagramScratch == null) {
                datagramScratch = ByteBuffer.allocateDirect(DATAGRAM_MAX_BYTES);
            }
            return false;
        }
        Object p;
        boolean any = !packets.isEmpty();
        try {
            while ((p = packets.poll()) != null) {
                pipeline.fireChannelRead(p);
            }
        } finally {
            while ((p = packets.poll()) != null) {
                ReferenceCounted.safeRelease(p); // only when firing threw: the copies not yet fired are ours to free
            }
        }
        if (any) {
            pipeline.fireChannelReadComplete();
        }
        if (datagramReadFailed(failure)) {
            return true;
        }
        if (!config.isAutoRead() && !readPending) {
            setInterest(IoSocket.OP_READ, false);
        }
        return true;
    }

    /**
     * A received datagram as the pipeline sees it, its content a copy of {@code data}'s remaining bytes: a
     * {@link DomainDatagramPacket} on a Unix-domain datagram channel, a {@link DatagramPacket} on UDP. The
     * addresses are resolved first, so nothing that may throw runs between the allocation and the packet taking it.
     *
     * @param recipient the real destination ({@code IP_RECVORIGDSTADDR}), or {@code null} for the local address
     * @param sender the source; the empty path from an unnamed Unix socket
     */
    private Object inboundDatagram(ByteBuffer data, BufferAllocator alloc, SocketAddress recipient,
            SocketAddress sender, boolean truncated) {
        if (type == ChannelType.UNIX_DATAGRAM) {
            SocketAddress to = recipient != null ? recipient : localAddress();
            return new DomainDatagramPacket(copyOf(data, alloc), to, sender, truncated);
        }
        InetSocketAddress to = recipient instanceof InetSocketAddress r ? r : (InetSocketAddress) localAddress();
        InetSocketAddress from = (InetSocketAddress) sender;
        return new DatagramPacket(copyOf(data, alloc), to, from, truncated);
    }

    /**
     * Copies the remaining bytes of {@code data} into a new buffer of {@code alloc}; the new buffer is released
     * again when the copy fails, so the caller owns it only on return.
     */
    private static Buffer copyOf(ByteBuffer data, BufferAllocator alloc) {
        Buffer content = allocate(alloc, data.remaining());
        try {
            return content.writeBytes(data);
        } catch (RuntimeException | Error e) {
            content.release();
            throw e;
        }
    }

    // ------------------------------------------------------------------------------------------- connect

    /**
     * Like {@link #connect(SocketAddress, SocketAddress, Promise)} with a new promise and no local address.
     *
     * @throws IllegalStateException when the channel has no event loop yet (register it first)
     */
    @Override
    public Future<Void> connect(SocketAddress remoteAddress) {
        return connect(remoteAddress, null, newPromise());
    }

    /**
     * Like {@link #connect(SocketAddress, SocketAddress, Promise)} with a new promise.
     *
     * @throws IllegalStateException when the channel has no event loop yet (register it first)
     */
    @Override
    public Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress) {
        return connect(remoteAddress, localAddress, newPromise());
    }

    /**
     * {@inheritDoc}
     *
     * <p>On a stream channel, cancelling {@code promise} while it is pending closes the channel — also when the
     * cancel comes before the connect reached the socket (e.g. from another thread while the loop is busy: the
     * pipeline then drops the cancelled connect on its way, so the channel would otherwise stay open, unconnected).
     * The same holds for a connect entering through {@link #pipeline()} or a handler's context: every entry tells
     * the core ({@code connectEntered}). Any thread.
     *
     * @throws IllegalArgumentException when {@code promise} is already complete other than by a cancel
     */
    @Override
    public Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise) {
        return pipeline.connect(remoteAddress, localAddress, promise);
    }

    private void connect0(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
        if (!open) {
            promise.tryFailure(closedException("connect to " + remote));
            return;
        }
        if (kind == Kind.DATAGRAM) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: nothing was done (a cancel from now on returns false)
            }
            try {
                IoDatagramSocket ds = (IoDatagramSocket) socket;
                if (local != null && socket.localAddress() == null) {
                    ds.bind(local);
                }
                ds.connect(remote);
                remoteAddress = socket.remoteAddress();
                localAddress = socket.localAddress();
                succeedAndActivate(promise);
            } catch (IOException | RuntimeException e) {
                promise.tryFailure(annotate(e, remote));
            }
            return;
        }
        if (kind != Kind.STREAM) {
            promise.tryFailure(new UnsupportedOperationException("a server channel cannot connect (" + this + ")"));
            return;
        }
        IoStreamSocket s = (IoStreamSocket) socket;
        if (connectPromise != null) {
            promise.tryFailure(new ConnectionPendingException());
            return;
        }
        if (active || s.isConnected()) {
            promise.tryFailure(new AlreadyConnectedException());
            return;
        }
        try {
            if (s.connect(remote, local)) {
                if (!promise.setUncancellable() || promise.isDone()) {
                    close0(null, "the connect was cancelled", null); // cancelled while connecting
                    return;
                }
                succeedAndActivate(promise);
                return;
            }
        } catch (IOException | RuntimeException e) {
            Throwable annotated = annotate(e, remote);
            loopCounters.ioError();
            promise.tryFailure(annotated);
            close0(annotated, "the connect failed", null); // writes made meanwhile fail naming it
            return;
        }
        connectPromise = promise;
        connectTarget = remote;
        setInterest(IoSocket.OP_CONNECT, true);
        int timeoutMillis = config.connectTimeoutMillis();
        if (timeoutMillis > 0) {
            connectTimeout = eventLoop().schedule(() -> {
                Promise<Void> p = connectPromise;
                if (p != null && !p.isDone()) {
                    ConnectTimeoutException e = new ConnectTimeoutException("connection timed out after "
                            + timeoutMillis + " ms (CONNECT_TIMEOUT_MILLIS): " + remote);
                    connectPromise = null;
                    p.tryFailure(e);
                    close0(e, "the connect timed out", null);
                }
            }, timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Closes a stream channel (on the loop, whichever thread cancels) once the connect {@code promise} is
     * cancelled; called for every entry of a connect into the pipeline ({@link Internals#connectEntered}), before
     * it travels, so a connect the pipeline drops on its way (cancelled before it reached the head) closes the
     * channel as well as one pending at the socket. Not when a connect other than this one connected the channel
     * meanwhile (a redundant connect the core refuses must not close a working connection). A loop that rejects
     * the close has shut down, which closes its channels itself.
     */
    private void closeWhenCancelled(Promise<Void> promise) {
        promise.addListener(f -> {
            if (f.isCancelled()) {
                onLoop(() -> {
                    if (connectPromise == promise) {
                        connectPromise = null;
                    } else if (active) {
                        return; // connected by another, uncancelled connect (this one was refused or dropped)
                    }
                    close0(null, "the connect was cancelled", null);
                }, null);
            }
        });
    }

    private void connectReady() {
        Promise<Void> p = connectPromise;
        if (p == null) {
            setInterest(IoSocket.OP_CONNECT, false);
            return;
        }
        try {
            if (!((IoStreamSocket) socket).finishConnect()) {
                return;
            }
            setInterest(IoSocket.OP_CONNECT, false);
            connectPromise = null;
            cancelConnectTimeout();
            if (!p.setUncancellable() || p.isDone()) {
                close0(null, "the connect was cancelled", null); // cancelled meanwhile
                return;
            }
            succeedAndActivate(p);
        } catch (IOException | RuntimeException e) {
            connectPromise = null;
            cancelConnectTimeout();
            Throwable annotated = annotate(e, connectTarget);
            loopCounters.ioError();
            p.tryFailure(annotated);
            close0(annotated, "the connect failed", null);
        }
    }

    /**
     * Completes an uncancellable bind or connect promise with the channel already active (unless it was before), then
     * fires {@code channelActive}: see {@link #markActive()}.
     */
    private void succeedAndActivate(Promise<Void> promise) {
        boolean activated = markActive();
        promise.trySuccess(null);
        if (activated) {
            fireActive();
        }
    }

    private void cancelConnectTimeout() {
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
    }

    private static Throwable annotate(Throwable e, SocketAddress remote) {
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

    // ---------------------------------------------------------------------------------------------- writes

    private void write0(Object msg, Promise<Void> promise) {
        if (!open || outputShutdown) {
            ReferenceCounted.safeRelease(msg);
            promise.tryFailure(open ? new ChannelClosedException("write to channel " + id()
                    + " failed: its output was shut down", null) : closedException("write"));
            return;
        }
        String problem = checkMessage(msg);
        if (problem != null) {
            ReferenceCounted.safeRelease(msg);
            promise.tryFailure(msg instanceof ReferenceCounted rc && rc.refCnt() == 0
                    ? new IllegalReferenceCountException(problem) : new IllegalArgumentException(problem));
            return;
        }
        if (outbound().addMessage(msg, promise)) {
            pipeline.fireChannelWritabilityChanged();
        }
    }

    private String checkMessage(Object msg) {
        if (msg instanceof ReferenceCounted rc && rc.refCnt() == 0) {
            return "write of a released " + msg.getClass().getSimpleName() + " to channel " + id()
                    + ": the message was freed before it was written (refCnt 0); retain it or write a new one";
        }
        if (msg instanceof Buffer) {
            return null;
        }
        if (kind == Kind.STREAM && msg instanceof FileRegion) {
            return null;
        }
        if (kind == Kind.DATAGRAM && (type == ChannelType.UNIX_DATAGRAM ? msg instanceof DomainDatagramPacket
                : msg instanceof DatagramPacket)) {
            return null; // a released content was refused above: the packet's count is its content's
        }
        return "channel " + this + " cannot write a " + (msg == null ? "null" : msg.getClass().getName())
                + "; write " + (kind == Kind.DATAGRAM ? "a Buffer (connected) or a "
                        + (type == ChannelType.UNIX_DATAGRAM ? "DomainDatagramPacket" : "DatagramPacket")
                        : kind == Kind.STREAM ? "a Buffer or a FileRegion" : "nothing to a server channel");
    }

    /**
     * Writes the flushed part of the outbound buffer. Loop thread.
     *
     * <p><b>Invariant</b> (checked after every {@link #doWrite()}, whichever way it ended): when a flush returns on
     * an open channel, either the flushed part is empty, or write interest ({@code OP_WRITE}) is on, or a
     * continuation task is scheduled. Otherwise flushed data would wait for an event that never comes.
     *
     * <p><b>Re-entrance</b>: {@code doWrite} fires events (writability changes, write promises completing) whose
     * handlers may write and flush into this channel again, e.g. a relay whose writability turns auto-read of
     * the other channel on, which delivers that channel's held input at once and writes it here. Such a nested
     * flush does not write itself (see {@code flushing}); the outer flush writes it with its remaining spins, and
     * after {@code doWrite} returned the invariant is re-established for whatever is left (write readiness or a
     * continuation), whichever exit {@code doWrite} took.
     */
    private void flush0() {
        if (flushing) {
            return; // nested in doWrite: the outer flush takes care of it (see the invariant above)
        }
        if (flushedEmpty()) {
            setInterest(IoSocket.OP_WRITE, false);
            return;
        }
        if (!open) {
            failAllPending(null);
            return;
        }
        if (!active && connectPromise == null && !connectedBeforeActive()) {
            // nothing would ever write it: fail it now (the class comment, "writes")
            if (outboundOrNull.failFlushed(() -> AddressErrors.notActive(id(), kind == Kind.DATAGRAM))) {
                pipeline.fireChannelWritabilityChanged();
            }
            return;
        }
        if (!active || connectPromise != null || (interestOps & IoSocket.OP_WRITE) != 0) {
            return; // after connecting / when the socket reports writable
        }
        flushing = true;
        try {
            doWrite();
        } catch (Throwable t) {
            flushing = false;
            if (t instanceof IOException) {
                loopCounters.ioError();
                close0(t, "an I/O error while writing", null);
            } else {
                OutboundBuffer ob = outboundOrNull;
                if (ob != null && !ob.isFlushedEmpty()) {
                    if (ob.removeHead(t)) {
                        pipeline.fireChannelWritabilityChanged();
                    }
                }
                pipeline.fireExceptionCaught(t);
            }
        } finally {
            flushing = false;
        }
        if (open && !flushedEmpty() && (interestOps & IoSocket.OP_WRITE) == 0) {
            scheduleContinuation(); // the invariant above: something must resume the flushed rest
        }
        if (shutdownOutputPromise != null && flushedEmpty() && open) {
            Promise<Void> p = shutdownOutputPromise;
            shutdownOutputPromise = null;
            shutdownOutputNow(p);
        }
        if (spliceIn != null && flushedEmpty()) {
            spliceIn.targetWritable(); // the writes that went before spliced bytes are out
        }
    }

    /**
     * @return {@code true} for a stream channel whose socket is connected although the channel is not active yet: an
     *         accepted (or adopted) connection between its registration and {@code channelActive}
     */
    private boolean connectedBeforeActive() {
        return kind == Kind.STREAM && ((IoStreamSocket) socket).isConnected();
    }

    /** @return {@code true} when nothing flushed waits (also when nothing was ever written) */
    private boolean flushedEmpty() {
        OutboundBuffer ob = outboundOrNull;
        return ob == null || ob.isFlushedEmpty();
    }

    /** Called by flush0 only when something flushed waits: the outbound buffer exists. */
    private void doWrite() throws IOException {
        OutboundBuffer outbound = this.outboundOrNull; // not null here
        int spins = config.writeSpinCount();
        while (spins > 0) {
            Object msg = outbound.current();
            if (msg == null) {
                setInterest(IoSocket.OP_WRITE, false);
                return;
            }
            if (msg instanceof Buffer b && kind == Kind.STREAM) {
                long budget = gatheringBudget();
                ByteBuffer[] iov = outbound.nioBuffers(budget);
                int count = outbound.nioBufferCount();
                if (count == 0) {
                    if (outbound.removeBytes(0)) { // only empty buffers at the head: complete them
                        pipeline.fireChannelWritabilityChanged();
                    }
                    if (b.refCnt() > 0 && b.readableBytes() == 0 && outbound.current() == msg) {
                        if (outbound.removeHead(null)) {
                            pipeline.fireChannelWritabilityChanged();
                        }
                    }
                    continue;
                }
                long attempted = outbound.nioBufferSize();
                long written;
                try {
                    written = ((IoStreamSocket) socket).write(iov, 0, count);
                } finally {
                    outbound.clearNioBuffers();
                }
                if (written <= 0) {
                    setInterest(IoSocket.OP_WRITE, true);
                    return;
                }
                bytesWritten += written;
                loopCounters.bytesWritten(written);
                adaptGatheringBudget(attempted, written);
                if (outbound.removeBytes(written)) {
                    pipeline.fireChannelWritabilityChanged();
                }
                spins--;
            } else if (msg instanceof FileRegion r) {
                long remaining = r.count() - r.transferred();
                if (remaining == 0) {
                    if (outbound.removeHead(null)) {
                        pipeline.fireChannelWritabilityChanged();
                    }
                    continue;
                }
                long position = r.position() + r.transferred();
                long n = ((IoStreamSocket) socket).transferFrom(r.file(), position, remaining);
                if (n <= 0) {
                    long size = r.file().size();
                    if (size < r.position() + r.count()) {
                        IOException shortFile = new IOException("file region of " + r.description()
                                + " cannot be written: the file is " + size + " bytes, shorter than the region end "
                                + (r.position() + r.count()) + " (position " + r.position() + " + count " + r.count()
                                + "); " + r.transferred() + " bytes were written");
                        if (outbound.removeHead(shortFile)) {
                            pipeline.fireChannelWritabilityChanged();
                        }
                        spins--;
                        continue;
                    }
                    setInterest(IoSocket.OP_WRITE, true);
                    return;
                }
                r.addTransferred(n);
                bytesWritten += n;
                loopCounters.bytesWritten(n);
                boolean changed = outbound.progressHead(n);
                if (r.transferred() == r.count()) {
                    changed |= outbound.removeHead(null);
                }
                if (changed) {
                    pipeline.fireChannelWritabilityChanged();
                }
                spins--;
            } else {
                if (!datagramSendBatchUnsupported) {
                    int sent = datagramBatchWrite();
                    if (sent > 0) {
                        spins--;
                        continue;
                    }
                    if (sent == 0) {
                        setInterest(IoSocket.OP_WRITE, true);
                        return;
                    }
                    // -1: the socket does not batch; -2: the head failed and was removed
                    if (sent == -2) {
                        spins--;
                        continue;
                    }
                }
                // datagrams: a Buffer to the connected peer, or a DatagramPacket
                Buffer content;
                SocketAddress target;
                if (msg instanceof DatagramPacket p) {
                    content = p.content();
                    target = p.recipient();
                } else if (msg instanceof DomainDatagramPacket p) {
                    content = p.content();
                    target = p.recipient();
                } else {
                    content = (Buffer) msg;
                    target = null;
                }
                ByteBuffer nio = content.readableBytes() == 0 ? ByteBuffer.allocate(0)
                        : content.nioBuffer(content.readerIndex(), content.readableBytes());
                int datagramBytes = nio.remaining();
                boolean sent;
                try {
                    sent = ((IoDatagramSocket) socket).send(nio, target);
                } catch (IOException | RuntimeException e) {
                    // one bad datagram (unreachable, too large) fails its own promise, not the channel
                    loopCounters.ioError();
                    if (outbound.removeHead(annotate(e, target))) {
                        pipeline.fireChannelWritabilityChanged();
                    }
                    spins--;
                    continue;
                }
                if (!sent) {
                    setInterest(IoSocket.OP_WRITE, true);
                    return;
                }
                bytesWritten += datagramBytes;
                loopCounters.datagramWritten(datagramBytes);
                if (outbound.removeHead(null)) {
                    pipeline.fireChannelWritabilityChanged();
                }
                spins--;
            }
        }
        if (!outbound.isFlushedEmpty()) {
            scheduleContinuation(); // budget spent but the socket still accepts: let other channels run first
        } else {
            setInterest(IoSocket.OP_WRITE, false);
        }
    }

    /** Largest batch handed to {@link IoDatagramSocket#sendBatch}. */
    private static final int DATAGRAM_BATCH_MAX = 64;

    /**
     * Sends the leading flushed datagrams with one {@link IoDatagramSocket#sendBatch} call.
     *
     * @return datagrams sent and removed ({@code > 0}); {@code 0} when the socket is full; {@code -1} when the
     *         socket does not batch; {@code -2} when the first datagram failed (its promise failed, it was removed)
     */
    private int datagramBatchWrite() {
        OutboundBuffer outbound = this.outboundOrNull; // not null here
        if (datagramBatch == null) {
            datagramBatch = new Object[DATAGRAM_BATCH_MAX];
        }
        int count = outbound.flushedMessages(datagramBatch);
        ByteBuffer[] srcs = new ByteBuffer[count];
        SocketAddress[] targets = new SocketAddress[count];
        for (int i = 0; i < count; i++) {
            Object m = datagramBatch[i];
            Buffer content = m instanceof DatagramPacket p ? p.content()
                    : m instanceof DomainDatagramPacket d ? d.content() : (Buffer) m;
            targets[i] = m instanceof DatagramPacket p ? p.recipient()
                    : m instanceof DomainDatagramPacket d ? d.recipient() : null;
            srcs[i] = content.readableBytes() == 0 ? ByteBuffer.allocate(0)
                    : content.nioBuffer(content.readerIndex(), content.readableBytes());
        }
        java.util.Arrays.fill(datagramBatch, 0, count, null);
        int sent;
        try {
            sent = ((IoDatagramSocket) socket).sendBatch(srcs, targets, count);
        } catch (IOException | RuntimeException e) {
            // one bad datagram (unreachable, too large) fails its own promise, not the channel
            loopCounters.ioError();
            if (outbound.removeHead(annotate(e, targets[0]))) {
                pipeline.fireChannelWritabilityChanged();
            }
            return -2;
        }
        if (sent < 0) {
            datagramSendBatchUnsupported = true;
            return -1;
        }
        boolean changed = false;
        for (int i = 0; i < sent; i++) {
            bytesWritten += srcs[i].remaining(); // sendBatch leaves the positions as they were
            loopCounters.datagramWritten(srcs[i].remaining());
            changed |= outbound.removeHead(null);
        }
        if (changed) {
            pipeline.fireChannelWritabilityChanged();
        }
        return sent;
    }

    private void scheduleContinuation() {
        if (continuationScheduled) {
            return;
        }
        continuationScheduled = true;
        try {
            eventLoop().execute(() -> {
                continuationScheduled = false;
                flush0(); // only the flushed part: no addFlush() here
            });
        } catch (RejectedExecutionException e) {
            continuationScheduled = false;
            setInterest(IoSocket.OP_WRITE, true); // the loop is shutting down; the poller still drives us
        }
    }

    private long gatheringBudget() {
        if (maxBytesPerGatheringWrite == 0) {
            Integer sndbuf = null;
            try {
                sndbuf = socket.getOption(ChannelOption.SO_SNDBUF);
            } catch (IOException | RuntimeException ignored) {
                // unknown: use the fallback below
            }
            maxBytesPerGatheringWrite = sndbuf != null && sndbuf > 0 ? (long) sndbuf << 1 : 256 * 1024;
        }
        return maxBytesPerGatheringWrite;
    }

    private void adaptGatheringBudget(long attempted, long written) {
        if (written == attempted) {
            if ((attempted << 1) > maxBytesPerGatheringWrite) {
                maxBytesPerGatheringWrite = Math.min(Integer.MAX_VALUE, attempted << 1);
            }
        } else if (attempted > 4096 && written < (attempted >>> 1)) {
            maxBytesPerGatheringWrite = attempted >>> 1;
        }
    }

    private void writeReady() {
        setInterest(IoSocket.OP_WRITE, false);
        flush0();
        if (spliceIn != null) {
            spliceIn.targetWritable();
        }
    }

    // ------------------------------------------------------------------------------- zero-copy forwarding

    @Override
    public boolean canForwardTo(Channel target) {
        return target instanceof AbstractIoChannel t && t != this && kind == Kind.STREAM && t.kind == Kind.STREAM
                && loop != null && t.loop == loop && open && t.isOpen() && spliceOut == null
                && socket instanceof IoSpliceSocket s && s.canSpliceTo((IoStreamSocket) t.socket);
    }

    @Override
    public Future<Void> forwardTo(Channel target) {
        Promise<Void> promise = newPromise();
        if (!canForwardTo(target)) {
            promise.tryFailure(new UnsupportedOperationException("channel " + id() + " (" + transportName + ", " + type
                    + ") cannot splice to " + target + ": zero-copy forwarding needs two open stream channels of one"
                    + " event loop whose transport splices between them (epoll, TCP to TCP); copy instead"));
            return promise;
        }
        AbstractIoChannel t = (AbstractIoChannel) target;
        onLoop(() -> startForwarding(t, promise), promise);
        return promise;
    }

    private void startForwarding(AbstractIoChannel t, Promise<Void> promise) {
        if (!open || !t.open || !active || !t.active || t.outputShutdown || t.shutdownOutputPromise != null) {
            promise.tryFailure(new ChannelClosedException("zero-copy forwarding from " + this + " to " + t
                    + " cannot start: both channels must be connected, and the target's output open", null));
            return;
        }
        if (spliceOut != null || t.spliceIn != null) {
            promise.tryFailure(new IllegalStateException("channel " + (spliceOut != null ? id() + " forwards"
                    : t.id() + " receives forwarded bytes") + " already"));
            return;
        }
        if (hasHeld() || heldEof || inputShutdown) {
            deliverHeld(); // what was read ahead goes first, through the pipeline
            if (!open || inputShutdown) {
                promise.trySuccess(null); // the end of stream was behind it: nothing is left to forward
                return;
            }
        }
        SpliceForwarder f = new SpliceForwarder(this, t,
                ((IoSpliceSocket) socket).newSplicePipe((IoStreamSocket) t.socket), promise);
        spliceOut = f;
        t.spliceIn = f;
        f.pump(); // input may be waiting already (an edge-triggered poller reports it only once)
    }

    /** @return {@code true} when this splice target has no flushed write left before spliced bytes */
    boolean spliceTargetReady() {
        return open && flushedEmpty();
    }

    void spliceRead(long n) {
        bytesRead += n;
        loopCounters.bytesRead(n);
    }

    void spliceWritten(long n) {
        bytesWritten += n;
        loopCounters.bytesWritten(n);
    }

    /** Counts a failed read, accept or datagram receive as an I/O error, unless the allocator failed. */
    private void countIoError(Throwable failure) {
        if (!(failure instanceof AllocatorFailure)) {
            loopCounters.ioError();
        }
    }

    /** Forwarding ended at end of stream: handle it as a read would have. */
    void spliceEndOfStream() {
        if (open && !inputShutdown) {
            endOfStream();
        }
    }

    /** Forwarding failed: fire the error where it happened ({@code here}), and close. */
    void spliceFailed(IOException cause, boolean here) {
        if (here) {
            pipeline.fireExceptionCaught(cause);
        }
        close0(cause, here ? "an I/O error while splicing" : "the channel it spliced with failed", null);
    }

    /** {@code f} no longer forwards from or to this channel: the core's own interest applies again. */
    void spliceDetached(SpliceForwarder f) {
        if (spliceOut == f) {
            spliceOut = null;
        }
        if (spliceIn == f) {
            spliceIn = null;
        }
        applyInterest();
    }

    // ---------------------------------------------------------------------------------------------- close

    private ChannelClosedException closedException(String operation) {
        Throwable cause = closeCauseForMessages;
        return new ChannelClosedException(operation + " on channel " + id() + " failed: the channel is closed"
                + closeExplanation(), cause);
    }

    private volatile Throwable closeCauseForMessages; // written by the loop at close; read for messages only
    private volatile String closeReason;              // written by the loop at close: why it closed, e.g. "close() was called"

    /** @return {@code " (close() was called)"}, {@code " (an I/O error while reading: …)"}, … or {@code ""} */
    private String closeExplanation() {
        String reason = closeReason;
        Throwable cause = closeCauseForMessages;
        if (reason == null && cause == null) {
            return "";
        }
        return " (" + (reason != null ? reason : "closed") + (cause != null ? ": " + cause : "") + ")";
    }

    private void failAllPending(Throwable cause) {
        OutboundBuffer outbound = this.outboundOrNull;
        if (outbound != null && outbound.failAll(() -> new ChannelClosedException("write to channel " + id()
                + " failed: the channel closed before the write completed" + closeExplanation(), cause))) {
            pipeline.fireChannelWritabilityChanged();
        }
    }

    /** Closes the channel; {@code reason} says why (for the messages of everything it fails). */
    private void close0(Throwable cause, String reason, Promise<Void> promise) {
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
        if (spliceOut != null) {
            spliceOut.channelClosed(this);
        }
        if (spliceIn != null) {
            spliceIn.channelClosed(this);
        }
        boolean wasActive = active;
        open = false;
        active = false;
        cancelConnectTimeout();
        Promise<Void> cp = connectPromise;
        connectPromise = null;
        if (cp != null) {
            cp.tryFailure(new ChannelClosedException("connect to " + connectTarget + " on channel " + id()
                    + " was aborted: the channel closed" + (cause != null ? " because of " + cause : ""), cause));
        }
        Promise<Void> sp = shutdownOutputPromise;
        shutdownOutputPromise = null;
        if (sp != null) {
            sp.tryFailure(closedException("shutdownOutput"));
        }
        failAllPending(cause);
        releaseHeld();
        heldEof = false;
        int linger = -1;
        if (kind == Kind.STREAM) {
            try {
                Integer l = socket.getOption(ChannelOption.SO_LINGER);
                linger = l == null ? -1 : l;
            } catch (IOException | RuntimeException ignored) {
                // closed already: a plain close will do
            }
        }
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

    private void closeSocketQuietly() {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the socket of " + this + " failed", e);
        }
    }

    private void closeComplete(boolean wasActive, Promise<Void> promise) {
        OpenChannels.remove(internals); // before close() completes: a channel whose close finished is not listed
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

    // ----------------------------------------------------------------------------------- inner adapters

    /**
     * The channel's internal faces, one object (an idle channel holds no more than it needs): the pipeline head's
     * operations ({@link ChannelIoOperations}), the poller's readiness events ({@link IoEvents}), the config's
     * change listener and the traffic counters listed in {@link OpenChannels} ({@link ChannelStats}). Not the
     * channel itself, so none of these methods is public API of the channel.
     */
    private final class Internals implements ChannelIoOperations, IoEvents, IoChannelConfig.Listener, ChannelStats {

        // ------------------------------------------------------------------ ChannelIoOperations (the head)

        @Override
        public void bind(SocketAddress local, Promise<Void> promise) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: nothing was bound (a cancel from now on returns false)
            }
            if (!open) {
                promise.tryFailure(closedException("bind to " + local));
                return;
            }
            try {
                socket.bind(local);
                localAddress = socket.localAddress();
            } catch (IOException | RuntimeException e) {
                promise.tryFailure(e instanceof IOException io ? bindFailure(local, io) : e);
                return;
            }
            if (kind == Kind.STREAM) {
                promise.trySuccess(null); // a stream socket becomes active when it connects
            } else {
                succeedAndActivate(promise);
            }
        }

        @Override
        public void connect(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
            connect0(remote, local, promise);
        }

        /**
         * @return the error of a failed bind naming {@code local}: an {@link io.conduit.channel.AddressBindException}
         *         with the reason of {@code e} (see {@link io.conduit.channel.AddressBindException#reasonOf}) when it
         *         is a bind error, saying what to do for {@code EADDRINUSE} (bind(2)); an {@link IOException}
         *         otherwise
         */
        private IOException bindFailure(SocketAddress local, IOException e) {
            String m = String.valueOf(e.getMessage());
            io.conduit.channel.AddressBindException.Reason reason = io.conduit.channel.AddressBindException.reasonOf(e);
            if (reason == null) {
                return new IOException("bind to " + local + " failed: " + m, e);
            }
            boolean inUse = reason == io.conduit.channel.AddressBindException.Reason.IN_USE;
            return new io.conduit.channel.AddressBindException("bind to " + local + " failed: " + m
                    + (inUse ? ": another socket is bound to " + local + "; close it or choose another address" : ""),
                    reason, local, e);
        }

        @Override
        public void connectEntered(Promise<Void> promise) {
            if (kind == Kind.STREAM) {
                closeWhenCancelled(promise);
            }
        }

        @Override
        public void disconnect(Promise<Void> promise) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: nothing was done
            }
            if (kind != Kind.DATAGRAM) {
                close0(null, "disconnect() was called", promise);
                return;
            }
            try {
                ((IoDatagramSocket) socket).disconnect();
                remoteAddress = null;
                compactRemote = 0;
                promise.trySuccess(null);
            } catch (IOException | RuntimeException e) {
                promise.tryFailure(e);
            }
        }

        @Override
        public void close(Promise<Void> promise) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: the channel stays open, as the cancel said
            }
            close0(null, "close() was called", promise);
        }

        @Override
        public void read() {
            if (readInProgress) {
                readPending = true;
                return;
            }
            beginRead();
        }

        @Override
        public void write(Object msg, Promise<Void> promise) {
            write0(msg, promise);
        }

        @Override
        public void flush() {
            OutboundBuffer ob = outboundOrNull;
            if (ob != null) {
                ob.addFlush();
            }
            flush0();
        }

        // ------------------------------------------------------------------ IoEvents (the poller)

        @Override
        public void readReady() {
            AbstractIoChannel.this.readReady();
        }

        @Override
        public void writeReady() {
            AbstractIoChannel.this.writeReady();
        }

        @Override
        public void connectReady() {
            AbstractIoChannel.this.connectReady();
        }

        @Override
        public void loopShuttingDown() {
            close0(null, "its event loop shut down", null);
        }

        // ------------------------------------------------------------------ IoChannelConfig.Listener

        @Override
        public void autoReadTurnedOff() {
            EventLoop l = loop;
            if (l == null || !registered) {
                return;
            }
            Runnable task = () -> {
                if (config.isAutoRead()) {
                    return; // turned on again meanwhile
                }
                readPending = false;
                if (kind != Kind.STREAM) {
                    setInterest(IoSocket.OP_READ, false);
                } // a stream keeps read interest: read-ahead keeps end-of-stream visible
            };
            if (l.inEventLoop()) {
                task.run();
            } else {
                l.execute(task);
            }
        }

        @Override
        public void waterMarkChanged(WriteBufferWaterMark waterMark) {
            OutboundBuffer ob = outboundOrNull; // null: outbound() reads the config again after creating it
            if (ob != null) {
                ob.waterMarks(waterMark.low(), waterMark.high());
            }
        }

        // ------------------------------------------------------------------ ChannelStats (OpenChannels)

        @Override
        public Channel channel() {
            return AbstractIoChannel.this;
        }

        @Override
        public long bytesRead() {
            return bytesRead;
        }

        @Override
        public long bytesWritten() {
            return bytesWritten;
        }

        @Override
        public long openedAtNanos() {
            return registeredAtNanos;
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
