package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKETS;

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
import java.nio.ByteBuffer;

/**
 * What every epoll socket shares: the descriptor, its registration with the loop's {@link EpollIoHandler}, the
 * interest set, addresses and the mapping of {@link ChannelOption}s to {@code setsockopt(2)} calls.
 *
 * <p>Threading (see {@link IoSocket}): registration, interest and I/O on the loop thread; {@link #close()},
 * {@link #setOption}/{@link #getOption} and {@link #isOpen()} from any thread (each is one system call on a
 * descriptor that stays valid until {@link #close()}).
 */
abstract class EpollSocket implements IoSocket {

    /** Socket kinds (the bits of {@link SocketOptionTable}). */
    static final int TCP = SocketOptionTable.TCP;
    static final int TCP_SERVER = SocketOptionTable.TCP_SERVER;
    static final int UDP = SocketOptionTable.UDP;
    static final int UNIX = SocketOptionTable.UNIX;
    static final int UNIX_SERVER = SocketOptionTable.UNIX_SERVER;
    /** a Unix-domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}) */
    static final int UNIX_DGRAM = SocketOptionTable.UNIX_DGRAM;
    static final int INET = SocketOptionTable.INET;
    static final int ALL = SocketOptionTable.ALL;

    /**
     * The socket options this transport honours ({@link NativeAbi#SOCKETS} holds the table; the core's options,
     * {@code SO_BACKLOG} among them, and {@code IP_MULTICAST_IF} are handled apart).
     */
    static SocketOptionTable optionTable(NativeConstants constants) {
        return SocketOptionTable.builder(constants)
                .option(ChannelOption.SO_SNDBUF, "SOL_SOCKET", "SO_SNDBUF", ALL)
                .option(ChannelOption.SO_RCVBUF, "SOL_SOCKET", "SO_RCVBUF", ALL)
                .option(ChannelOption.SO_KEEPALIVE, "SOL_SOCKET", "SO_KEEPALIVE", TCP | TCP_SERVER)
                .option(ChannelOption.SO_REUSEADDR, "SOL_SOCKET", "SO_REUSEADDR", INET)
                .option(ChannelOption.SO_REUSEPORT, "SOL_SOCKET", "SO_REUSEPORT", INET)
                .option(ChannelOption.SO_BROADCAST, "SOL_SOCKET", "SO_BROADCAST", UDP)
                .option(ChannelOption.SO_BUSY_POLL, "SOL_SOCKET", "SO_BUSY_POLL", INET)
                .option(ChannelOption.IP_TOS, "IPPROTO_IP", "IP_TOS", INET)
                .ipv6Also(ChannelOption.IP_TOS, "IPPROTO_IPV6", "IPV6_TCLASS", false)
                .option(ChannelOption.IP_MULTICAST_TTL, "IPPROTO_IP", "IP_MULTICAST_TTL", UDP)
                .option(ChannelOption.IP_MULTICAST_LOOP, "IPPROTO_IP", "IP_MULTICAST_LOOP", UDP)
                .option(ChannelOption.IP_FREEBIND, "IPPROTO_IP", "IP_FREEBIND", INET)
                .option(ChannelOption.IP_TRANSPARENT, "IPPROTO_IP", "IP_TRANSPARENT", INET)
                .option(ChannelOption.IP_RECVORIGDSTADDR, "IPPROTO_IP", "IP_RECVORIGDSTADDR", UDP)
                .ipv6Also(ChannelOption.IP_RECVORIGDSTADDR, "IPPROTO_IPV6", "IPV6_RECVORIGDSTADDR", true)
                .option(ChannelOption.TCP_NODELAY, "IPPROTO_TCP", "TCP_NODELAY", TCP | TCP_SERVER)
                .option(ChannelOption.TCP_FASTOPEN_CONNECT, "IPPROTO_TCP", "TCP_FASTOPEN_CONNECT", TCP)
                .option(ChannelOption.TCP_FASTOPEN, "IPPROTO_TCP", "TCP_FASTOPEN", TCP_SERVER)
                .option(ChannelOption.TCP_CORK, "IPPROTO_TCP", "TCP_CORK", TCP)
                .option(ChannelOption.TCP_QUICKACK, "IPPROTO_TCP", "TCP_QUICKACK", TCP)
                .option(ChannelOption.TCP_USER_TIMEOUT, "IPPROTO_TCP", "TCP_USER_TIMEOUT", TCP | TCP_SERVER)
                .option(ChannelOption.TCP_NOTSENT_LOWAT, "IPPROTO_TCP", "TCP_NOTSENT_LOWAT", TCP | TCP_SERVER)
                .option(ChannelOption.TCP_KEEPIDLE, "IPPROTO_TCP", "TCP_KEEPIDLE", TCP | TCP_SERVER)
                .option(ChannelOption.TCP_KEEPINTVL, "IPPROTO_TCP", "TCP_KEEPINTVL", TCP | TCP_SERVER)
                .option(ChannelOption.TCP_KEEPCNT, "IPPROTO_TCP", "TCP_KEEPCNT", TCP | TCP_SERVER)
                .linger(TCP | UNIX)
                .build();
    }

    /** @return {@code true} when some epoll socket kind honours {@code option} (for {@code Transport.supports}) */
    static boolean mapsOption(ChannelOption<?> option) {
        return SOCKETS.options().maps(option)
                || option == ChannelOption.IP_MULTICAST_IF; // EpollDatagramSocket maps it (struct, not int)
    }

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(EpollSocket.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** the descriptor; valid until {@link #close()} (then {@link #closed} is set and it must not be used) */
    private final int fd;
    /** {@code AF_INET6}, {@code AF_INET} or {@code AF_UNIX} */
    final int domain;
    /** one of {@link #TCP}, {@link #TCP_SERVER}, {@link #UDP}, {@link #UNIX}, {@link #UNIX_SERVER}, {@link #UNIX_DGRAM} */
    final int kind;
    /** set once by {@link #close()} (CAS through {@link #CLOSED}: an AtomicBoolean per socket costs 16 bytes); any thread */
    private volatile boolean closed;

    private EpollIoHandler handler; // loop-confined: set by register, cleared by deregister
    private IoEvents events;        // loop-confined
    private int interest;           // loop-confined: OP_* bits
    /** loop-confined, written by the I/O calls: the last input call found the socket empty (EAGAIN, short read, EOF, error) */
    boolean inputDrained;
    /**
     * loop-confined: the poller reported {@code EPOLLRDHUP}/{@code EPOLLHUP}/{@code EPOLLERR}; a short read then
     * does not mean "drained", because end-of-stream (or the error) still waits behind the data
     */
    boolean hangupSeen;
    /** loop-confined: on the handler's more-input list */
    boolean onMoreInputList;
    /**
     * cache of getsockname after bind/connect, for listeners and datagram sockets; a stream socket does not cache
     * (its channel keeps the address, sharing its listener's object where they are equal)
     */
    private volatile SocketAddress cachedLocal;

    EpollSocket(int fd, int domain, int kind) {
        this.fd = fd;
        this.domain = domain;
        this.kind = kind;
    }

    /**
     * Opens a non-blocking, close-on-exec socket; an IP socket is {@code AF_INET6} dual-stack
     * ({@code IPV6_V6ONLY} off, IPv4 peers as IPv4-mapped addresses), or {@code AF_INET} when the host has no IPv6.
     *
     * @return {fd, domain}
     */
    static int[] open(boolean unix, int type) throws IOException {
        return SOCKETS.open(unix, type | NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC);
    }

    /** @return the descriptor (for the poller and tests) */
    final int fd() {
        return fd;
    }

    /** @return {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}: the channel kind that error messages name */
    final String addressKind() {
        return SOCKETS.addressKind(domain, kind == UDP ? "UDP" : "TCP");
    }

    final boolean ipv6() {
        return domain == NativeAbi.AF_INET6;
    }

    /** @throws ChannelClosedException when closed */
    final int liveFd(String call) throws ChannelClosedException {
        if (closed) {
            throw new ChannelClosedException(call + " on a closed epoll socket (fd " + fd + " was closed)", null);
        }
        return fd;
    }

    // -------------------------------------------------------------------------------------- registration

    @Override
    public void register(EventLoop loop, IoEvents events) throws IOException {
        if (!(loop instanceof IoEventLoop l) || !(l.ioHandler() instanceof EpollIoHandler h)
                || h.thread() != Thread.currentThread()) {
            throw new IllegalStateException("an epoll socket must be registered on its own loop thread of an epoll"
                    + " event loop group (Transport.newEventLoopGroup of the 'epoll' transport); got " + loop);
        }
        liveFd("register");
        this.events = events;
        h.add(this, epollEvents(interest));
        this.handler = h;
    }

    @Override
    public void deregister(Runnable whenReleased) {
        EpollIoHandler h = handler;
        if (h != null) {
            handler = null;
            h.remove(this); // EPOLL_CTL_DEL is synchronous: the poller holds nothing afterwards
        }
        if (whenReleased != null) {
            whenReleased.run();
        }
    }

    @Override
    public void interestOps(int ops) {
        if (ops == interest) {
            return;
        }
        interest = ops;
        EpollIoHandler h = handler;
        if (h != null && !closed) {
            h.modify(this, epollEvents(ops));
        }
    }

    private int epollEvents(int ops) {
        int e = 0;
        if ((ops & OP_READ) != 0) {
            e |= NativeAbi.EPOLLIN | NativeAbi.EPOLLRDHUP;
        }
        if ((ops & (OP_WRITE | OP_CONNECT)) != 0) {
            e |= NativeAbi.EPOLLOUT;
        }
        return e;
    }

    final int interest() {
        return interest;
    }

    final boolean wantsRead() {
        return (interest & OP_READ) != 0;
    }

    final IoEvents events() {
        return events;
    }

    final boolean isRegisteredWith(EpollIoHandler h) {
        return handler == h && h != null;
    }

    /** @return the handler this socket is registered with, or {@code null} */
    final EpollIoHandler handler() {
        return handler;
    }

    /** @return the loop's scratch memory (loop thread only) */
    final LoopResources resources() {
        return LoopResources.current(handler);
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public void close() throws IOException {
        if (CLOSED.compareAndSet(this, false, true)) {
            int r = Native.close(fd);
            if (r < 0 && r != -NativeAbi.EINTR) {
                throw ERRORS.newIoException("close", r);
            }
        }
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        SOCKETS.bind(liveFd("bind"), domain, addressKind(), localAddress);
        cachedLocal = null;
    }

    /** {@code getsockname(2)}, cached once bound for listeners and datagram sockets (a stream channel keeps its own). */
    @Override
    public SocketAddress localAddress() {
        SocketAddress a = cachedLocal;
        if (a == null && !closed) {
            a = SOCKETS.localAddress(fd);
            if (kind != TCP && kind != UNIX && UnixSockets.isBound(a)) {
                cachedLocal = a;
            }
        }
        return a;
    }

    /** Forgets the cached local address (after connect, which may bind implicitly). */
    final void forgetLocalAddress() {
        cachedLocal = null;
    }

    /** @return the peer, or {@code null} when not connected */
    final SocketAddress peerAddress() {
        return closed ? null : SOCKETS.peerAddress(fd);
    }

    // -------------------------------------------------------------------------------------------- options

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        return SOCKETS.options().appliesTo(option, kind)
                && SOCKETS.setOption(liveFd("setsockopt"), kind, ipv6(), option, value);
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        return SOCKETS.options().appliesTo(option, kind)
                ? SOCKETS.getOption(liveFd("getsockopt"), kind, ipv6(), option) : null;
    }

    // ------------------------------------------------------------------------------------------- helpers

    /**
     * For the arrays of gathering calls (iovec, {@code mmsghdr}), one {@link Native#addressOf} call per buffer; a
     * read or write of a single buffer passes the buffer to a {@code Native.*Buffer} native instead (one JNI call).
     *
     * @return the native address of {@code b}'s position; {@code b} must be direct
     */
    static long address(ByteBuffer b) {
        return Native.addressOf(b) + b.position();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd " + fd + (closed ? ", closed" : "") + "]";
    }

    /** {@inheritDoc} Linux {@code SO_ATTACH_REUSEPORT_CBPF}; for listeners and UDP sockets. */
    @Override
    public boolean steerReuseportGroup(int index) throws IOException {
        return NativeAbi.SOCKETS.steerReuseportGroup(liveFd("setsockopt"), index);
    }

    /** {@inheritDoc} Linux {@code SO_DETACH_REUSEPORT_BPF}. */
    @Override
    public boolean unsteerReuseportGroup() throws IOException {
        return NativeAbi.SOCKETS.unsteerReuseportGroup(liveFd("setsockopt"));
    }
}
