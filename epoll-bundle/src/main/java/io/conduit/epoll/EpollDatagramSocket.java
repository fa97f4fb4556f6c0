package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.DATAGRAMS;
import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.DatagramLimits;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.UnixSocketFile;
import io.conduit.transport.spi.unix.LinuxDatagrams;
import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeMemory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A datagram socket: UDP ({@code AF_INET6} dual-stack or {@code AF_INET}) or Unix-domain ({@code AF_UNIX},
 * {@code SOCK_DGRAM}, {@code unix(7)}). <b>Connected</b>, it uses plain {@code read(2)}/{@code write(2)} (no
 * address handling at all; a Unix socket reads with {@code recvfrom(2)} and {@code MSG_TRUNC} so a datagram
 * longer than the receive slot is reported as truncated); <b>unconnected</b>, it batches with
 * {@code recvmmsg(2)}/{@code sendmmsg(2)} over the loop's one shared {@link MsghdrArray} and receive slots
 * ({@link LoopResources}, allocated on first use). With {@code IP_RECVORIGDSTADDR} on, each received datagram
 * carries its real destination address (the {@code IP_ORIGDSTADDR}/{@code IPV6_ORIGDSTADDR} control message);
 * {@code MSG_TRUNC} reports truncation.
 *
 * <p>Batching: {@link #receiveBatch} and {@link #sendBatch} serve both modes (connected: a loop of
 * {@code read}/{@code write} calls), so the channel core never sees {@code -1} (which it takes as "this socket
 * never batches") because of a connect or a transient error; only {@code ENOSYS} (a kernel without
 * {@code recvmmsg}/{@code sendmmsg}) turns batching off for the life of the socket. Other errors are thrown and
 * fail one read or one datagram, and the next call batches again.
 *
 * <p>{@link #CALLS} counts the system calls by kind, for tests that check which path was taken.
 *
 * <p>Address rules, connect and disconnect, failed sends and multicast ({@code struct ip_mreqn} by interface index;
 * {@link ChannelOption#IP_MULTICAST_IF} with {@code IP_MULTICAST_IF} and, on an {@code AF_INET6} socket,
 * {@code IPV6_MULTICAST_IF} too) are {@link LinuxDatagrams}, shared with the io_uring transport.
 *
 * <p>Unix-domain: bound to a path, the socket file is removed at {@link #close()} ({@link UnixSocketFile}, as
 * for a Unix listener); abstract names ({@link io.conduit.channel.UnixAbstractAddress}) have no file.
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
    /** loop-confined: the UDP address bound before {@link #connect} (port != 0), restored by {@link #disconnect} */
    private java.net.InetSocketAddress boundBeforeConnect;
    private volatile SocketAddress remote;     // the connected peer; read from any thread
    private volatile boolean recvOrigDstAddr;  // IP_RECVORIGDSTADDR is on
    private final byte[] addressOut = Native.newAddressOut(); // loop-confined
    /** loop-confined: recvmmsg/sendmmsg answered ENOSYS; {@link #receiveBatch}/{@link #sendBatch} then say -1 */
    private boolean batchUnsupported;
    /** the socket file bind(2) created (AF_UNIX path only), removed at close; written at bind, read at close */
    private volatile UnixSocketFile socketFile;

    /** A UDP socket. */
    static EpollDatagramSocket open() throws IOException {
        return open(false);
    }

    /** @param unix {@code true} for {@code AF_UNIX}/{@code SOCK_DGRAM}, {@code false} for UDP */
    static EpollDatagramSocket open(boolean unix) throws IOException {
        int[] fdAndDomain = EpollSocket.open(unix, NativeAbi.SOCK_DGRAM);
        return new EpollDatagramSocket(fdAndDomain[0], fdAndDomain[1]);
    }

    private EpollDatagramSocket(int fd, int domain) {
        super(fd, domain, domain == NativeAbi.AF_UNIX ? UNIX_DGRAM : UDP);
    }

    private boolean unix() {
        return domain == NativeAbi.AF_UNIX;
    }

    /** Binds; a Unix path's socket file is recorded so {@link #close()} removes it. */
    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        if (!unix()) {
            super.bind(localAddress);
            return;
        }
        socketFile = UnixSocketFile.bind(localAddress, () -> {
            super.bind(localAddress);
            return localAddress();
        });
    }

    /** Removes the Unix socket file this socket bound (if it is still that file), then closes. */
    @Override
    public void close() throws IOException {
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null && isOpen()) {
            f.deleteIfStillOurs(); // before close(2): the path still holds our file, no other bind can take it
        }
        super.close();
    }

    // ------------------------------------------------------------------------------------------ receiving

    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        int fd = liveFd(connected ? "read" : "recvfrom");
        boolean direct = dst.isDirect();
        LoopResources res = direct ? null : resources();
        int want = direct ? dst.remaining() : Math.min(dst.remaining(), LoopResources.BOUNCE_BYTES);
        int n;
        do {
            // a direct buffer goes to the one-call natives (address resolved in C); a heap one lands in the bounce
            if (connected) {
                Call.READ.count.incrementAndGet();
                n = direct ? Native.readBuffer(fd, dst, dst.position(), dst.limit())
                        : Native.read(fd, res.bounceAddress(), want);
            } else {
                Call.RECVFROM.count.incrementAndGet();
                n = direct ? Native.recvfromBuffer(fd, dst, dst.position(), dst.limit(), 0, addressOut)
                        : Native.recvfrom(fd, res.bounceAddress(), want, 0, addressOut);
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
        return connected ? remote : LinuxDatagrams.sender(SOCKADDR.decodeAddressOut(addressOut), null, unix());
    }

    @Override
    public int receiveBatch(int maxDatagrams, DatagramSink sink) throws IOException {
        if (batchUnsupported) {
            return -1;
        }
        if (connected) {
            return receiveConnected(maxDatagrams, sink);
        }
        int fd = liveFd("recvmmsg");
        LoopResources res = resources();
        MsghdrArray mmsg = res.mmsg();
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
            if (r == -NativeAbi.ENOSYS) {
                batchUnsupported = true; // no recvmmsg in this kernel: one datagram per call from now on
                return -1;
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
            sink.datagram(data, LinuxDatagrams.sender(mmsg.sender(i), null, unix()),
                    origDst ? mmsg.recipient(i) : null, truncated);
        }
        return r;
    }

    /**
     * The connected form of {@link #receiveBatch}: up to {@code maxDatagrams} {@code read(2)} calls (Unix:
     * {@code recvfrom(2)} with {@code MSG_TRUNC}, which returns the datagram's real length) into receive slot 0,
     * each datagram handed to {@code sink} at once (it copies). An error after some datagrams is thrown; those
     * already handed over are still delivered by the core.
     */
    private int receiveConnected(int maxDatagrams, DatagramSink sink) throws IOException {
        boolean unix = unix();
        int fd = liveFd(unix ? "recvfrom" : "read");
        NativeMemory slots = resources().receiveSlots();
        int want = LoopResources.DATAGRAM_SLOT_BYTES;
        SocketAddress peer = remote;
        int received = 0;
        int max = Math.max(1, maxDatagrams);
        while (received < max) {
            int n;
            do {
                if (unix) {
                    Call.RECVFROM.count.incrementAndGet();
                    n = Native.recvfrom(fd, slots.address(), want, NativeAbi.MSG_TRUNC, addressOut);
                } else {
                    Call.READ.count.incrementAndGet();
                    n = Native.read(fd, slots.address(), want);
                }
            } while (ERRORS.isInterrupted(n));
            if (n < 0) {
                inputDrained = true;
                if (ERRORS.isAgain(n)) {
                    break;
                }
                throw ERRORS.newIoException(unix ? "recvfrom" : "read", n);
            }
            boolean truncated = n > want;
            sink.datagram(slots.buffer().slice(0, Math.min(n, want)), peer, null, truncated);
            received++;
        }
        return received;
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
        SocketAddress recipient = target != null ? target : remote;
        if (!unix() && length > DatagramLimits.maxUdpPayloadBytes(recipient)) {
            // what the kernel answers (EMSGSIZE), said before a heap datagram meets the bounce buffer's size
            throw ERRORS.newUdpDatagramTooLongException(target == null ? "write" : "sendto", length, recipient);
        }
        boolean inBuffer = length > 0 && src.isDirect(); // sent from src itself, its address resolved in C
        long address = 0; // otherwise: the bounce buffer, or nothing for an empty datagram
        if (length > 0) {
            if (!inBuffer) {
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
                n = inBuffer ? Native.writeBuffer(fd, src, src.position(), src.limit())
                        : Native.write(fd, address, length);
            } else {
                Call.SENDTO.count.incrementAndGet();
                n = inBuffer ? Native.sendtoBuffer(fd, src, src.position(), src.limit(), 0, sa, saLength)
                        : Native.sendto(fd, address, length, 0, sa, saLength);
            }
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n) || n == -NativeAbi.ENOBUFS) {
                return false;
            }
            throw DATAGRAMS.failedSend(target == null ? "write" : "sendto", n, fd(), unix(), length,
                    target != null ? target : remote);
        }
        src.position(src.position() + n);
        return true;
    }

    /** The datagram address rule ({@link LinuxDatagrams#checkTarget}). */
    private void checkTarget(SocketAddress target) {
        LinuxDatagrams.checkTarget(target, addressKind(), connected, remote);
    }

    @Override
    public int sendBatch(ByteBuffer[] srcs, SocketAddress[] targets, int count) throws IOException {
        if (batchUnsupported) {
            return -1;
        }
        if (connected) {
            return LinuxDatagrams.sendEach(this, srcs, targets, count); // one write(2) per datagram
        }
        if (count > 0 && srcs[0].hasRemaining() && !srcs[0].isDirect()) {
            ByteBuffer first = srcs[0].duplicate();
            return send(first, targets[0]) ? 1 : 0;
        }
        int fd = liveFd("sendmmsg");
        MsghdrArray mmsg = resources().mmsg();
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
            if (r == -NativeAbi.ENOSYS) {
                batchUnsupported = true; // no sendmmsg in this kernel: one datagram per call from now on
                return -1;
            }
            // the first datagram failed
            throw DATAGRAMS.failedSend("sendmmsg", r, fd(), unix(), count > 0 ? srcs[0].remaining() : 0,
                    count > 0 && targets[0] != null ? targets[0] : remote);
        }
        return r;
    }

    // ------------------------------------------------------------------------------------- association

    @Override
    public void connect(SocketAddress remoteAddress) throws IOException {
        LinuxDatagrams.checkConnect(remoteAddress, addressKind(), connected, remote);
        SocketAddress bound = localAddress();
        boundBeforeConnect = bound instanceof java.net.InetSocketAddress i && i.getPort() != 0 ? i : null;
        connect0(remoteAddress);
        connected = true;
        forgetLocalAddress();
        remote = peerAddress();
    }

    /**
     * {@code connect(2)} to {@code sink} without entering the connected mode: reads keep using
     * {@code recvmmsg(2)}/{@code recvfrom(2)}, which report each datagram's sender (those queued before the call
     * too: the kernel keeps them), and sends keep their targets ({@code sendto(2)} on a connected UDP socket sends to
     * the given address). The kernel then matches this socket only for datagrams from {@code sink}, so its
     * {@code SO_REUSEPORT} group sends everything else to the other members. UDP only.
     */
    @Override
    public boolean connectAway(SocketAddress sink, DatagramSink queued) throws IOException {
        if (unix()) {
            return false;
        }
        LinuxDatagrams.checkConnect(sink, addressKind(), connected, remote);
        connect0(sink);
        forgetLocalAddress(); // a wildcard-bound socket now has the local address of the route to the sink
        return true;
    }

    /** {@code connect(2)} to {@code address}, nothing else. */
    private void connect0(SocketAddress address) throws IOException {
        DATAGRAMS.connect(this::liveFd, address, ipv6());
    }

    /**
     * {@code connect(2)} to an {@code AF_UNSPEC} address dissolves the association ({@code udp(7)},
     * {@code unix(7)}). Linux also drops the port of a UDP socket that was bound to port 0 (the kernel's
     * {@code udp_disconnect} unhashes it unless the port was given explicitly); the socket is then bound again to
     * the address and port it had before {@link #connect}, so datagrams sent to it keep arriving (as java.nio
     * does).
     *
     * @throws IOException when the kernel refuses, or the old port was taken in between (a
     *         {@link java.net.BindException} naming it)
     */
    @Override
    public void disconnect() throws IOException {
        DATAGRAMS.disconnect(this::liveFd);
        connected = false;
        remote = null;
        forgetLocalAddress();
        java.net.InetSocketAddress before = boundBeforeConnect;
        boundBeforeConnect = null;
        if (before != null && localAddress() instanceof java.net.InetSocketAddress now && now.getPort() == 0) {
            super.bind(before);
        }
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
        DATAGRAMS.membership(this::liveFd, unix(), ipv6(), group, nif, join);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.IP_MULTICAST_IF) {
            return DATAGRAMS.setMulticastInterface(this::liveFd, unix(), ipv6(), (NetworkInterface) value);
        }
        boolean applied = super.setOption(option, value);
        if (applied && option == ChannelOption.IP_RECVORIGDSTADDR) {
            recvOrigDstAddr = (Boolean) value;
        }
        return applied;
    }

    /** {@code IP_MULTICAST_IF} is supported on UDP sockets although it reads {@code null} while not chosen. */
    @Override
    public boolean supportsOption(ChannelOption<?> option) throws IOException {
        return option == ChannelOption.IP_MULTICAST_IF ? !unix() && isOpen() : super.supportsOption(option);
    }

    /** @return for {@code IP_MULTICAST_IF}: the chosen interface, or {@code null} while the kernel chooses */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        if (option == ChannelOption.IP_MULTICAST_IF) {
            return (T) DATAGRAMS.multicastInterface(this::liveFd, unix(), ipv6());
        }
        return super.getOption(option);
    }
}
