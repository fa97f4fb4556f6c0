package io.conduit.transport.spi.unix;

import io.conduit.channel.ChannelOption;
import io.conduit.channel.PeerCredentials;
import io.conduit.transport.spi.AddressErrors;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * SPI for transport implementers: the socket logic that every Unix transport shares above its system calls —
 * opening a dual-stack IP socket or a Unix-domain one, {@code bind(2)} with Conduit's address rules,
 * {@code listen(2)}, steering a {@code SO_REUSEPORT} group, {@code shutdown(2)}, the local and peer address, a Unix
 * peer's credentials, and socket options through a {@link SocketOptionTable}. A
 * transport makes one instance when its library is loaded, from the library's {@link NativeConstants}, its
 * {@code strerror(3)} and a {@link SocketCalls} that delegates to its natives; its sockets then call this with
 * their descriptor. The instance also holds the transport's {@link UnixErrors} and {@link SockaddrCodec}.
 *
 * <p>Nothing here is on a per-byte path: reads, writes and accepts stay in the transport. No method keeps state
 * between calls; {@link #localAddress} and {@link #peerAddress} allocate the address they return.
 *
 * <p><b>Errors.</b> Failed calls throw the exception {@link UnixErrors#newIoException} makes (a
 * {@link io.conduit.channel.AddressBindException} for {@code EADDRINUSE}, {@code EADDRNOTAVAIL} and
 * {@code EACCES} of {@code bind}), with the call named in the message. Descriptors are not checked: a caller passes
 * a descriptor it knows to be open (a closed one fails with {@code EBADF}, a
 * {@link io.conduit.channel.ChannelClosedException}).
 *
 * <p>Immutable; thread-safe: every method may be called from any thread, as the system calls may.
 *
 * @since 0.5.0
 */
public final class UnixSockets {

    private final SocketCalls calls;
    private final UnixErrors errors;
    private final SockaddrCodec sockaddr;
    private final SocketOptionTable options;
    /** whether Linux abstract Unix names ({@code unix(7)}) may be bound */
    private final boolean abstractNames;
    private final int afInet;
    private final int afInet6;
    private final int afUnix;
    private final int eafnosupport;
    private final int enotconn;
    private final int ipprotoIpv6;
    private final int ipv6V6only;
    private final int shutRd;
    private final int shutWr;

    /**
     * @param constants     the library's constants (those of {@code conduit_unix.c}: families, errno values,
     *                      {@code SHUT_*}, {@code IPV6_V6ONLY} and the sockaddr layouts)
     * @param strerror      the library's {@code strerror(3)}: positive errno → text
     * @param abstractNames {@code true} where the kernel has Linux abstract Unix names ({@link SockaddrCodec})
     * @param calls         the library's socket system calls
     * @param options       the transport's socket options
     * @throws IllegalStateException when the library does not publish a constant read here
     */
    public UnixSockets(NativeConstants constants, IntFunction<String> strerror, boolean abstractNames,
            SocketCalls calls, SocketOptionTable options) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.options = Objects.requireNonNull(options, "options");
        this.errors = new UnixErrors(constants, strerror);
        this.sockaddr = new SockaddrCodec(constants, abstractNames);
        this.abstractNames = abstractNames;
        afInet = constants.get("AF_INET");
        afInet6 = constants.get("AF_INET6");
        afUnix = constants.get("AF_UNIX");
        eafnosupport = constants.get("EAFNOSUPPORT");
        enotconn = constants.get("ENOTCONN");
        ipprotoIpv6 = constants.get("IPPROTO_IPV6");
        ipv6V6only = constants.get("IPV6_V6ONLY");
        shutRd = constants.get("SHUT_RD");
        shutWr = constants.get("SHUT_WR");
    }

    /** @return the library's {@code -errno} convention */
    public UnixErrors errors() {
        return errors;
    }

    /** @return the library's socket address layouts */
    public SockaddrCodec sockaddr() {
        return sockaddr;
    }

    /** @return the transport's socket options */
    public SocketOptionTable options() {
        return options;
    }

    /**
     * Opens an IP socket, {@code socket(2)}: {@code AF_INET6} dual-stack ({@code IPV6_V6ONLY} off, so IPv4 peers
     * appear as IPv4-mapped addresses, {@code ipv6(7)}), or {@code AF_INET} when the host has no IPv6
     * ({@code EAFNOSUPPORT}).
     *
     * @param type the socket type with its flags ORed in, e.g. {@code SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC}
     * @return a new array {@code {fd, family}}
     * @throws IOException when no socket can be made; a descriptor opened before the failure is closed
     */
    public int[] openInet(int type) throws IOException {
        int fd = calls.socket(afInet6, type, 0);
        if (fd == -eafnosupport) {
            return new int[] {errors.check("socket(AF_INET)", calls.socket(afInet, type, 0)), afInet};
        }
        errors.check("socket(AF_INET6)", fd);
        int r = calls.setsockoptInt(fd, ipprotoIpv6, ipv6V6only, 0);
        if (r < 0) {
            calls.close(fd);
            throw errors.newIoException("setsockopt(IPV6_V6ONLY)", r);
        }
        return new int[] {fd, afInet6};
    }

    /**
     * Opens a Unix-domain socket, {@code socket(AF_UNIX, type, 0)}, {@code unix(7)}.
     *
     * @param type the socket type with its flags ORed in
     * @return the descriptor
     * @throws IOException when the call fails
     */
    public int openUnix(int type) throws IOException {
        return errors.check("socket(AF_UNIX)", calls.socket(afUnix, type, 0));
    }

    /**
     * Opens a socket of either family: {@link #openUnix} when {@code unix}, else {@link #openInet}.
     *
     * @param unix {@code true} for {@code AF_UNIX}
     * @param type the socket type with its flags ORed in
     * @return a new array {@code {fd, family}}
     * @throws IOException when no socket can be made
     * @since 0.6.0
     */
    public int[] open(boolean unix, int type) throws IOException {
        return unix ? new int[] {openUnix(type), afUnix} : openInet(type);
    }

    /**
     * {@code "Unix-domain"} for {@code AF_UNIX}, else {@code ipKind}: the channel kind that address checks and error
     * messages name (see {@link #bind}). Pure.
     *
     * @since 0.6.0
     */
    public String addressKind(int family, String ipKind) {
        return family == afUnix ? "Unix-domain" : ipKind;
    }

    /**
     * The credentials a Unix-domain stream socket's peer had when it connected ({@link SocketCalls#getPeerCredentials},
     * {@code SO_PEERCRED} on Linux, {@code unix(7)}).
     *
     * @param fd     the socket
     * @param family its family
     * @param open   whether the socket is open ({@code fd} is not read when it is not)
     * @throws UnsupportedOperationException when {@code family} is not {@code AF_UNIX}
     * @throws IllegalStateException when the socket is closed or not connected
     * @since 0.6.0
     */
    public PeerCredentials peerCredentials(int fd, int family, boolean open) {
        if (family != afUnix) {
            throw new UnsupportedOperationException("peer credentials (SO_PEERCRED) exist only for Unix-domain"
                    + " sockets; this is a TCP socket");
        }
        if (!open) {
            throw new IllegalStateException("peer credentials of a closed Unix-domain socket cannot be read");
        }
        int[] out = new int[3];
        int r = calls.getPeerCredentials(fd, out);
        if (r < 0) {
            throw new IllegalStateException(errors.message("getsockopt(SO_PEERCRED)", -r)
                    + ": connect the Unix-domain socket first");
        }
        return new PeerCredentials(out[0], out[1], out[2]);
    }

    /**
     * {@code bind(2)} with Conduit's rules: the address is checked first ({@link AddressErrors#check(SocketAddress,
     * String, boolean)}); {@code null} binds an IP socket to the wildcard address and an ephemeral port and leaves a
     * Unix-domain socket unnamed (the kernel autobinds it on connect or listen); on a dual-stack socket
     * {@code 0.0.0.0} means every address, as with {@code java.nio}, so it binds to {@code ::}.
     *
     * @param fd     an open socket
     * @param family the socket's family, {@code AF_INET}, {@code AF_INET6} or {@code AF_UNIX} of the library
     * @param kind   the channel kind error messages name: {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}
     * @param local  the address, or {@code null}
     * @throws IOException when the kernel refuses it ({@link io.conduit.channel.AddressBindException} for an address
     *         in use, not available, or not allowed)
     * @throws java.nio.channels.UnsupportedAddressTypeException for an address of another kind
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved address
     */
    public void bind(int fd, int family, String kind, SocketAddress local) throws IOException {
        AddressErrors.check(local, kind, abstractNames);
        SocketAddress a = local != null ? local : family == afUnix ? null : new InetSocketAddress(0);
        if (a == null) {
            return;
        }
        boolean ipv6 = family == afInet6;
        if (ipv6 && a instanceof InetSocketAddress i && i.getAddress() instanceof Inet4Address v4
                && v4.isAnyLocalAddress()) {
            a = new InetSocketAddress(InetAddress.getByAddress(new byte[16]), i.getPort());
        }
        byte[] sa = sockaddr.newSockaddr();
        int length = sockaddr.encode(a, sa, ipv6);
        errors.check("bind", calls.bind(fd, sa, length));
    }

    /**
     * {@code listen(2)}.
     *
     * @param backlog the queue length, in connections (see
     *                {@link io.conduit.transport.spi.IoTransportSupport#listenBacklog})
     * @throws IOException when the call fails
     */
    public void listen(int fd, int backlog) throws IOException {
        errors.check("listen", calls.listen(fd, backlog));
    }

    /**
     * Steers the {@code SO_REUSEPORT} group of listener {@code fd} to its listener at {@code index}
     * ({@code SO_ATTACH_REUSEPORT_CBPF}, {@code socket(7)}; see
     * {@link io.conduit.transport.spi.IoServerSocket#steerReuseportGroup}).
     *
     * @param index the place in the group, &gt;= 0
     * @return {@code true} when the group is steered; {@code false} where the system lacks the option
     * @throws IllegalArgumentException when {@code index < 0}
     * @throws IOException when the call fails otherwise, e.g. the socket is in no {@code SO_REUSEPORT} group
     */
    public boolean steerReuseportGroup(int fd, int index) throws IOException {
        if (index < 0) {
            throw new IllegalArgumentException("index " + index + " < 0");
        }
        int r = calls.attachReuseportCbpf(fd, index);
        if (errors.isNoProtocolOption(r)) {
            return false;
        }
        errors.check("setsockopt(SO_ATTACH_REUSEPORT_CBPF)", r);
        return true;
    }

    /**
     * Removes what {@link #steerReuseportGroup} attached ({@code SO_DETACH_REUSEPORT_BPF}, Linux 5.3+).
     *
     * @return {@code true} when a program was removed; {@code false} when none was attached ({@code ENOENT}) or
     *         the system lacks the option
     * @throws IOException when the call fails otherwise
     */
    public boolean unsteerReuseportGroup(int fd) throws IOException {
        int r = calls.detachReuseportBpf(fd);
        if (errors.isNoEntry(r) || errors.isNoProtocolOption(r)) {
            return false;
        }
        errors.check("setsockopt(SO_DETACH_REUSEPORT_BPF)", r);
        return true;
    }

    /**
     * {@code shutdown(fd, SHUT_RD)}; a socket that is not connected ({@code ENOTCONN}, e.g. the peer reset it) is
     * no error.
     *
     * @throws IOException when the call fails otherwise
     */
    public void shutdownInput(int fd) throws IOException {
        shutdown(fd, shutRd, "shutdown(SHUT_RD)");
    }

    /**
     * {@code shutdown(fd, SHUT_WR)}: the peer reads end of stream once the bytes sent before are read;
     * {@code ENOTCONN} is no error.
     *
     * @throws IOException when the call fails otherwise
     */
    public void shutdownOutput(int fd) throws IOException {
        shutdown(fd, shutWr, "shutdown(SHUT_WR)");
    }

    private void shutdown(int fd, int how, String call) throws IOException {
        int r = calls.shutdown(fd, how);
        if (r < 0 && r != -enotconn) {
            throw errors.newIoException(call, r);
        }
    }

    /**
     * {@code getsockname(2)}.
     *
     * @return the address the socket is bound to (port 0 or an unnamed Unix address when it is not bound yet), or
     *         {@code null} when the call fails
     */
    public SocketAddress localAddress(int fd) {
        byte[] out = sockaddr.newAddressOut();
        return calls.getsockname(fd, out) < 0 ? null : sockaddr.decodeAddressOut(out);
    }

    /**
     * Whether an address {@link #localAddress} reported is a bound one, which stays the socket's until it closes
     * (so a caller may cache it): not {@code null} and not an IP address with port 0 (an IP socket that is not
     * bound yet). Pure.
     */
    public static boolean isBound(SocketAddress local) {
        return local != null && !(local instanceof InetSocketAddress i && i.getPort() == 0);
    }

    /**
     * {@code getpeername(2)}.
     *
     * @return the peer, or {@code null} when the socket is not connected (or the call fails otherwise)
     */
    public SocketAddress peerAddress(int fd) {
        byte[] out = sockaddr.newAddressOut();
        return calls.getpeername(fd, out) < 0 ? null : sockaddr.decodeAddressOut(out);
    }

    /**
     * Sets a socket option through the {@link #options()} table ({@link SocketOptionTable#set}).
     *
     * @return {@code false} when the option does not apply to {@code kind}
     * @throws IOException when the kernel refuses the value
     */
    public <T> boolean setOption(int fd, int kind, boolean ipv6, ChannelOption<T> option, T value)
            throws IOException {
        return options.set(calls, errors, fd, kind, ipv6, option, value);
    }

    /**
     * Reads a socket option through the {@link #options()} table ({@link SocketOptionTable#get}).
     *
     * @return the value, or {@code null} when the option does not apply to {@code kind}
     * @throws IOException when the call fails
     */
    public <T> T getOption(int fd, int kind, boolean ipv6, ChannelOption<T> option) throws IOException {
        return options.get(calls, errors, fd, kind, ipv6, option);
    }
}
