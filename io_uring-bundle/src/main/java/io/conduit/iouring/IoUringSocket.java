package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;
import static io.conduit.iouring.NativeAbi.SOCKETS;

import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.IoEventLoop;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.unix.NativeConstants;
import io.conduit.transport.spi.unix.SocketOptionTable;
import io.conduit.transport.spi.unix.UnixSockets;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;

/**
 * What every io_uring socket shares: the descriptor, its slot in the loop's {@link IoUringIoHandler}, the requests
 * it has in flight, the interest set the channel core asked for, addresses and options.
 *
 * <p><b>Completion, not readiness.</b> The channel core calls {@code read}/{@code write}/{@code accept} as it would
 * on a readiness transport. A socket answers from what completed (received bytes, accepted descriptors) and keeps
 * one request of each kind in flight to the kernel; a completion is reported to the core as the readiness event it
 * means ({@link IoEvents#readReady()} for received bytes, and so on), but only for the interest the core set.
 *
 * <p><b>Ownership.</b> Memory a request names (a receive or send buffer, a socket address) belongs to the kernel from
 * submission until the request's completion: the socket keeps it reachable until then. On
 * {@link #deregister(Runnable)} the requests still in flight are cancelled ({@code IORING_OP_ASYNC_CANCEL}); the
 * slot, the buffers and the descriptor are given up only once every one of them completed. So {@code close(2)} of
 * the descriptor waits for that moment too: no request ever names a closed (and perhaps reused) descriptor.
 *
 * <p>Threading (see {@link IoSocket}): registration, interest and I/O on the loop thread; {@link #close()},
 * {@link #setOption}/{@link #getOption} and {@link #isOpen()} from any thread.
 */
abstract class IoUringSocket implements IoSocket {

    /** Requests, in user_data (the low byte). */
    static final int REQ_RECV = 1;
    static final int REQ_SEND = 2;
    static final int REQ_CONNECT = 3;
    static final int REQ_ACCEPT = 4;
    static final int REQ_CANCEL = 5;
    /** {@code IORING_OP_POLL_ADD} for {@code POLLIN}: input for a {@code splice(2)} of a stream socket */
    static final int REQ_POLL_IN = 6;
    /** {@code IORING_OP_POLL_ADD} for {@code POLLOUT}: room for a {@code sendfile(2)} or {@code splice(2)} */
    static final int REQ_POLL_OUT = 7;
    /**
     * a cancel that only stops a multishot request from taking more (back-pressure); unlike {@link #REQ_CANCEL}, its
     * {@code -EALREADY} does not shut the socket down
     */
    static final int REQ_STOP = 8;

    /** Socket kinds (the bits of {@link SocketOptionTable}). */
    static final int TCP = SocketOptionTable.TCP;
    static final int TCP_SERVER = SocketOptionTable.TCP_SERVER;
    static final int UNIX = SocketOptionTable.UNIX;
    static final int UNIX_SERVER = SocketOptionTable.UNIX_SERVER;
    static final int UDP = SocketOptionTable.UDP;
    /** a Unix-domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}) */
    static final int UNIX_DGRAM = SocketOptionTable.UNIX_DGRAM;

    /**
     * The socket options this transport honours ({@link NativeAbi#SOCKETS} holds the table; the core's options,
     * {@code SO_BACKLOG} among them, and {@code IP_MULTICAST_IF} are handled apart).
     */
    static SocketOptionTable optionTable(NativeConstants constants) {
        int tcp = TCP | TCP_SERVER;
        int stream = tcp | UNIX | UNIX_SERVER;
        return SocketOptionTable.builder(constants)
                .option(ChannelOption.SO_SNDBUF, "SOL_SOCKET", "SO_SNDBUF", stream | UDP | UNIX_DGRAM)
                .option(ChannelOption.SO_RCVBUF, "SOL_SOCKET", "SO_RCVBUF", stream | UDP | UNIX_DGRAM)
                .option(ChannelOption.SO_KEEPALIVE, "SOL_SOCKET", "SO_KEEPALIVE", tcp)
                .option(ChannelOption.SO_REUSEADDR, "SOL_SOCKET", "SO_REUSEADDR", tcp | UDP)
                .option(ChannelOption.SO_REUSEPORT, "SOL_SOCKET", "SO_REUSEPORT", tcp | UDP)
                .option(ChannelOption.SO_BROADCAST, "SOL_SOCKET", "SO_BROADCAST", UDP)
                .option(ChannelOption.IP_TOS, "IPPROTO_IP", "IP_TOS", tcp | UDP)
                .ipv6Also(ChannelOption.IP_TOS, "IPPROTO_IPV6", "IPV6_TCLASS", false)
                .option(ChannelOption.IP_MULTICAST_TTL, "IPPROTO_IP", "IP_MULTICAST_TTL", UDP)
                .option(ChannelOption.IP_MULTICAST_LOOP, "IPPROTO_IP", "IP_MULTICAST_LOOP", UDP)
                .option(ChannelOption.IP_RECVORIGDSTADDR, "IPPROTO_IP", "IP_RECVORIGDSTADDR", UDP)
                .ipv6Also(ChannelOption.IP_RECVORIGDSTADDR, "IPPROTO_IPV6", "IPV6_RECVORIGDSTADDR", true)
                .option(ChannelOption.TCP_NODELAY, "IPPROTO_TCP", "TCP_NODELAY", tcp)
                .linger(TCP | UNIX)
                .build();
    }

    /** @return {@code true} when some io_uring socket kind honours {@code option} (for {@code Transport.supports}) */
    static boolean mapsOption(ChannelOption<?> option) {
        return SOCKETS.options().maps(option)
                || option == ChannelOption.IP_MULTICAST_IF // IoUringDatagramSocket maps it (struct, not int)
                || option == ChannelOption.SEND_ZC_THRESHOLD; // IoUringStreamSocket's own
    }

    /** closes whose descriptor waited for requests in flight, output among them (test hook) */
    static final java.util.concurrent.atomic.AtomicLong CLOSES_AFTER_OUTPUT = new java.util.concurrent.atomic.AtomicLong();
    /** closes whose staged output was dropped after {@link #closeOutputTimeoutMillis} (test hook) */
    static final java.util.concurrent.atomic.AtomicLong CLOSES_OUTPUT_ABANDONED = new java.util.concurrent.atomic.AtomicLong();
    /**
     * How long a closed socket's staged output may wait for a peer that does not read, in milliseconds: then it is
     * dropped and the descriptor closed, so such a peer cannot keep it open (the kernel, too, gives up on an orphaned
     * connection's send queue after its retries, tcp(7) {@code tcp_orphan_retries}). Test hook.
     */
    static volatile long closeOutputTimeoutMillis = 60_000;

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(IoUringSocket.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** the descriptor; closed once {@link #closed} is set and no request is in flight */
    private final int fd;
    /** {@code AF_INET6}, {@code AF_INET} or {@code AF_UNIX} */
    final int domain;
    /** {@link #TCP}, {@link #TCP_SERVER}, {@link #UNIX}, {@link #UNIX_SERVER}, {@link #UDP} or {@link #UNIX_DGRAM} */
    final int kind;
    /** set once by {@link #close()}; any thread */
    private volatile boolean closed;

    private IoUringIoHandler handler; // loop-confined: set by register, cleared when the slot is given back
    private EventLoop loop;           // loop-confined: set by register
    /** loop-confined: drops staged output a deferred close still waits for ({@link #closeOutputTimeoutMillis}) */
    private java.util.concurrent.ScheduledFuture<?> outputDeadline;
    private int slot;                 // loop-confined
    private IoEvents events;          // loop-confined
    private int interest;             // loop-confined: OP_* bits of IoSocket
    /** loop-confined: requests in flight (each completes once; a multishot request counts once until its last CQE) */
    private int inFlight;
    /** loop-confined: deregistered, no event goes to the core any more */
    private boolean deregistered;
    /** loop-confined: run when the slot is given back after deregistration */
    private Runnable whenReleased;
    /** loop-confined: {@link #close()} came while requests were in flight; the descriptor closes when they are done */
    private boolean closeDeferred;
    /** loop-confined: on the handler's ready list */
    boolean onReadyList;
    private volatile SocketAddress cachedLocal;

    IoUringSocket(int fd, int domain, int kind) {
        this.fd = fd;
        this.domain = domain;
        this.kind = kind;
    }

    /**
     * Opens a non-blocking, close-on-exec stream socket: Unix-domain, or TCP ({@code AF_INET6} dual-stack, or
     * {@code AF_INET} when the host has no IPv6).
     *
     * @return {fd, domain}
     */
    static int[] openStream(boolean unix) throws IOException {
        return SOCKETS.open(unix, NativeAbi.SOCK_STREAM | NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC);
    }

    /** @return {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}: the kind that address checks and errors name */
    final String addressKind() {
        return SOCKETS.addressKind(domain, kind == UDP ? "UDP" : "TCP");
    }

    final int fd() {
        return fd;
    }

    final boolean ipv6() {
        return domain == NativeAbi.AF_INET6;
    }

    /** @throws ChannelClosedException when closed */
    final int liveFd(String call) throws ChannelClosedException {
        if (closed) {
            throw new ChannelClosedException(call + " on a closed io_uring socket (fd " + fd + " was closed)", null);
        }
        return fd;
    }

    // -------------------------------------------------------------------------------------- registration

    @Override
    public void register(EventLoop loop, IoEvents events) throws IOException {
        if (!(loop instanceof IoEventLoop l) || !(l.ioHandler() instanceof IoUringIoHandler h)
                || h.thread() != Thread.currentThread()) {
            throw new IllegalStateException("an io_uring socket must be registered on its own loop thread of an"
                    + " io_uring event loop group (Transport.newEventLoopGroup of the 'io_uring' transport); got "
                    + loop);
        }
        liveFd("register");
        this.events = events;
        this.loop = loop;
        this.handler = h;
        this.slot = h.register(this);
        this.deregistered = false;
        interestChanged(0, interest);
    }

    @Override
    public void deregister(Runnable whenReleased) {
        IoUringIoHandler h = handler;
        if (h == null || deregistered) {
            if (whenReleased != null) {
                whenReleased.run();
            }
            return;
        }
        deregistered = true;
        this.whenReleased = whenReleased;
        cancelInFlight();
        h.submitNow();
        releaseIfIdle();
    }

    /** Deregistered: submits {@code IORING_OP_ASYNC_CANCEL} for each request the socket does not wait for. */
    abstract void cancelInFlight();

    /** The loop ends: cancel every request, output included. */
    abstract void abort();

    /** @return {@code true} while staged output still goes to the kernel (it is sent before the descriptor closes) */
    boolean outputPending() {
        return false;
    }

    /** The slot is given back (nothing is in flight): give back what the socket holds of the loop's. */
    void released() {
    }

    /**
     * Writes one request that lets the kernel pick a buffer of one of the loop's provided buffer rings (the buffer
     * group {@code group}), and counts it.
     *
     * @throws IOException when the ring cannot take it
     */
    final void submitSelectingBuffer(int op, int opcode, int group, int opFlags, int ioprio) throws IOException {
        handler.ring().add(opcode, NativeAbi.IOSQE_BUFFER_SELECT, group, fd, 0, 0, 0, opFlags, ioprio, userData(op));
        inFlight++;
    }

    /** Cancels the request whose user_data carries {@code op} ({@code REQ_*}); its completion and the cancel's both arrive later. */
    final void cancel(int op) {
        cancel(op, REQ_CANCEL);
    }

    /**
     * Cancels the request whose user_data carries {@code op}, with {@code as} ({@link #REQ_CANCEL} or
     * {@link #REQ_STOP}) in the cancel's own user_data.
     *
     * @return {@code false} when the SQ could not take the cancel (the request then completes by itself, or at ring
     *         close)
     */
    final boolean cancel(int op, int as) {
        try {
            handler.ring().add(NativeAbi.IORING_OP_ASYNC_CANCEL, -1, userData(op), 0, 0, 0, 0, userData(as));
            inFlight++;
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Gives the slot back once nothing is in flight, then closes a descriptor whose close waited. */
    final void releaseIfIdle() {
        IoUringIoHandler h = handler;
        if (h == null || !deregistered || inFlight > 0 || outputPending()) {
            return;
        }
        h.release(slot);
        released();
        handler = null;
        if (outputDeadline != null) {
            outputDeadline.cancel(false);
            outputDeadline = null;
        }
        if (closeDeferred) {
            closeDeferred = false;
            closeDescriptorNow();
        }
        Runnable r = whenReleased;
        whenReleased = null;
        if (r != null) {
            r.run();
        }
    }

    /**
     * The deferred close waited {@link #closeOutputTimeoutMillis} for its staged output: drops it (cancels the send
     * in flight) and closes the descriptor once nothing is in flight.
     */
    private void abandonOutput() {
        outputDeadline = null;
        if (closeDeferred && handler != null && outputPending()) {
            CLOSES_OUTPUT_ABANDONED.incrementAndGet();
            abort();
            releaseIfIdle();
        }
    }

    /** Closes the descriptor (loop shut down, or its requests are done). */
    final void closeDescriptorNow() {
        int r = Native.close(fd);
        if (r < 0 && r != -NativeAbi.EINTR) {
            System.getLogger(IoUringSocket.class.getName()).log(System.Logger.Level.DEBUG,
                    () -> ERRORS.message("close of fd " + fd, -r));
        }
    }

    /** @return the user_data of this socket's {@code op} request */
    final long userData(int op) {
        return ((long) slot << 8) | op;
    }

    /**
     * Writes one request of this socket into the ring and counts it in flight.
     *
     * @throws IOException when the ring cannot take it
     */
    final void submit(int op, int opcode, long address, int length, long offset, int opFlags, int ioprio)
            throws IOException {
        handler.ring().add(opcode, fd, address, length, offset, opFlags, ioprio, userData(op));
        inFlight++;
    }

    /** @return {@code true} when requests may be submitted: registered, not deregistered, not closed */
    final boolean canSubmit() {
        return handler != null && !deregistered && !closed;
    }

    final IoUringIoHandler handler() {
        return handler;
    }

    /** A completion of this socket's {@code op}. {@code last}: the request is done (no more CQEs for it). */
    final void completed(int op, int res, int flags) {
        boolean more = (flags & NativeAbi.IORING_CQE_F_MORE) != 0;
        if (!more) {
            inFlight--;
        }
        if (op == REQ_CANCEL) {
            cancelCompleted(res);
        } else {
            onCompletion(op, res, flags);
        }
        if (deregistered) {
            releaseIfIdle();
        }
    }

    /**
     * A cancel finished. {@code -EALREADY}: the request is running and cannot be cancelled; shutting the socket
     * down ends it. {@code -ENOENT}: it had completed already.
     */
    void cancelCompleted(int res) {
        if (res == -NativeAbi.EALREADY && !closedDescriptor()) {
            Native.shutdown(fd, NativeAbi.SHUT_RD);
        }
    }

    private boolean closedDescriptor() {
        return handler == null && closed;
    }

    /** One completion of {@code op} (not a cancel), with its CQE flags. */
    abstract void onCompletion(int op, int res, int flags);

    /** The handler's ready list came round: hand the core the events that still hold. */
    abstract void dispatchReady();

    /** @return the core's events, or {@code null} when nothing may be reported (deregistered) */
    final IoEvents liveEvents() {
        return deregistered || handler == null ? null : events;
    }

    /** @return whether this socket was closed and its close still waits for staged output to be sent (loop thread) */
    final boolean closingWithOutput() {
        return closeDeferred && handler != null && outputPending();
    }

    final void loopShuttingDown() {
        IoEvents e = liveEvents();
        if (e != null) {
            e.loopShuttingDown();
        }
    }

    @Override
    public void interestOps(int ops) {
        int old = interest;
        if (ops == old) {
            return;
        }
        interest = ops;
        if (canSubmit()) {
            interestChanged(old, ops);
        }
    }

    /** The core changed its interest from {@code old} to {@code now} while registered. */
    abstract void interestChanged(int old, int now);

    final int interest() {
        return interest;
    }

    final boolean wants(int op) {
        return (interest & op) != 0;
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    @Override
    public boolean isOpen() {
        return !closed;
    }

    /**
     * Closes the socket. While requests are still in flight (the core closes right after deregistering), the
     * descriptor stays open until they completed, so no request outlives it; the channel sees the socket closed at
     * once.
     */
    @Override
    public void close() throws IOException {
        if (!CLOSED.compareAndSet(this, false, true)) {
            return;
        }
        IoUringIoHandler h = handler;
        if (h != null && Thread.currentThread() == h.thread()) {
            if (!deregistered) {
                deregister(null);
            }
            if (handler != null) {
                closeDeferred = true;
                if (outputPending()) {
                    CLOSES_AFTER_OUTPUT.incrementAndGet();
                    outputDeadline = loop.schedule(this::abandonOutput, closeOutputTimeoutMillis,
                            java.util.concurrent.TimeUnit.MILLISECONDS);
                }
                return;
            }
        }
        int r = Native.close(fd);
        if (r < 0 && r != -NativeAbi.EINTR) {
            throw ERRORS.newIoException("close", r);
        }
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        SOCKETS.bind(liveFd("bind"), domain, addressKind(), localAddress);
        cachedLocal = null;
    }

    /** {@code getsockname(2)}, cached once a listener is bound (a connection's channel keeps its own). */
    @Override
    public SocketAddress localAddress() {
        SocketAddress a = cachedLocal;
        if (a == null && !closed) {
            a = SOCKETS.localAddress(fd);
            if ((kind == TCP_SERVER || kind == UNIX_SERVER) && UnixSockets.isBound(a)) {
                cachedLocal = a;
            }
        }
        return a;
    }

    /** @return the peer, or {@code null} when not connected */
    final SocketAddress peerAddress() {
        return closed ? null : SOCKETS.peerAddress(fd);
    }

    // -------------------------------------------------------------------------------------------- options

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (!SOCKETS.options().appliesTo(option, kind)
                || !SOCKETS.setOption(liveFd("setsockopt"), kind, ipv6(), option, value)) {
            return false;
        }
        if (option == ChannelOption.SO_SNDBUF) {
            sendBufferSet((Integer) value);
        }
        return true;
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        return SOCKETS.options().appliesTo(option, kind)
                ? SOCKETS.getOption(liveFd("getsockopt"), kind, ipv6(), option) : null;
    }

    /** {@code SO_SNDBUF} was set to {@code bytes} (any thread): a stream socket stages no more than that. */
    void sendBufferSet(int bytes) {
    }

    /**
     * {@inheritDoc} Linux {@code SO_ATTACH_REUSEPORT_CBPF}; for listeners and UDP sockets (a swap's hand-over steers
     * the group to the new socket before the old one closes or connects away).
     */
    @Override
    public boolean steerReuseportGroup(int index) throws IOException {
        return SOCKETS.steerReuseportGroup(liveFd("setsockopt"), index);
    }

    /** {@inheritDoc} Linux {@code SO_DETACH_REUSEPORT_BPF}. */
    @Override
    public boolean unsteerReuseportGroup() throws IOException {
        return SOCKETS.unsteerReuseportGroup(liveFd("setsockopt"));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd " + fd + (closed ? ", closed" : "") + "]";
    }
}
