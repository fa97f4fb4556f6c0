package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;
import static io.conduit.kqueue.NativeAbi.SOCKADDR;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.unix.NativeMemory;

import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * A UDP socket (dual-stack {@code AF_INET6}, or {@code AF_INET}): {@code recvfrom(2)}, {@code sendto(2)}, and
 * {@code send(2)} to the connected peer (also for empty datagrams). Loop thread only, except options.
 *
 * <p>Connected, it sends to its peer only: a datagram with no target or with the peer as target goes out with
 * {@code send(2)}, one to another address fails (Linux would send it, BSD fails with {@code EISCONN}: one rule
 * for every transport, see {@link io.conduit.channel.DatagramChannel}), and a second {@code connect} fails until
 * {@code disconnect}. Address errors carry messages ({@link AddressErrors}).
 */
final class KQueueDatagramSocket extends KQueueSocket implements IoDatagramSocket {

    /** connected to a peer; loop-confined */
    private boolean connected;
    /** the connected peer; written on the loop, read anywhere */
    private volatile SocketAddress remote;

    KQueueDatagramSocket(int fd, int family) {
        super(fd, family);
    }

    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        int want = dst.remaining();
        long address = addressAtPosition(dst);
        NativeMemory scratch = null;
        if (address == 0 || want == 0) {
            KQueueIoHandler h = handler();
            scratch = h != null ? h.scratch() : NativeMemory.allocate(64 * 1024, Native::addressOf);
            want = Math.min(want, scratch.size());
            address = scratch.address();
        }
        byte[] out = new byte[NativeAbi.ADDRESS_OUT_SIZE];
        int n = Native.recvfrom(fd(), address, want, out);
        Reference.reachabilityFence(dst);
        if (n < 0) {
            inputMaybeMore = false;
            if (ERRORS.isAgain(n) || ERRORS.isInterrupted(n)) {
                return null;
            }
            throw ERRORS.newIoException("recvfrom", n);
        }
        inputMaybeMore = true;
        int taken = Math.min(n, want); // a longer datagram was cut to the buffer
        if (scratch != null) {
            dst.put(scratch.buffer().slice(0, taken));
        } else {
            dst.position(dst.position() + taken);
        }
        SocketAddress sender = SOCKADDR.decodeAddressOut(out);
        return sender != null ? sender : remote;
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
        long address = addressAtPosition(src);
        if (address == 0) {
            KQueueIoHandler h = handler();
            NativeMemory scratch = h != null ? h.scratch() : NativeMemory.allocate(Math.max(1, length), Native::addressOf);
            if (length > scratch.size()) {
                throw new IOException("sendto(..) failed: a datagram of " + length + " bytes from a heap buffer"
                        + " exceeds the " + scratch.size() + " bytes of scratch memory; send it from a direct buffer");
            }
            scratch.buffer().put(0, src, src.position(), length);
            address = scratch.address();
        }
        int n;
        if (target == null) {
            n = Native.send(fd(), address, length);
        } else {
            int[] saLength = new int[1];
            byte[] sa = encode(target, saLength);
            n = Native.sendto(fd(), address, length, sa, saLength[0]);
        }
        Reference.reachabilityFence(src);
        if (n < 0) {
            if (ERRORS.isAgain(n) || ERRORS.isInterrupted(n) || n == -NativeAbi.ENOBUFS) {
                return false;
            }
            throw ERRORS.newIoException(target == null ? "send" : "sendto", n);
        }
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

    @Override
    public void disconnect() throws IOException {
        ERRORS.check("connect(AF_UNSPEC)", Native.disconnect(fd()));
        connected = false;
        remote = null;
    }

    @Override
    String kind() {
        return "UDP";
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

    @Override
    int[] optionCode(ChannelOption<?> option) {
        if (option == ChannelOption.SO_BROADCAST) {
            return new int[] {NativeAbi.SOL_SOCKET, NativeAbi.SO_BROADCAST};
        }
        if (option == ChannelOption.IP_MULTICAST_TTL) {
            return ipv6() ? new int[] {NativeAbi.IPPROTO_IPV6, NativeAbi.IPV6_MULTICAST_HOPS}
                    : new int[] {NativeAbi.IPPROTO_IP, NativeAbi.IP_MULTICAST_TTL};
        }
        if (option == ChannelOption.IP_MULTICAST_LOOP) {
            return ipv6() ? new int[] {NativeAbi.IPPROTO_IPV6, NativeAbi.IPV6_MULTICAST_LOOP}
                    : new int[] {NativeAbi.IPPROTO_IP, NativeAbi.IP_MULTICAST_LOOP};
        }
        return super.optionCode(option);
    }
}
