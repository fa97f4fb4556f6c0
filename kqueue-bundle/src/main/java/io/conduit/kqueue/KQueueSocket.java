package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;
import static io.conduit.kqueue.NativeAbi.SOCKADDR;
import static io.conduit.kqueue.NativeAbi.SOCKETS;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.UnixSocketFile;
import io.conduit.transport.spi.unix.NativeConstants;
import io.conduit.transport.spi.unix.NativeMemory;
import io.conduit.transport.spi.unix.SocketOptionTable;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What the kqueue sockets share: the descriptor, its {@code EVFILT_READ}/{@code EVFILT_WRITE} registrations with
 * the loop's {@link KQueueIoHandler}, the "maybe more" flags that turn edge-triggered events into the
 * level-triggered readiness the channel core expects (see {@link KQueueIoHandler}), and socket options.
 *
 * <p>Threading as {@link IoSocket} says: registration, interest and I/O on the loop thread; options and
 * {@link #isOpen()} from any thread ({@code setsockopt(2)} is thread-safe; {@link #open} is volatile);
 * {@link #close()} also off the loop after {@link #deregister}.
 */
abstract class KQueueSocket implements IoSocket {

    private static final System.Logger LOG = System.getLogger(KQueueSocket.class.getName());

    /** the descriptor; immutable */
    private final int fd;
    /** AF_INET, AF_INET6 or AF_UNIX; immutable */
    final int family;
    /** the {@link SocketOptionTable} kind ({@code TCP}, {@code TCP_SERVER}, {@code UDP}, {@code UNIX}, ...); immutable */
    final int kind;
    /** false once close() ran; written by close() (any thread), read anywhere */
    private volatile boolean open = true;
    /**
     * The socket file bind(2) created (AF_UNIX path only: listeners, datagram sockets, bound clients), removed at
     * close; written at bind (loop), read at close (any thread).
     */
    private volatile UnixSocketFile socketFile;

    /** the loop's handler, set by register; loop-confined */
    private KQueueIoHandler handler;
    /** receives readiness; loop-confined */
    private IoEvents events;
    /** kevent udata of this registration; 0 = not registered; loop-confined */
    private long registrationId;
    /** IoSocket.OP_* interest; loop-confined */
    private int ops;
    /** whether the read / write filter was added (must be deleted before close); loop-confined */
    private boolean readAdded, writeAdded;
    /** whether the read / write filter is enabled; loop-confined */
    private boolean readOn, writeOn;
    /** queued in the handler's retry list; loop-confined (the handler's) */
    boolean retryQueued;
    /** the last input call filled its buffer / accepted or received something: input may remain; loop-confined */
    boolean inputMaybeMore;
    /** the last writev was taken whole: the send buffer may take more; loop-confined */
    boolean outputMaybeMore;
    /**
     * The socket error an EV_EOF event carried in fflags (0 = none). The emulation reads SO_ERROR to report it,
     * which clears it on Linux, so the next read/finishConnect takes it from here. Loop-confined.
     */
    int reportedError;
    /**
     * The read filter reported EV_EOF: the peer shut down writing. Reads then keep the input "maybe more" until
     * read(2) returns end-of-stream, because no further edge will come for it. Loop-confined.
     */
    boolean inputEof;
    /** the write filter reported EV_EOF (a connect that cannot complete); loop-confined */
    boolean writeEof;

    /**
     * @param kind the kind of an IP socket ({@code SocketOptionTable.TCP}, {@code TCP_SERVER} or {@code UDP}); a
     *             Unix-domain socket ({@code family} {@code AF_UNIX}) takes the matching Unix kind
     */
    KQueueSocket(int fd, int family, int kind) {
        this.fd = fd;
        this.family = family;
        this.kind = family != NativeAbi.AF_UNIX ? kind
                : kind == SocketOptionTable.TCP ? SocketOptionTable.UNIX
                : kind == SocketOptionTable.TCP_SERVER ? SocketOptionTable.UNIX_SERVER : SocketOptionTable.UNIX_DGRAM;
    }

    /**
     * The socket options of this transport, by socket kind. Where an option has an IPv6 form, an IPv6 socket uses
     * that form only ({@code ipv6Instead}): the BSDs apply the IPv4 one to IPv4 sockets alone. Entries whose
     * option the system lacks are left out ({@link NativeAbi#SO_REUSEPORT} &lt; 0,
     * {@link NativeAbi#SO_SNDLOWAT_SETTABLE}, {@link NativeAbi#HAS_TCP_NOPUSH}); NativeAbi makes the table after
     * those flags.
     */
    static SocketOptionTable optionTable(NativeConstants constants) {
        int all = SocketOptionTable.ALL;
        int inet = SocketOptionTable.INET;
        int tcp = SocketOptionTable.TCP;
        int udp = SocketOptionTable.UDP;
        SocketOptionTable.Builder b = SocketOptionTable.builder(constants)
                .option(ChannelOption.SO_SNDBUF, "SOL_SOCKET", "SO_SNDBUF", all)
                .option(ChannelOption.SO_RCVBUF, "SOL_SOCKET", "SO_RCVBUF", all)
                .option(ChannelOption.SO_REUSEADDR, "SOL_SOCKET", "SO_REUSEADDR", inet)
                .option(ChannelOption.IP_TOS, "IPPROTO_IP", "IP_TOS", inet)
                .ipv6Instead(ChannelOption.IP_TOS, "IPPROTO_IPV6", "IPV6_TCLASS")
                .option(ChannelOption.SO_KEEPALIVE, "SOL_SOCKET", "SO_KEEPALIVE", tcp)
                .option(ChannelOption.TCP_NODELAY, "IPPROTO_TCP", "TCP_NODELAY", tcp)
                .option(ChannelOption.SO_BROADCAST, "SOL_SOCKET", "SO_BROADCAST", udp)
                .option(ChannelOption.IP_MULTICAST_TTL, "IPPROTO_IP", "IP_MULTICAST_TTL", udp)
                .ipv6Instead(ChannelOption.IP_MULTICAST_TTL, "IPPROTO_IPV6", "IPV6_MULTICAST_HOPS")
                .option(ChannelOption.IP_MULTICAST_LOOP, "IPPROTO_IP", "IP_MULTICAST_LOOP", udp)
                .ipv6Instead(ChannelOption.IP_MULTICAST_LOOP, "IPPROTO_IPV6", "IPV6_MULTICAST_LOOP")
                .linger(all);
        if (NativeAbi.SO_REUSEPORT >= 0) {
            b.option(ChannelOption.SO_REUSEPORT, "SOL_SOCKET", "SO_REUSEPORT", inet);
        }
        if (NativeAbi.SO_SNDLOWAT_SETTABLE) {
            b.option(ChannelOption.SO_SNDLOWAT, "SOL_SOCKET", "SO_SNDLOWAT", all);
        }
        if (NativeAbi.HAS_TCP_NOPUSH) {
            b.option(ChannelOption.TCP_NOPUSH, "IPPROTO_TCP", "TCP_NOPUSH", tcp);
        }
        return b.build();
    }

    final int fd() {
        return fd;
    }

    final long registrationId() {
        return registrationId;
    }

    /** @return the registered handler, or {@code null} */
    final KQueueIoHandler handler() {
        return handler;
    }

    @Override
    public void register(EventLoop loop, IoEvents events) throws IOException {
        KQueueIoHandler h = KQueueIoHandler.of(loop);
        if (registrationId != 0) {
            throw new IllegalStateException(this + " is already registered");
        }
        this.handler = h;
        this.events = events;
        this.registrationId = h.add(this);
        if (ops != 0) {
            int pending = ops;
            ops = 0;
            interestOps(pending);
        }
    }

    @Override
    public void deregister(Runnable whenReleased) {
        if (registrationId != 0) {
            if (readAdded) {
                delete(NativeAbi.EVFILT_READ);
            }
            if (writeAdded) {
                delete(NativeAbi.EVFILT_WRITE);
            }
            readAdded = writeAdded = readOn = writeOn = false;
            handler.remove(this);
            registrationId = 0;
        }
        if (whenReleased != null) {
            whenReleased.run(); // after EV_DELETE the kqueue holds no reference to the descriptor
        }
    }

    private void delete(int filter) {
        int rc = Native.keventChange(handler.kq(), fd, filter, NativeAbi.EV_DELETE, 0, 0, 0);
        if (rc < 0 && rc != -NativeAbi.ENOENT && rc != -NativeAbi.EBADF) {
            LOG.log(System.Logger.Level.DEBUG, () -> ERRORS.message("kevent(EV_DELETE)", -rc) + " for " + this);
        }
    }

    @Override
    public void interestOps(int ops) {
        this.ops = ops;
        if (registrationId == 0) {
            return;
        }
        boolean wantRead = (ops & OP_READ) != 0;
        boolean wantWrite = (ops & (OP_WRITE | OP_CONNECT)) != 0;
        if (wantRead != readOn) {
            readOn = wantRead;
            readAdded |= change(NativeAbi.EVFILT_READ, wantRead, readAdded);
        }
        if (wantWrite != writeOn) {
            writeOn = wantWrite;
            writeAdded |= change(NativeAbi.EVFILT_WRITE, wantWrite, writeAdded);
        }
    }

    /** @return whether the filter is now added */
    private boolean change(int filter, boolean on, boolean added) {
        if (!on && !added) {
            return false;
        }
        // EV_ADD of an existing knote enables it and evaluates its current state once, so readiness that
        // arrived while the interest was off is reported now even though EV_CLEAR filters report edges
        int flags = on ? NativeAbi.EV_ADD | NativeAbi.EV_ENABLE | NativeAbi.EV_CLEAR : NativeAbi.EV_DISABLE;
        int rc = Native.keventChange(handler.kq(), fd, filter, flags, 0, 0, registrationId);
        if (rc < 0) {
            // e.g. the socket was shut down or reset meanwhile: let the core find out by doing the I/O
            LOG.log(System.Logger.Level.DEBUG, () -> ERRORS.message("kevent", -rc) + " for " + this);
            if (on) {
                if (filter == NativeAbi.EVFILT_READ) {
                    inputMaybeMore = true;
                } else {
                    outputMaybeMore = true;
                }
                handler.scheduleRetry(this);
            }
            return added;
        }
        return on || added;
    }

    /** An event from the handler. Loop thread. */
    final void ready(int filter, int flags, int fflags, long data) {
        if ((flags & NativeAbi.EV_EOF) != 0 && fflags != 0) {
            reportedError = fflags;
        }
        if (filter == NativeAbi.EVFILT_READ) {
            if ((flags & NativeAbi.EV_EOF) != 0) {
                inputEof = true; // data = unread bytes; end-of-stream follows them
            }
            if ((ops & OP_READ) != 0) {
                inputMaybeMore = true;
                events.readReady();
            }
        } else if (filter == NativeAbi.EVFILT_WRITE) {
            if ((flags & NativeAbi.EV_EOF) != 0) {
                writeEof = true;
            }
            if ((ops & OP_CONNECT) != 0) {
                events.connectReady();
            } else if ((ops & OP_WRITE) != 0) {
                outputMaybeMore = true;
                events.writeReady();
            }
        }
        afterDispatch();
    }

    /** Called again by the handler because the last I/O suggested more readiness. Loop thread. */
    final void retry() {
        if (registrationId == 0) {
            return;
        }
        if ((ops & OP_WRITE) != 0 && outputMaybeMore) {
            events.writeReady();
        }
        if (registrationId != 0 && (ops & OP_READ) != 0 && inputMaybeMore) {
            events.readReady();
        }
        afterDispatch();
    }

    private void afterDispatch() {
        if (registrationId != 0 && (((ops & OP_READ) != 0 && inputMaybeMore)
                || ((ops & OP_WRITE) != 0 && outputMaybeMore))) {
            handler.scheduleRetry(this);
        }
    }

    final void loopShuttingDown() {
        if (events != null) {
            events.loopShuttingDown();
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null) {
            f.deleteIfStillOurs(); // before close(2): the path still holds our file, no other bind can take it
        }
        if (registrationId != 0 && handler != null && Thread.currentThread() == handler.thread()) {
            deregister(null); // every filter is deleted before the descriptor is closed
        }
        ERRORS.check("close", Native.close(fd));
    }

    @Override
    public SocketAddress localAddress() {
        return open ? SOCKETS.localAddress(fd) : null;
    }

    final boolean ipv6() {
        return family == NativeAbi.AF_INET6;
    }

    /** @return {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}: the channel kind that error messages name */
    String kind() {
        return family == NativeAbi.AF_UNIX ? "Unix-domain" : "TCP";
    }

    /**
     * Encodes {@code address} for this socket's family.
     *
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved address (with a message)
     * @throws java.nio.channels.UnsupportedAddressTypeException for an address of another kind (with a message)
     */
    final byte[] encode(SocketAddress address, int[] lengthOut) {
        AddressErrors.check(address, kind());
        byte[] sa = SOCKADDR.newSockaddr();
        lengthOut[0] = SOCKADDR.encode(address, sa, ipv6());
        return sa;
    }

    /**
     * {@code bind(2)}; a Unix-domain path's socket file is recorded so {@link #close()} removes it
     * ({@link UnixSocketFile}), and a bind over an existing file fails with a message naming it.
     */
    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        int[] length = new int[1];
        byte[] sa = encode(localAddress, length);
        if (family != NativeAbi.AF_UNIX) {
            ERRORS.check("bind", Native.bind(fd, sa, length[0]));
            return;
        }
        socketFile = UnixSocketFile.bind(localAddress, () -> {
            ERRORS.check("bind", Native.bind(fd, sa, length[0]));
            return localAddress();
        });
    }

    // ------------------------------------------------------------------ memory helpers (loop thread)

    /**
     * @return the loop's direct scratch memory (for heap buffers and datagram slots; valid for one I/O call), or
     *         64 KiB of fresh memory when this socket is not registered
     */
    final NativeMemory scratchOf() {
        KQueueIoHandler h = handler;
        return h != null ? h.scratch() : NativeMemory.allocate(64 * 1024, Native::addressOf);
    }

    /** @return the address of {@code b}'s position, or 0 when {@code b} is a heap buffer */
    static long addressAtPosition(ByteBuffer b) {
        if (!b.isDirect()) {
            return 0;
        }
        return Native.addressOf(b) + b.position();
    }

    // ------------------------------------------------------------------ options

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        return SOCKETS.setOption(fd, kind, ipv6(), option, value);
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        return SOCKETS.getOption(fd, kind, ipv6(), option);
    }

    /** Bytes of a Java string for a C API ({@code accf(9)} names). */
    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd " + fd + (open ? "" : ", closed") + "]";
    }
}
