package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;
import static io.conduit.kqueue.NativeAbi.SOCKADDR;

import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.DatagramLimits;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.unix.NativeMemory;
import io.conduit.transport.spi.unix.SocketOptionTable;

import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * A datagram socket: UDP (dual-stack {@code AF_INET6}, or {@code AF_INET}) or Unix-domain ({@code AF_UNIX},
 * {@code SOCK_DGRAM}, {@code unix(4)} on the BSDs). Receives with {@code recvmsg(2)} — one call per datagram, into a
 * {@value #RECEIVE_SLOT_BYTES}-byte slot of the loop's scratch memory, its {@code MSG_TRUNC} flag reported as
 * {@code truncated} — through {@link #receiveBatch}; sends with {@code sendto(2)}, and {@code send(2)} to the
 * connected peer (also for empty datagrams). Loop thread only, except options.
 *
 * <p>Connected, it sends to its peer only: a datagram with no target or with the peer as target goes out with
 * {@code send(2)}, one to another address fails (Linux would send it, BSD fails with {@code EISCONN}: one rule
 * for every transport, see {@link io.conduit.channel.DatagramChannel}), and a second {@code connect} fails until
 * {@code disconnect}. Address errors carry messages ({@link AddressErrors}).
 *
 * <p>Unix-domain: bound to a socket file path, whose file is removed at close ({@link KQueueSocket#bind}). Linux
 * abstract names ({@link io.conduit.channel.UnixAbstractAddress}) are rejected at once with an
 * {@link java.nio.channels.UnsupportedAddressTypeException} saying they are Linux-only — also in the Linux test build
 * over the emulation, whose kernel would take them: the BSDs have no abstract namespace. An unnamed sender is
 * reported as the empty path. Sizes ({@link io.conduit.channel.DomainDatagramChannel}): a datagram longer than the
 * socket may send fails its write ({@code EMSGSIZE}, the message naming the length and {@code SO_SNDBUF}); on macOS
 * the default limit is the sysctl {@code net.local.dgram.maxdgram}, only 2,048 bytes, and the receiver needs room
 * in its {@code SO_RCVBUF} ({@code net.local.dgram.recvspace}) — raise both options for larger datagrams.
 *
 * <p>Flow control: {@code EAGAIN} waits for the next {@code EVFILT_WRITE} edge; {@code ENOBUFS} — how macOS and
 * FreeBSD report a Unix datagram receiver whose buffer is full, after which no write edge follows — makes the
 * loop call again on its next turn (polling) until the datagram goes out.
 */
final class KQueueDatagramSocket extends KQueueSocket implements IoDatagramSocket {

    /**
     * Bytes of the receive slot, the longest datagram delivered whole (longer ones arrive cut, marked truncated):
     * 65,536 as on epoll — more than any UDP payload, and what {@link io.conduit.channel.DomainDatagramChannel}
     * documents.
     */
    static final int RECEIVE_SLOT_BYTES = 65_536;

    /** What the system adds to an {@code EMSGSIZE} message of a Unix datagram ({@code null}: nothing). */
    private static final String SYSTEM_LIMIT_NOTE = NativeAbi.EMULATION ? null
            : System.getProperty("os.name", "").startsWith("Mac")
            ? "the default SO_SNDBUF is the sysctl net.local.dgram.maxdgram, 2048 bytes on macOS, and the receiver"
                    + " needs room for the datagram in its SO_RCVBUF (net.local.dgram.recvspace)"
            : "the default SO_SNDBUF is the sysctl net.local.dgram.maxdgram";

    /** the address of an unnamed Unix socket */
    private static final SocketAddress UNNAMED = java.net.UnixDomainSocketAddress.of("");

    /** connected to a peer; loop-confined */
    private boolean connected;
    /** the connected peer; written on the loop, read anywhere */
    private volatile SocketAddress remote;
    /** receives recvmsg's sender; loop-confined */
    private final byte[] addressOut = new byte[NativeAbi.ADDRESS_OUT_SIZE];
    /** receives recvmsg's msg_flags; loop-confined */
    private final int[] flagsOut = new int[1];

    KQueueDatagramSocket(int fd, int family) {
        super(fd, family, SocketOptionTable.UDP);
    }

    private boolean unix() {
        return family == NativeAbi.AF_UNIX;
    }

    /** Receives one datagram into {@code dst} (cut to its room). Not called by the core, which batches. */
    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        int want = dst.remaining();
        long address = addressAtPosition(dst);
        NativeMemory scratch = null;
        if (address == 0 || want == 0) {
            scratch = scratchOf();
            want = Math.min(want, scratch.size());
            address = scratch.address();
        }
        int n = recvmsg(address, want);
        Reference.reachabilityFence(dst);
        if (n < 0) {
            return null;
        }
        int taken = Math.min(n, want);
        if (scratch != null) {
            dst.put(scratch.buffer().slice(0, taken));
        } else {
            dst.position(dst.position() + taken);
        }
        return sender();
    }

    /**
     * Up to {@code maxDatagrams} {@code recvmsg(2)} calls into the receive slot, each datagram handed to
     * {@code sink} at once (it copies), with {@code MSG_TRUNC} as {@code truncated}. Never {@code -1}: both modes
     * and families are served, so the core keeps calling it.
     *
     * @return datagrams handed over; 0 when none was waiting
     * @throws IOException when the first call fails (a later failure ends the batch; the next call meets it)
     */
    @Override
    public int receiveBatch(int maxDatagrams, DatagramSink sink) throws IOException {
        NativeMemory scratch = scratchOf();
        int want = Math.min(RECEIVE_SLOT_BYTES, scratch.size());
        int received = 0;
        int max = Math.max(1, maxDatagrams);
        while (received < max) {
            int n;
            try {
                n = recvmsg(scratch.address(), want);
            } catch (IOException e) {
                if (received == 0) {
                    throw e;
                }
                break;
            }
            if (n < 0) {
                break;
            }
            boolean truncated = (flagsOut[0] & NativeAbi.MSG_TRUNC) != 0;
            sink.datagram(scratch.buffer().slice(0, Math.min(n, want)), sender(), null, truncated);
            received++;
        }
        return received;
    }

    /**
     * One {@code recvmsg(2)}; sets the "maybe more" input flag.
     *
     * @return bytes received, or -1 when no datagram is waiting
     */
    private int recvmsg(long address, int length) throws IOException {
        int n;
        do {
            n = Native.recvmsg(fd(), address, length, addressOut, flagsOut);
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            inputMaybeMore = false;
            if (ERRORS.isAgain(n)) {
                return -1;
            }
            throw ERRORS.newIoException("recvmsg", n);
        }
        inputMaybeMore = true;
        return n;
    }

    /** @return the sender of the last datagram received: the connected peer when none was given, "" when unnamed */
    private SocketAddress sender() {
        SocketAddress sender = SOCKADDR.decodeAddressOut(addressOut);
        if (sender != null) {
            return sender;
        }
        return unix() && !connected ? UNNAMED : remote;
    }

    @Override
    public boolean send(ByteBuffer src, SocketAddress target) throws IOException {
        SocketAddress connectedTo = remote; // checked first: a refused datagram costs no copy
        if (target != null) {
            AddressErrors.check(target, kind());
            if (connected && !connectedTo.equals(target)) {
                throw AddressErrors.sendToOther(connectedTo, target);
            }
            if (connected) {
                target = null; // to the peer: send(2)
            }
        } else if (!connected) {
            throw AddressErrors.noRecipient();
        }
        int length = src.remaining();
        SocketAddress recipient = target != null ? target : connectedTo;
        if (!unix() && length > DatagramLimits.maxUdpPayloadBytes(recipient)) {
            // what the kernel answers (EMSGSIZE), said before a heap datagram meets the scratch memory's size
            throw ERRORS.newUdpDatagramTooLongException(target == null ? "send" : "sendto", length, recipient);
        }
        long address = addressAtPosition(src);
        if (address == 0) {
            NativeMemory scratch = scratchOf();
            if (length > scratch.size()) {
                throw new IOException("sendto(..) failed: a datagram of " + length + " bytes from a heap buffer"
                        + " exceeds the " + scratch.size() + " bytes of scratch memory; send it from a direct buffer");
            }
            scratch.buffer().put(0, src, src.position(), length);
            address = scratch.address();
        }
        String call = target == null ? "send" : "sendto";
        int[] saLength = new int[1];
        byte[] sa = target == null ? null : encode(target, saLength);
        int n;
        do {
            n = sa == null ? Native.send(fd(), address, length) : Native.sendto(fd(), address, length, sa, saLength[0]);
        } while (ERRORS.isInterrupted(n));
        Reference.reachabilityFence(src);
        if (n < 0) {
            if (ERRORS.isAgain(n)) {
                outputMaybeMore = false; // the next EVFILT_WRITE edge says when to try again
                return false;
            }
            if (n == -NativeAbi.ENOBUFS) {
                outputMaybeMore = true; // no edge follows ENOBUFS on the BSDs: try again on the next loop turn
                return false;
            }
            if (ERRORS.isMessageTooLong(n) && unix()) {
                int[] sndbuf = {-1};
                Native.getsockoptInt(fd(), NativeAbi.SOL_SOCKET, NativeAbi.SO_SNDBUF, sndbuf);
                throw ERRORS.newDatagramTooLongException(call, length, sndbuf[0], SYSTEM_LIMIT_NOTE);
            }
            if (ERRORS.isMessageTooLong(n)) { // UDP within the protocol's limit: the path MTU, not fragmenting
                throw ERRORS.newUdpDatagramTooLongException(call, length, recipient);
            }
            throw ERRORS.newIoException(call, n);
        }
        outputMaybeMore = true;
        src.position(src.position() + n);
        return true;
    }

    @Override
    public void connect(SocketAddress remoteAddress) throws IOException {
        if (connected) {
            AddressErrors.check(remoteAddress, kind());
            throw AddressErrors.alreadyConnected(remote, remoteAddress);
        }
        int[] length = new int[1];
        byte[] sa = encode(remoteAddress, length);
        ERRORS.checkConnect("connect", Native.connect(fd(), sa, length[0]));
        connected = true;
        byte[] out = new byte[NativeAbi.ADDRESS_OUT_SIZE];
        remote = Native.getpeername(fd(), out) == 0 ? SOCKADDR.decodeAddressOut(out) : remoteAddress;
    }

    /**
     * {@code connect(2)} to {@code AF_UNSPEC} dissolves the association. The BSDs dissolve it before they look at
     * the address and may then fail for the address itself (connect(2): "datagram sockets may dissolve the
     * association by connecting to an invalid address"), so a failure counts only while a peer is still there.
     */
    @Override
    public void disconnect() throws IOException {
        int rc = Native.disconnect(fd());
        if (rc < 0 && Native.getpeername(fd(), new byte[NativeAbi.ADDRESS_OUT_SIZE]) == 0) {
            throw ERRORS.newIoException("connect(AF_UNSPEC)", rc);
        }
        connected = false;
        remote = null;
    }

    @Override
    String kind() {
        return unix() ? "Unix-domain" : "UDP";
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    /** Joins {@code group} on {@code networkInterface}; joining a group twice is not an error. */
    @Override
    public void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        membership(true, group, networkInterface);
    }

    /** Leaves {@code group}; leaving a group this socket is not a member of has no effect. */
    @Override
    public void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        membership(false, group, networkInterface);
    }

    private void membership(boolean join, InetAddress group, NetworkInterface networkInterface) throws IOException {
        if (unix()) {
            throw new UnsupportedOperationException("multicast groups are for UDP channels, not Unix-domain datagram"
                    + " sockets (" + group + ")");
        }
        if (!group.isMulticastAddress()) {
            throw new IOException(group.getHostAddress() + " is not a multicast address");
        }
        byte[] ifaddr = null;
        if (group instanceof java.net.Inet4Address && networkInterface != null) {
            ifaddr = networkInterface.inetAddresses().filter(a -> a instanceof java.net.Inet4Address).findFirst()
                    .map(InetAddress::getAddress).orElseThrow(() -> new IOException("network interface "
                            + networkInterface.getName() + " has no IPv4 address to join IPv4 group "
                            + group.getHostAddress() + " on"));
        }
        int result = Native.multicastMembership(fd(), join, group.getAddress(), ifaddr,
                networkInterface == null ? 0 : networkInterface.getIndex());
        if (join && result == -EADDRINUSE || !join && result == -EADDRNOTAVAIL) {
            return; // already a member / not a member: membership is already as asked
        }
        ERRORS.check(join ? "setsockopt(IP_ADD_MEMBERSHIP " + group.getHostAddress() + ")"
                : "setsockopt(IP_DROP_MEMBERSHIP " + group.getHostAddress() + ")", result);
    }

    private static final int EADDRINUSE = NativeAbi.constant("EADDRINUSE");
    private static final int EADDRNOTAVAIL = NativeAbi.constant("EADDRNOTAVAIL");

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }
}
