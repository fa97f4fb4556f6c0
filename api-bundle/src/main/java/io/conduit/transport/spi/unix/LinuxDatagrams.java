package io.conduit.transport.spi.unix;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoDatagramSocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * SPI for transport implementers: the datagram-socket logic the Linux transports share above their system calls, for
 * UDP ({@code udp(7)}) and Unix-domain datagram sockets ({@code unix(7)}, {@code SOCK_DGRAM}):
 * <ul>
 * <li>the datagram address rules ({@link io.conduit.channel.DatagramChannel}): a connected socket sends to its peer
 * only ({@link #checkTarget}); who sent a received datagram ({@link #sender});</li>
 * <li>{@code connect(2)} and its {@code AF_UNSPEC} undoing ({@link #connect}, {@link #disconnect});</li>
 * <li>the exception for a failed send, naming the limit a too-long datagram broke ({@link #failedSend});</li>
 * <li>multicast membership and {@link ChannelOption#IP_MULTICAST_IF} through {@link LinuxMulticast}, refused on Unix
 * sockets;</li>
 * <li>sending a batch one datagram at a time ({@link #sendEach}).</li>
 * </ul>
 * Receiving stays in the transports (batches of {@code recvmmsg(2)}, requests of io_uring); {@link MsghdrArray} holds
 * their message headers and decodes what the kernel wrote.
 *
 * <p>A transport makes one instance when its library is loaded; its sockets pass their descriptor as a
 * {@link LiveFd}, so a closed socket fails with the transport's own exception naming the call.
 *
 * <p>Immutable; thread-safe: every method is a few system calls on the caller's descriptor.
 *
 * @since 0.7.0
 */
public final class LinuxDatagrams {

    /** The address of an unnamed Unix socket, as every transport reports it. */
    public static final SocketAddress UNNAMED = UnixDomainSocketAddress.of("");

    /** {@code connect(2)} of a raw sockaddr: the library's {@code connect}. */
    @FunctionalInterface
    public interface Connect {
        /** @return 0 or -errno */
        int connect(int fd, byte[] sockaddr, int length);
    }

    /** The socket's descriptor, checked open for {@code call}. */
    @FunctionalInterface
    public interface LiveFd {
        /**
         * @param call the system call about to be made, named in the exception
         * @return the open descriptor
         * @throws IOException when the socket is closed (typically a {@link io.conduit.channel.ChannelClosedException})
         */
        int fd(String call) throws IOException;
    }

    private final UnixErrors errors;
    private final SockaddrCodec sockaddr;
    private final SocketCalls calls;
    private final LinuxMulticast multicast;
    private final Connect connect;
    private final int solSocket;
    private final int soSndbuf;
    private final int eafnosupport;

    /**
     * @param constants the library's constants ({@code SOL_SOCKET}, {@code SO_SNDBUF}, {@code EAFNOSUPPORT})
     * @param sockets   the library's shared socket logic (its errors and address layouts are used)
     * @param calls     the library's socket calls ({@code getsockoptInt})
     * @param multicast the library's multicast membership
     * @param connect   the library's {@code connect}
     * @throws IllegalStateException when the library does not publish a constant read here
     */
    public LinuxDatagrams(NativeConstants constants, UnixSockets sockets, SocketCalls calls, LinuxMulticast multicast,
            Connect connect) {
        this.errors = sockets.errors();
        this.sockaddr = sockets.sockaddr();
        this.calls = Objects.requireNonNull(calls, "calls");
        this.multicast = Objects.requireNonNull(multicast, "multicast");
        this.connect = Objects.requireNonNull(connect, "connect");
        solSocket = constants.get("SOL_SOCKET");
        soSndbuf = constants.get("SO_SNDBUF");
        eafnosupport = constants.get("EAFNOSUPPORT");
    }

    // ------------------------------------------------------------------------------------ addresses

    /**
     * The datagram address rule ({@link io.conduit.channel.DatagramChannel}), checked before a send because Linux
     * {@code sendto(2)} on a connected UDP socket would send to {@code target}, not fail.
     *
     * @param kind      the socket's kind as errors name it ({@code "UDP"}, {@code "Unix-domain"})
     * @param connected whether the socket is connected
     * @param peer      the connected peer
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved target (with a message)
     * @throws java.nio.channels.UnsupportedAddressTypeException for a target of another family (with a message)
     * @throws java.nio.channels.AlreadyConnectedException when connected to another address than {@code target}
     */
    public static void checkTarget(SocketAddress target, String kind, boolean connected, SocketAddress peer) {
        AddressErrors.check(target, kind, true);
        if (connected && !target.equals(peer)) {
            throw AddressErrors.sendToOther(peer, target);
        }
    }

    /**
     * Who sent a received datagram.
     *
     * @param decoded the address the kernel gave ({@link MsghdrArray#sender}), or {@code null} when it gave none
     * @param peer    the connected peer, or {@code null} when not connected
     * @param unix    whether the socket is {@code AF_UNIX}
     * @return {@code decoded}; without it the connected peer; else, for a Unix socket, {@link #UNNAMED} (an unnamed
     *         sender, {@code unix(7)}); else {@code null}
     */
    public static SocketAddress sender(SocketAddress decoded, SocketAddress peer, boolean unix) {
        if (decoded != null) {
            return decoded;
        }
        return peer != null ? peer : unix ? UNNAMED : null;
    }

    // ---------------------------------------------------------------------------------- association

    /**
     * The checks before a {@code connect(2)} (or a connect that keeps the unconnected mode, a hand-over's).
     *
     * @param kind      the socket's kind as errors name it
     * @param connected whether the socket is connected
     * @param peer      the connected peer
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved address (with a message)
     * @throws java.nio.channels.UnsupportedAddressTypeException for an address of another family (with a message)
     * @throws java.nio.channels.AlreadyConnectedException when the socket is connected already
     */
    public static void checkConnect(SocketAddress address, String kind, boolean connected, SocketAddress peer) {
        AddressErrors.check(address, kind, true);
        if (connected) {
            throw AddressErrors.alreadyConnected(peer, address);
        }
    }

    /**
     * {@code connect(2)} to {@code address}, nothing else.
     *
     * @param ipv6Socket whether the socket is {@code AF_INET6} (an IPv4 address is then IPv4-mapped)
     * @throws IOException a {@link java.net.ConnectException} naming the errno when the kernel refuses
     */
    public void connect(LiveFd fd, SocketAddress address, boolean ipv6Socket) throws IOException {
        byte[] sa = sockaddr.newSockaddr();
        int length = sockaddr.encode(address, sa, ipv6Socket);
        int r = connect.connect(fd.fd("connect"), sa, length);
        if (r < 0) {
            throw errors.newConnectException("connect", r);
        }
    }

    /**
     * {@code connect(2)} to an {@code AF_UNSPEC} address, which dissolves the association ({@code udp(7)},
     * {@code unix(7)}); {@code EAFNOSUPPORT} (an unconnected Unix socket) is no error. Linux also drops the port of a
     * UDP socket bound to port 0: the caller binds it again when it wants to keep it.
     *
     * @throws IOException when the kernel refuses
     */
    public void disconnect(LiveFd fd) throws IOException {
        byte[] unspec = sockaddr.newSockaddr(); // all zero: sa_family = AF_UNSPEC
        int r = connect.connect(fd.fd("connect(AF_UNSPEC)"), unspec, unspec.length);
        if (r < 0 && r != -eafnosupport) {
            throw errors.newIoException("connect(AF_UNSPEC)", r);
        }
    }

    // ------------------------------------------------------------------------------------- sending

    /**
     * @param call      the failed call, e.g. {@code "sendmsg"}
     * @param result    its -errno
     * @param fd        the socket, asked for {@code SO_SNDBUF} when a Unix datagram was too long
     * @param unix      whether the socket is {@code AF_UNIX}
     * @param length    the failed datagram's length, bytes
     * @param recipient where it went (the target, or the connected peer)
     * @return the exception for a failed send; for one refused as too long ({@code EMSGSIZE}) one naming its length
     *         and the limit: for UDP the protocol's largest payload or the path MTU
     *         ({@link io.conduit.transport.spi.DatagramLimits}), for a Unix datagram {@code SO_SNDBUF}
     *         ({@code unix(7)}: at most {@code SO_SNDBUF} less a small overhead)
     */
    public IOException failedSend(String call, int result, int fd, boolean unix, int length, SocketAddress recipient) {
        if (!errors.isMessageTooLong(result)) {
            return errors.newIoException(call, result);
        }
        if (!unix) {
            return errors.newUdpDatagramTooLongException(call, length, recipient);
        }
        int[] sndbuf = {-1};
        calls.getsockoptInt(fd, solSocket, soSndbuf, sndbuf);
        return errors.newDatagramTooLongException(call, length, sndbuf[0], null);
    }

    /**
     * The batch form of {@link IoDatagramSocket#send}: sends in order, one datagram at a time, until the socket is
     * full or one datagram fails. An error on the first datagram is thrown (it was not sent); an error on a later one
     * ends the batch, and the next call meets it as its first datagram, as {@code sendmmsg(2)} reports it.
     *
     * @return the datagrams sent
     */
    public static int sendEach(IoDatagramSocket socket, ByteBuffer[] srcs, SocketAddress[] targets, int count)
            throws IOException {
        int sent = 0;
        for (int i = 0; i < count; i++) {
            try {
                if (!socket.send(srcs[i].duplicate(), targets[i])) {
                    break;
                }
            } catch (IOException | RuntimeException e) {
                if (sent == 0) {
                    throw e;
                }
                break;
            }
            sent++;
        }
        return sent;
    }

    // ------------------------------------------------------------------------------------ multicast

    /**
     * Joins ({@code join}) or leaves {@code group} on {@code nif} ({@link LinuxMulticast#membership}): joining twice
     * and leaving a group the socket is not in are no errors.
     *
     * @throws UnsupportedOperationException on a Unix-domain socket (with a message)
     * @throws IOException when the kernel refuses, or the socket is closed
     */
    public void membership(LiveFd fd, boolean unix, boolean ipv6Socket, InetAddress group, NetworkInterface nif,
            boolean join) throws IOException {
        if (unix) {
            throw new UnsupportedOperationException("multicast groups are for UDP channels, not Unix-domain datagram"
                    + " sockets (" + group + ")");
        }
        multicast.membership(fd.fd(join ? "setsockopt(ADD_MEMBERSHIP)" : "setsockopt(DROP_MEMBERSHIP)"), ipv6Socket,
                group, nif, join);
    }

    /**
     * Sets {@link ChannelOption#IP_MULTICAST_IF} ({@link LinuxMulticast#setInterface}).
     *
     * @return {@code false} on a Unix-domain socket (the option does not apply), else {@code true}
     */
    public boolean setMulticastInterface(LiveFd fd, boolean unix, boolean ipv6Socket, NetworkInterface nif)
            throws IOException {
        if (unix) {
            return false;
        }
        multicast.setInterface(fd.fd("setsockopt(IP_MULTICAST_IF)"), ipv6Socket, nif);
        return true;
    }

    /**
     * @return {@link ChannelOption#IP_MULTICAST_IF}: the chosen interface, or {@code null} while the kernel chooses
     *         or on a Unix-domain socket
     */
    public NetworkInterface multicastInterface(LiveFd fd, boolean unix, boolean ipv6Socket) throws IOException {
        return unix ? null : multicast.getInterface(fd.fd("getsockopt(IP_MULTICAST_IF)"), ipv6Socket);
    }
}
