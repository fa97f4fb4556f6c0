package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoEventLoop;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * What every epoll socket shares: the descriptor, its registration with the loop's {@link EpollIoHandler}, the
 * interest set, addresses and the mapping of {@link ChannelOption}s to {@code setsockopt(2)} calls.
 *
 * <p>Threading (see {@link IoSocket}): registration, interest and I/O on the loop thread; {@link #close()},
 * {@link #setOption}/{@link #getOption} and {@link #isOpen()} from any thread (each is one system call on a
 * descriptor that stays valid until {@link #close()}).
 */
abstract class EpollSocket implements IoSocket {

    /** Socket kinds an option applies to. */
    static final int TCP = 1;
    static final int TCP_SERVER = 2;
    static final int UDP = 4;
    static final int UNIX = 8;
    static final int UNIX_SERVER = 16;
    /** a Unix-domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}) */
    static final int UNIX_DGRAM = 32;
    static final int INET = TCP | TCP_SERVER | UDP;
    static final int ALL = INET | UNIX | UNIX_SERVER | UNIX_DGRAM;

    /** How a {@link ChannelOption} maps to {@code setsockopt}: level and name (read from the library), kinds. */
    private record Spec(String level, String name, boolean bool, int kinds) {
    }

    /** Socket-level options this transport honours (core options and SO_LINGER/SO_BACKLOG are handled apart). */
    private static final Map<ChannelOption<?>, Spec> OPTIONS = Map.ofEntries(
            Map.entry(ChannelOption.SO_SNDBUF, new Spec("SOL_SOCKET", "SO_SNDBUF", false, ALL)),
            Map.entry(ChannelOption.SO_RCVBUF, new Spec("SOL_SOCKET", "SO_RCVBUF", false, ALL)),
            Map.entry(ChannelOption.SO_KEEPALIVE, new Spec("SOL_SOCKET", "SO_KEEPALIVE", true, TCP | TCP_SERVER)),
            Map.entry(ChannelOption.SO_REUSEADDR, new Spec("SOL_SOCKET", "SO_REUSEADDR", true, INET)),
            Map.entry(ChannelOption.SO_REUSEPORT, new Spec("SOL_SOCKET", "SO_REUSEPORT", true, INET)),
            Map.entry(ChannelOption.SO_BROADCAST, new Spec("SOL_SOCKET", "SO_BROADCAST", true, UDP)),
            Map.entry(ChannelOption.SO_BUSY_POLL, new Spec("SOL_SOCKET", "SO_BUSY_POLL", false, INET)),
            Map.entry(ChannelOption.IP_TOS, new Spec("IPPROTO_IP", "IP_TOS", false, INET)),
            Map.entry(ChannelOption.IP_MULTICAST_TTL, new Spec("IPPROTO_IP", "IP_MULTICAST_TTL", false, UDP)),
            Map.entry(ChannelOption.IP_MULTICAST_LOOP, new Spec("IPPROTO_IP", "IP_MULTICAST_LOOP", true, UDP)),
            Map.entry(ChannelOption.IP_FREEBIND, new Spec("IPPROTO_IP", "IP_FREEBIND", true, INET)),
            Map.entry(ChannelOption.IP_TRANSPARENT, new Spec("IPPROTO_IP", "IP_TRANSPARENT", true, INET)),
            Map.entry(ChannelOption.IP_RECVORIGDSTADDR, new Spec("IPPROTO_IP", "IP_RECVORIGDSTADDR", true, UDP)),
            Map.entry(ChannelOption.TCP_NODELAY, new Spec("IPPROTO_TCP", "TCP_NODELAY", true, TCP | TCP_SERVER)),
            Map.entry(ChannelOption.TCP_FASTOPEN_CONNECT, new Spec("IPPROTO_TCP", "TCP_FASTOPEN_CONNECT", true, TCP)),
            Map.entry(ChannelOption.TCP_FASTOPEN, new Spec("IPPROTO_TCP", "TCP_FASTOPEN", false, TCP_SERVER)),
            Map.entry(ChannelOption.TCP_CORK, new Spec("IPPROTO_TCP", "TCP_CORK", true, TCP)),
            Map.entry(ChannelOption.TCP_QUICKACK, new Spec("IPPROTO_TCP", "TCP_QUICKACK", true, TCP)),
            Map.entry(ChannelOption.TCP_USER_TIMEOUT, new Spec("IPPROTO_TCP", "TCP_USER_TIMEOUT", false, TCP | TCP_SERVER)),
            Map.entry(ChannelOption.TCP_NOTSENT_LOWAT, new Spec("IPPROTO_TCP", "TCP_NOTSENT_LOWAT", false, TCP | TCP_SERVER)),
            Map.entry(ChannelOption.TCP_KEEPIDLE, new Spec("IPPROTO_TCP", "TCP_KEEPIDLE", false, TCP | TCP_SERVER)),
            Map.entry(ChannelOption.TCP_KEEPINTVL, new Spec("IPPROTO_TCP", "TCP_KEEPINTVL", false, TCP | TCP_SERVER)),
            Map.entry(ChannelOption.TCP_KEEPCNT, new Spec("IPPROTO_TCP", "TCP_KEEPCNT", false, TCP | TCP_SERVER)));

    /** @return {@code true} when some epoll socket kind honours {@code option} (for {@code Transport.supports}) */
    static boolean mapsOption(ChannelOption<?> option) {
        return OPTIONS.containsKey(option) || option == ChannelOption.SO_LINGER || option == ChannelOption.SO_BACKLOG
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
        int flags = NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC;
        if (unix) {
            return new int[] {ERRORS.check("socket(AF_UNIX)", Native.socket(NativeAbi.AF_UNIX, type | flags, 0)),
                    NativeAbi.AF_UNIX};
        }
        int fd = Native.socket(NativeAbi.AF_INET6, type | flags, 0);
        if (fd == -NativeAbi.EAFNOSUPPORT) {
            return new int[] {ERRORS.check("socket(AF_INET)", Native.socket(NativeAbi.AF_INET, type | flags, 0)),
                    NativeAbi.AF_INET};
        }
        ERRORS.check("socket(AF_INET6)", fd);
        int r = Native.setsockoptInt(fd, NativeAbi.IPPROTO_IPV6, NativeAbi.IPV6_V6ONLY, 0);
        if (r < 0) {
            Native.close(fd);
            throw ERRORS.newIoException("setsockopt(IPV6_V6ONLY)", r);
        }
        return new int[] {fd, NativeAbi.AF_INET6};
    }

    /** @return the descriptor (for the poller and tests) */
    final int fd() {
        return fd;
    }

    /** @return {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}: the channel kind that error messages name */
    final String addressKind() {
        return domain == NativeAbi.AF_UNIX ? "Unix-domain" : kind == UDP ? "UDP" : "TCP";
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
        AddressErrors.check(localAddress, addressKind(), true);
        SocketAddress a = localAddress != null ? localAddress
                : domain == NativeAbi.AF_UNIX ? null : new InetSocketAddress(0);
        if (a == null) {
            return; // an unnamed Unix socket: autobinding happens on connect/listen
        }
        if (ipv6() && a instanceof InetSocketAddress i && i.getAddress() != null
                && i.getAddress().isAnyLocalAddress() && i.getAddress() instanceof java.net.Inet4Address) {
            // 0.0.0.0 on a dual-stack socket means "every address", as with java.nio: bind to :: (not ::ffff:0.0.0.0)
            a = new InetSocketAddress(java.net.InetAddress.getByAddress(new byte[16]), i.getPort());
        }
        byte[] sa = SOCKADDR.newSockaddr();
        int len = SOCKADDR.encode(a, sa, ipv6());
        int r = Native.bind(liveFd("bind"), sa, len);
        if (r < 0) {
            throw ERRORS.newIoException("bind", r);
        }
        cachedLocal = null;
    }

    @Override
    public SocketAddress localAddress() {
        SocketAddress a = cachedLocal;
        if (a != null || closed) {
            return a;
        }
        byte[] out = Native.newAddressOut();
        if (Native.getsockname(fd, out) < 0) {
            return null;
        }
        a = SOCKADDR.decodeAddressOut(out);
        if (a instanceof InetSocketAddress i && i.getPort() == 0) {
            return a; // not bound yet: do not cache
        }
        if (kind == TCP || kind == UNIX) {
            return a; // a stream socket: the channel keeps it
        }
        cachedLocal = a;
        return a;
    }

    /** Forgets the cached local address (after connect, which may bind implicitly). */
    final void forgetLocalAddress() {
        cachedLocal = null;
    }

    /** @return the peer, or {@code null} when not connected */
    final SocketAddress peerAddress() {
        if (closed) {
            return null;
        }
        byte[] out = Native.newAddressOut();
        if (Native.getpeername(fd, out) < 0) {
            return null;
        }
        return SOCKADDR.decodeAddressOut(out);
    }

    // -------------------------------------------------------------------------------------------- options

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.SO_LINGER) {
            if ((kind & (TCP | UNIX)) == 0) {
                return false;
            }
            int seconds = (Integer) value;
            check("setsockopt(SO_LINGER)", Native.setsockoptLinger(liveFd("setsockopt"), seconds >= 0 ? 1 : 0,
                    Math.max(0, seconds)));
            return true;
        }
        Spec spec = OPTIONS.get(option);
        if (spec == null || (spec.kinds & kind) == 0) {
            return false;
        }
        int v = spec.bool ? (((Boolean) value) ? 1 : 0) : (Integer) value;
        int fd = liveFd("setsockopt");
        check("setsockopt(" + spec.name + ")", Native.setsockoptInt(fd, NativeAbi.constant(spec.level),
                NativeAbi.constant(spec.name), v));
        if (ipv6() && option == ChannelOption.IP_TOS) {
            Native.setsockoptInt(fd, NativeAbi.IPPROTO_IPV6, NativeAbi.IPV6_TCLASS, v);
        } else if (ipv6() && option == ChannelOption.IP_RECVORIGDSTADDR) {
            check("setsockopt(IPV6_RECVORIGDSTADDR)",
                    Native.setsockoptInt(fd, NativeAbi.IPPROTO_IPV6, NativeAbi.IPV6_RECVORIGDSTADDR, v));
        }
        return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        if (option == ChannelOption.SO_LINGER) {
            if ((kind & (TCP | UNIX)) == 0) {
                return null;
            }
            int[] out = new int[2];
            check("getsockopt(SO_LINGER)", Native.getsockoptLinger(liveFd("getsockopt"), out));
            return (T) Integer.valueOf(out[0] == 0 ? -1 : out[1]);
        }
        Spec spec = OPTIONS.get(option);
        if (spec == null || (spec.kinds & kind) == 0) {
            return null;
        }
        int[] out = new int[1];
        check("getsockopt(" + spec.name + ")", Native.getsockoptInt(liveFd("getsockopt"),
                NativeAbi.constant(spec.level), NativeAbi.constant(spec.name), out));
        return (T) (spec.bool ? Boolean.valueOf(out[0] != 0) : Integer.valueOf(out[0]));
    }

    private static void check(String call, int result) throws IOException {
        if (result < 0) {
            throw ERRORS.newIoException(call, result);
        }
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
}
