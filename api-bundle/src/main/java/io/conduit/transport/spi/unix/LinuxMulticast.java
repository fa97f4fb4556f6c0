package io.conduit.transport.spi.unix;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Enumeration;
import java.util.Objects;

/**
 * Multicast on a Linux UDP socket, shared by the Linux transports: group membership by interface index and the
 * outgoing interface ({@code IP_MULTICAST_IF}). The structures are laid out with the library's published sizes and
 * offsets, quoted from ip(7) and ipv6(7):
 * <pre>
 * struct ip_mreqn  { struct in_addr imr_multiaddr; struct in_addr imr_address; int imr_ifindex; };
 * struct ipv6_mreq { struct in6_addr ipv6mr_multiaddr; unsigned int ipv6mr_interface; };
 * </pre>
 * An IPv4 group takes {@code IP_ADD_MEMBERSHIP} with a {@code struct ip_mreqn}, on a dual-stack {@code AF_INET6}
 * socket too; an IPv6 group {@code IPV6_ADD_MEMBERSHIP} with a {@code struct ipv6_mreq}.
 *
 * <p>Immutable; thread-safe: every method is a few system calls on the caller's descriptor.
 *
 * @since 0.6.0
 */
public final class LinuxMulticast {

    /** {@code setsockopt(2)} of a struct option: the library's {@code setsockoptBytes}. */
    @FunctionalInterface
    public interface StructOption {
        /** @return 0 or -errno */
        int setsockopt(int fd, int level, int optname, byte[] value, int length);
    }

    private final UnixErrors errors;
    private final SocketCalls calls;
    private final StructOption setStruct;
    private final int ipprotoIp;
    private final int ipprotoIpv6;
    private final int ipAddMembership;
    private final int ipDropMembership;
    private final int ipv6AddMembership;
    private final int ipv6DropMembership;
    private final int ipMulticastIf;
    private final int ipv6MulticastIf;
    private final int mreqnSize;
    private final int mreqnMultiaddr;
    private final int mreqnAddress;
    private final int mreqnIfindex;
    private final int mreq6Size;
    private final int mreq6Multiaddr;
    private final int mreq6Interface;
    private final int eaddrinuse;
    private final int eaddrnotavail;

    /**
     * @param constants the library's constants: {@code IP_MREQN_*}, {@code IPV6_MREQ_*}, the membership and
     *                  {@code *_MULTICAST_IF} option names, {@code EADDRINUSE}, {@code EADDRNOTAVAIL}
     * @param errors    the library's {@code -errno} convention
     * @param calls     the library's socket calls ({@code setsockoptInt}, {@code getsockoptInt})
     * @param setStruct the library's {@code setsockoptBytes}
     * @throws IllegalStateException when the library does not publish a constant read here
     */
    public LinuxMulticast(NativeConstants constants, UnixErrors errors, SocketCalls calls, StructOption setStruct) {
        this.errors = Objects.requireNonNull(errors, "errors");
        this.calls = Objects.requireNonNull(calls, "calls");
        this.setStruct = Objects.requireNonNull(setStruct, "setStruct");
        ipprotoIp = constants.get("IPPROTO_IP");
        ipprotoIpv6 = constants.get("IPPROTO_IPV6");
        ipAddMembership = constants.get("IP_ADD_MEMBERSHIP");
        ipDropMembership = constants.get("IP_DROP_MEMBERSHIP");
        ipv6AddMembership = constants.get("IPV6_ADD_MEMBERSHIP");
        ipv6DropMembership = constants.get("IPV6_DROP_MEMBERSHIP");
        ipMulticastIf = constants.get("IP_MULTICAST_IF");
        ipv6MulticastIf = constants.get("IPV6_MULTICAST_IF");
        mreqnSize = constants.get("IP_MREQN_SIZE");
        mreqnMultiaddr = constants.get("IP_MREQN_MULTIADDR_OFFSET");
        mreqnAddress = constants.get("IP_MREQN_ADDRESS_OFFSET");
        mreqnIfindex = constants.get("IP_MREQN_IFINDEX_OFFSET");
        mreq6Size = constants.get("IPV6_MREQ_SIZE");
        mreq6Multiaddr = constants.get("IPV6_MREQ_MULTIADDR_OFFSET");
        mreq6Interface = constants.get("IPV6_MREQ_INTERFACE_OFFSET");
        eaddrinuse = constants.get("EADDRINUSE");
        eaddrnotavail = constants.get("EADDRNOTAVAIL");
    }

    /**
     * Joins ({@code join}) or leaves {@code group} on {@code nif} ({@code null}: the kernel's choice). Joining a
     * group twice is no error ({@code EADDRINUSE} means "already a member"), nor is leaving one the socket is not in.
     *
     * @param ipv6Socket whether {@code fd} is {@code AF_INET6}
     * @throws IllegalArgumentException when {@code group} is not a multicast address, or an IPv6 group on an
     *         {@code AF_INET} socket
     * @throws IOException when the kernel refuses
     */
    public void membership(int fd, boolean ipv6Socket, InetAddress group, NetworkInterface nif, boolean join)
            throws IOException {
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException(group + " is not a multicast address");
        }
        int ifindex = nif == null ? 0 : nif.getIndex();
        byte[] req;
        int level;
        int name;
        if (group instanceof Inet4Address) {
            req = new byte[mreqnSize];
            ByteBuffer b = SockaddrCodec.wrap(req);
            b.put(mreqnMultiaddr, group.getAddress()); // network byte order, as in_addr
            b.putInt(mreqnIfindex, ifindex);
            level = ipprotoIp;
            name = join ? ipAddMembership : ipDropMembership;
        } else {
            if (!ipv6Socket) {
                throw new IllegalArgumentException("IPv6 group " + group + " on an IPv4-only socket");
            }
            req = new byte[mreq6Size];
            ByteBuffer b = SockaddrCodec.wrap(req);
            b.put(mreq6Multiaddr, group.getAddress());
            b.putInt(mreq6Interface, ifindex);
            level = ipprotoIpv6;
            name = join ? ipv6AddMembership : ipv6DropMembership;
        }
        String call = join ? "setsockopt(ADD_MEMBERSHIP " + group + ")" : "setsockopt(DROP_MEMBERSHIP " + group + ")";
        int r = setStruct.setsockopt(fd, level, name, req, req.length);
        if (r == 0 || (join && r == -eaddrinuse) || (!join && r == -eaddrnotavail)) {
            return; // joined / already a member; left / not a member
        }
        throw errors.newIoException(call, r);
    }

    /**
     * {@code IP_MULTICAST_IF} with a {@code struct ip_mreqn} naming {@code nif} by index and by its first IPv4
     * address (so the option reads back as that address), and on an {@code AF_INET6} socket also
     * {@code IPV6_MULTICAST_IF} with the index. {@code null} restores the kernel's choice (index 0, any address).
     *
     * @throws IllegalArgumentException when {@code nif} has no interface index
     * @throws IOException when the kernel refuses
     */
    public void setInterface(int fd, boolean ipv6Socket, NetworkInterface nif) throws IOException {
        int index = nif == null ? 0 : nif.getIndex();
        if (nif != null && index <= 0) {
            throw new IllegalArgumentException("IP_MULTICAST_IF: network interface " + nif.getName()
                    + " has no interface index; pick one from NetworkInterface.getNetworkInterfaces()");
        }
        byte[] req = new byte[mreqnSize];
        ByteBuffer b = SockaddrCodec.wrap(req);
        Inet4Address v4 = nif == null ? null : firstInet4(nif);
        if (v4 != null) {
            b.put(mreqnAddress, v4.getAddress()); // network byte order, as in_addr
        }
        b.putInt(mreqnIfindex, index);
        String name = nif == null ? "default" : nif.getName();
        int r = setStruct.setsockopt(fd, ipprotoIp, ipMulticastIf, req, req.length);
        if (r < 0) {
            throw errors.newIoException("setsockopt(IP_MULTICAST_IF " + name + ")", r);
        }
        if (ipv6Socket) {
            r = calls.setsockoptInt(fd, ipprotoIpv6, ipv6MulticastIf, index);
            if (r < 0) {
                throw errors.newIoException("setsockopt(IPV6_MULTICAST_IF " + name + ")", r);
            }
        }
    }

    /**
     * Reads the outgoing multicast interface back from the kernel: {@code IPV6_MULTICAST_IF} (an index) on an
     * {@code AF_INET6} socket, else the {@code struct in_addr} {@code IP_MULTICAST_IF} gives.
     *
     * @return the interface, or {@code null} when none was chosen (the kernel routes by destination)
     * @throws IOException when the kernel refuses
     */
    public NetworkInterface getInterface(int fd, boolean ipv6Socket) throws IOException {
        int[] out = new int[1];
        if (ipv6Socket) {
            int r = calls.getsockoptInt(fd, ipprotoIpv6, ipv6MulticastIf, out);
            if (r < 0) {
                throw errors.newIoException("getsockopt(IPV6_MULTICAST_IF)", r);
            }
            return out[0] == 0 ? null : NetworkInterface.getByIndex(out[0]);
        }
        int r = calls.getsockoptInt(fd, ipprotoIp, ipMulticastIf, out);
        if (r < 0) {
            throw errors.newIoException("getsockopt(IP_MULTICAST_IF)", r);
        }
        if (out[0] == 0) {
            return null;
        }
        // the int holds the in_addr's bytes in memory order: network byte order once written natively
        byte[] address = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.nativeOrder()).putInt(out[0]).array();
        return NetworkInterface.getByInetAddress(InetAddress.getByAddress(address));
    }

    private static Inet4Address firstInet4(NetworkInterface nif) {
        for (Enumeration<InetAddress> e = nif.getInetAddresses(); e.hasMoreElements();) {
            if (e.nextElement() instanceof Inet4Address a) {
                return a;
            }
        }
        return null;
    }
}
