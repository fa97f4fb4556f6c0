package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.transport.spi.unix.SockaddrCodec;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.unix.NativeMemory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UDP socket. <b>Connected</b>, it uses plain {@code read(2)}/{@code write(2)} (no address handling at all);
 * <b>unconnected</b>, it batches with {@code recvmmsg(2)}/{@code sendmmsg(2)} over the loop's one shared
 * {@link MmsghdrArray} and receive slots ({@link LoopResources}, allocated on first use). With
 * {@code IP_RECVORIGDSTADDR} on, each received datagram carries its real destination address (the
 * {@code IP_ORIGDSTADDR}/{@code IPV6_ORIGDSTADDR} control message); {@code MSG_TRUNC} reports truncation.
 *
 * <p>{@link #CALLS} counts the system calls by kind, for tests that check which path was taken.
 *
 * <p>Multicast: membership by interface index ({@link #joinGroup}); {@code IP_MULTICAST_IF} is not implemented.
 *
 * <p>Threading: loop thread, as {@link io.conduit.transport.spi.IoSocket} says.
 */
final class EpollDatagramSocket extends EpollSocket implements IoDatagramSocket {

    /** System calls made by every datagram socket, by kind (test hook); thread-safe counters. */
    enum Call { READ, WRITE, RECVFROM, SENDTO, RECVMMSG, SENDMMSG;
        final AtomicLong count = new AtomicLong();
    }

    static final Call[] CALLS = Call.values();

    private boolean connected;                 // loop-confined
    private volatile SocketAddress remote;     // the connected peer; read from any thread
    private volatile boolean recvOrigDstAddr;  // IP_RECVORIGDSTADDR is on
    private final byte[] addressOut = Native.newAddressOut(); // loop-confined

    static EpollDatagramSocket open() throws IOException {
        int[] fdAndDomain = EpollSocket.open(false, NativeAbi.SOCK_DGRAM);
        return new EpollDatagramSocket(fdAndDomain[0], fdAndDomain[1]);
    }

    private EpollDatagramSocket(int fd, int domain) {
        super(fd, domain, UDP);
    }

    // ------------------------------------------------------------------------------------------ receiving

    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        int fd = liveFd(connected ? "read" : "recvfrom");
        boolean direct = dst.isDirect();
        LoopResources res = direct ? null : resources();
        long address = direct ? address(dst) : res.bounceAddress();
        int want = direct ? dst.remaining() : Math.min(dst.remaining(), LoopResources.BOUNCE_BYTES);
        int n;
        do {
            if (connected) {
                Call.READ.count.incrementAndGet();
                n = Native.read(fd, address, want);
            } else {
                Call.RECVFROM.count.incrementAndGet();
                n = Native.recvfrom(fd, address, want, 0, addressOut);
            }
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            inputDrained = true;
            if (ERRORS.isAgain(n)) {
                return null;
            }
            throw ERRORS.newIoException(connected ? "read" : "recvfrom", n);
        }
        if (direct) {
            dst.position(dst.position() + n);
        } else {
            ByteBuffer b = res.bounce();
            b.limit(n);
            dst.put(b);
        }
        return connected ? remote : SOCKADDR.decodeAddressOut(addressOut);
    }

    @Override
    public int receiveBatch(int maxDatagrams, DatagramSink sink) throws IOException {
        if (connected) {
            return -1; // plain read(2), one datagram per call
        }
        int fd = liveFd("recvmmsg");
        LoopResources res = resources();
        MmsghdrArray mmsg = res.mmsg();
        NativeMemory slots = res.receiveSlots();
        int n = Math.max(1, Math.min(maxDatagrams, mmsg.capacity()));
        for (int i = 0; i < n; i++) {
            mmsg.setForReceive(i, slots.address() + (long) i * LoopResources.DATAGRAM_SLOT_BYTES,
                    LoopResources.DATAGRAM_SLOT_BYTES);
        }
        int r;
        do {
            Call.RECVMMSG.count.incrementAndGet();
            r = Native.recvmmsg(fd, mmsg.address(), n, 0);
        } while (ERRORS.isInterrupted(r));
        if (r < 0) {
            inputDrained = true;
            if (ERRORS.isAgain(r)) {
                return 0;
            }
            throw ERRORS.newIoException("recvmmsg", r);
        }
        if (r < n) {
            inputDrained = true;
        }
        boolean origDst = recvOrigDstAddr;
        for (int i = 0; i < r; i++) {
            int offset = i * LoopResources.DATAGRAM_SLOT_BYTES;
            ByteBuffer data = slots.buffer().slice(offset, mmsg.messageLength(i));
            boolean truncated = (mmsg.flags(i) & NativeAbi.MSG_TRUNC) != 0;
            sink.datagram(data, mmsg.sender(i), origDst ? mmsg.recipient(i) : null, truncated);
        }
        return r;
    }

    // -------------------------------------------------------------------------------------------- sending

    @Override
    public boolean send(ByteBuffer src, SocketAddress target) throws IOException {
        if (target != null) {
            checkTarget(target);
            if (connected) {
                target = null; // to the peer: write(2)
            }
        } else if (!connected) {
            throw AddressErrors.noRecipient();
        }
        int fd = liveFd(target == null ? "write" : "sendto");
        int length = src.remaining();
        long address = 0;
        if (length > 0) {
            if (src.isDirect()) {
                address = address(src);
            } else {
                LoopResources res = resources();
                ByteBuffer bounce = res.bounce();
                if (length > bounce.capacity()) {
                    throw new IOException("a heap datagram of " + length + " bytes exceeds the "
                            + bounce.capacity() + "-byte bounce buffer; use direct buffers");
                }
                bounce.put(src.duplicate());
                address = res.bounceAddress();
            }
        }
        int n;
        byte[] sa = null;
        int saLength = 0;
        if (target != null) {
            sa = SOCKADDR.newSockaddr();
            saLength = SOCKADDR.encode(target, sa, ipv6());
        }
        do {
            if (target == null) {
                Call.WRITE.count.incrementAndGet();
                n = Native.write(fd, address, length);
            } else {
                Call.SENDTO.count.incrementAndGet();
                n = Native.sendto(fd, address, length, 0, sa, saLength);
            }
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n) || n == -NativeAbi.ENOBUFS) {
                return false;
            }
            throw ERRORS.newIoException(target == null ? "write" : "sendto", n);
        }
        src.position(src.position() + n);
        return true;
    }

    /**
     * The datagram address rule ({@link io.conduit.channel.DatagramChannel}): checked here because Linux
     * {@code sendto(2)} on a connected UDP socket would send to {@code target}, not fail.
     *
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved target (with a message)
     * @throws java.nio.channels.UnsupportedAddressTypeException for a non-IP target (with a message)
     * @throws java.nio.channels.AlreadyConnectedException when connected to another address than {@code target}
     */
    private void checkTarget(SocketAddress target) {
        AddressErrors.check(target, addressKind(), true);
        SocketAddress peer = remote;
        if (connected && !target.equals(peer)) {
            throw AddressErrors.sendToOther(peer, target);
        }
    }

    @Override
    public int sendBatch(ByteBuffer[] srcs, SocketAddress[] targets, int count) throws IOException {
        if (connected) {
            return -1; // plain write(2)
        }
        if (count > 0 && srcs[0].hasRemaining() && !srcs[0].isDirect()) {
            ByteBuffer first = srcs[0].duplicate();
            return send(first, targets[0]) ? 1 : 0;
        }
        int fd = liveFd("sendmmsg");
        MmsghdrArray mmsg = resources().mmsg();
        int n = 0;
        for (int i = 0; i < count && n < mmsg.capacity(); i++) {
            ByteBuffer b = srcs[i];
            if (b.hasRemaining() && !b.isDirect()) {
                break; // a heap buffer: the next call sends it through the bounce buffer
            }
            if (targets[i] == null) {
                if (n == 0) {
                    throw AddressErrors.noRecipient(); // fails the first datagram only
                }
                break; // the next call fails it
            }
            try {
                AddressErrors.check(targets[i], addressKind(), true);
            } catch (RuntimeException e) {
                if (n == 0) {
                    throw e;
                }
                break;
            }
            mmsg.setForSend(n++, b.hasRemaining() ? address(b) : 0, b.remaining(), targets[i], ipv6());
        }
        int r;
        do {
            Call.SENDMMSG.count.incrementAndGet();
            r = Native.sendmmsg(fd, mmsg.address(), n, 0);
        } while (ERRORS.isInterrupted(r));
        if (r < 0) {
            if (ERRORS.isAgain(r) || r == -NativeAbi.ENOBUFS) {
                return 0;
            }
            throw ERRORS.newIoException("sendmmsg", r);
        }
        return r;
    }

    // ------------------------------------------------------------------------------------- association

    @Override
    public void connect(SocketAddress remoteAddress) throws IOException {
        AddressErrors.check(remoteAddress, addressKind(), true);
        if (connected) {
            throw AddressErrors.alreadyConnected(remote, remoteAddress);
        }
        byte[] sa = SOCKADDR.newSockaddr();
        int len = SOCKADDR.encode(remoteAddress, sa, ipv6());
        int r = Native.connect(liveFd("connect"), sa, len);
        if (r < 0) {
            throw ERRORS.newConnectException("connect", r);
        }
        connected = true;
        forgetLocalAddress();
        remote = peerAddress();
    }

    /** {@code connect(2)} to an {@code AF_UNSPEC} address dissolves the association ({@code udp(7)}). */
    @Override
    public void disconnect() throws IOException {
        byte[] unspec = SOCKADDR.newSockaddr(); // all zero: sa_family = AF_UNSPEC
        int r = Native.connect(liveFd("connect(AF_UNSPEC)"), unspec, NativeAbi.SOCKADDR_IN6_SIZE);
        if (r < 0 && r != -NativeAbi.EAFNOSUPPORT) {
            throw ERRORS.newIoException("connect(AF_UNSPEC)", r);
        }
        connected = false;
        remote = null;
        forgetLocalAddress();
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    /**
     * {@code IP_ADD_MEMBERSHIP} with {@code struct ip_mreqn} (by interface index) for an IPv4 group — on the
     * dual-stack socket too —, {@code IPV6_ADD_MEMBERSHIP} with {@code struct ipv6_mreq} for an IPv6 group.
     * Joining a group twice is no error ({@code EADDRINUSE} means "already a member").
     */
    @Override
    public void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        membership(group, networkInterface, true);
    }

    /** The drop counterpart of {@link #joinGroup}; leaving a group this socket is not in has no effect. */
    @Override
    public void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        membership(group, networkInterface, false);
    }

    private void membership(InetAddress group, NetworkInterface nif, boolean join) throws IOException {
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException(group + " is not a multicast address");
        }
        int ifindex = nif == null ? 0 : nif.getIndex();
        byte[] req;
        int level;
        int name;
        if (group instanceof java.net.Inet4Address) {
            req = new byte[NativeAbi.IP_MREQN_SIZE];
            ByteBuffer b = SockaddrCodec.wrap(req);
            b.put(NativeAbi.IP_MREQN_MULTIADDR_OFFSET, group.getAddress()); // network byte order, as in_addr
            b.putInt(NativeAbi.IP_MREQN_IFINDEX_OFFSET, ifindex);
            level = NativeAbi.IPPROTO_IP;
            name = join ? NativeAbi.IP_ADD_MEMBERSHIP : NativeAbi.IP_DROP_MEMBERSHIP;
        } else {
            if (!ipv6()) {
                throw new IllegalArgumentException("IPv6 group " + group + " on an IPv4-only socket");
            }
            req = new byte[NativeAbi.IPV6_MREQ_SIZE];
            ByteBuffer b = SockaddrCodec.wrap(req);
            b.put(NativeAbi.IPV6_MREQ_MULTIADDR_OFFSET, group.getAddress());
            b.putInt(NativeAbi.IPV6_MREQ_INTERFACE_OFFSET, ifindex);
            level = NativeAbi.IPPROTO_IPV6;
            name = join ? NativeAbi.IPV6_ADD_MEMBERSHIP : NativeAbi.IPV6_DROP_MEMBERSHIP;
        }
        String call = join ? "setsockopt(ADD_MEMBERSHIP " + group + ")" : "setsockopt(DROP_MEMBERSHIP " + group + ")";
        int r = Native.setsockoptBytes(liveFd(call), level, name, req, req.length);
        if (r == 0 || (join && r == -NativeAbi.EADDRINUSE) || (!join && r == -NativeAbi.EADDRNOTAVAIL)) {
            return; // joined / already a member; left / not a member
        }
        throw ERRORS.newIoException(call, r);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        boolean applied = super.setOption(option, value);
        if (applied && option == ChannelOption.IP_RECVORIGDSTADDR) {
            recvOrigDstAddr = (Boolean) value;
        }
        return applied;
    }
}
