package io.conduit.transport.spi.unix;

import io.conduit.channel.UnixAbstractAddress;
import io.conduit.transport.spi.AddressErrors;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * SPI for transport implementers: encodes and decodes raw socket addresses with the sizes, offsets and family
 * numbers the transport's native library publishes ({@link NativeConstants}, from the shared
 * {@code conduit_unix.c}):
 * <pre>
 * struct sockaddr_in  { [u_char sin_len;] sa_family_t sin_family; in_port_t sin_port; struct in_addr sin_addr; ... };
 * struct sockaddr_in6 { [u_char sin6_len;] sa_family_t sin6_family; in_port_t sin6_port; uint32_t sin6_flowinfo;
 *                       struct in6_addr sin6_addr; uint32_t sin6_scope_id; };
 * struct sockaddr_un  { [u_char sun_len;] sa_family_t sun_family; char sun_path[108 on Linux, 104 on the BSDs]; };
 * </pre>
 * The BSDs have a length byte first and a one-byte {@code sa_family_t}; ports are in network byte order, the
 * family and scope id in host byte order.
 *
 * <p>Addresses: {@link InetSocketAddress} ({@code AF_INET}, or {@code AF_INET6} with IPv4-mapped addresses on an
 * IPv6 socket), {@link UnixDomainSocketAddress} (a path, NUL-terminated in {@code sun_path}; an empty path is an
 * unnamed socket) and — only when made with {@code abstractNames} ({@code unix(7)}, Linux) —
 * {@link UnixAbstractAddress} ({@code sun_path[0] = '\0'}, then the name, delimited by the length).
 *
 * <p>Works on any native-order {@link ByteBuffer} (the caller's buffer must be in native order; its order is never
 * changed): a wrapped {@code byte[]} for bind/connect/sendto, or {@link NativeMemory} for batches. An "address
 * out" array ({@link #newAddressOut()}) receives the {@code socklen_t} length as a native-order int, then the
 * sockaddr bytes. Immutable; thread-safe.
 */
public final class SockaddrCodec {

    /** whether {@link UnixAbstractAddress} can be encoded (Linux) */
    private final boolean abstractNames;
    private final int saFamilySize;
    private final int storageSize;
    private final int addressOutSize;
    private final int afUnspec;
    private final int afInet;
    private final int afInet6;
    private final int afUnix;
    private final int inSize;
    private final int inFamilyOffset;
    private final int inPortOffset;
    private final int inAddrOffset;
    private final int in6Size;
    private final int in6FamilyOffset;
    private final int in6PortOffset;
    private final int in6AddrOffset;
    private final int in6ScopeIdOffset;
    private final int unSize;
    private final int unFamilyOffset;
    private final int unPathOffset;

    /**
     * @param constants     the library's constants ({@code SA_FAMILY_SIZE}, {@code SOCKADDR_*}, {@code AF_*})
     * @param abstractNames {@code true} where the kernel has the Linux abstract namespace (the epoll transport):
     *                      {@link UnixAbstractAddress} can then be encoded; otherwise it is rejected
     * @throws IllegalStateException when a constant is missing
     */
    public SockaddrCodec(NativeConstants constants, boolean abstractNames) {
        this.abstractNames = abstractNames;
        saFamilySize = constants.get("SA_FAMILY_SIZE");
        storageSize = constants.get("SOCKADDR_STORAGE_SIZE");
        addressOutSize = constants.get("ADDRESS_OUT_SIZE");
        afUnspec = constants.get("AF_UNSPEC");
        afInet = constants.get("AF_INET");
        afInet6 = constants.get("AF_INET6");
        afUnix = constants.get("AF_UNIX");
        inSize = constants.get("SOCKADDR_IN_SIZE");
        inFamilyOffset = constants.get("SOCKADDR_IN_FAMILY_OFFSET");
        inPortOffset = constants.get("SOCKADDR_IN_PORT_OFFSET");
        inAddrOffset = constants.get("SOCKADDR_IN_ADDR_OFFSET");
        in6Size = constants.get("SOCKADDR_IN6_SIZE");
        in6FamilyOffset = constants.get("SOCKADDR_IN6_FAMILY_OFFSET");
        in6PortOffset = constants.get("SOCKADDR_IN6_PORT_OFFSET");
        in6AddrOffset = constants.get("SOCKADDR_IN6_ADDR_OFFSET");
        in6ScopeIdOffset = constants.get("SOCKADDR_IN6_SCOPE_ID_OFFSET");
        unSize = constants.get("SOCKADDR_UN_SIZE");
        unFamilyOffset = constants.get("SOCKADDR_UN_FAMILY_OFFSET");
        unPathOffset = constants.get("SOCKADDR_UN_PATH_OFFSET");
    }

    /** @return a native-order view of {@code bytes} */
    public static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }

    /** @return a zeroed array large enough for any sockaddr ({@code sizeof(struct sockaddr_storage)}) */
    public byte[] newSockaddr() {
        return new byte[storageSize];
    }

    /** @return a zeroed "address out" array: a {@code socklen_t} length as a native-order int, then a sockaddr */
    public byte[] newAddressOut() {
        return new byte[addressOutSize];
    }

    /** @return {@code sizeof(struct sockaddr_storage)}, bytes */
    public int storageSize() {
        return storageSize;
    }

    /**
     * Writes {@code address} at {@code offset} (zeroing {@code sizeof(struct sockaddr_storage)} bytes first).
     *
     * @param ipv6Socket {@code true} for an {@code AF_INET6} socket: IPv4 addresses become IPv4-mapped IPv6
     * @return the sockaddr length ({@code socklen_t}) to pass with it
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved address (with a message)
     * @throws java.nio.channels.UnsupportedAddressTypeException for an unsupported address type, or an
     *         {@link UnixAbstractAddress} on a codec without abstract names (with a message)
     * @throws IllegalArgumentException for a Unix path or abstract name too long for {@code sun_path}
     */
    public int encode(SocketAddress address, ByteBuffer out, int offset, boolean ipv6Socket) {
        for (int i = 0; i < storageSize; i++) {
            out.put(offset + i, (byte) 0);
        }
        if (address instanceof InetSocketAddress) {
            return encodeInet((InetSocketAddress) address, out, offset, ipv6Socket);
        }
        if (address instanceof UnixDomainSocketAddress) {
            byte[] path = ((UnixDomainSocketAddress) address).getPath().toString().getBytes(StandardCharsets.UTF_8);
            int room = unSize - unPathOffset - 1; // keep the NUL
            if (path.length > room) {
                throw new IllegalArgumentException("Unix socket path of " + path.length + " bytes exceeds the "
                        + room + " bytes of sun_path: " + address);
            }
            putFamily(out, offset + unFamilyOffset, afUnix);
            out.put(offset + unPathOffset, path);
            return unPathOffset + path.length + 1;
        }
        if (address instanceof UnixAbstractAddress) {
            UnixAbstractAddress name = (UnixAbstractAddress) address;
            if (!abstractNames) {
                throw AddressErrors.abstractUnsupported(name);
            }
            int room = unSize - unPathOffset - 1; // after the leading NUL
            if (name.length() > room) {
                throw new IllegalArgumentException("abstract Unix socket name of " + name.length()
                        + " bytes exceeds the " + room + " bytes sun_path has after its leading NUL: " + address);
            }
            putFamily(out, offset + unFamilyOffset, afUnix);
            out.put(offset + unPathOffset + 1, name.bytes()); // sun_path[0] stays '\0'
            return unPathOffset + 1 + name.length(); // no terminating NUL: the length delimits the name
        }
        throw AddressErrors.unsupported(address);
    }

    private int encodeInet(InetSocketAddress inet, ByteBuffer out, int offset, boolean ipv6Socket) {
        InetAddress ip = inet.getAddress();
        if (ip == null) {
            throw AddressErrors.unresolved(inet);
        }
        if (ip instanceof Inet4Address && !ipv6Socket) {
            putFamily(out, offset + inFamilyOffset, afInet);
            putPort(out, offset + inPortOffset, inet.getPort());
            out.put(offset + inAddrOffset, ip.getAddress());
            return inSize;
        }
        byte[] bytes = ip.getAddress();
        if (bytes.length == 4) { // IPv4-mapped: ::ffff:a.b.c.d
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(bytes, 0, mapped, 12, 4);
            bytes = mapped;
        }
        putFamily(out, offset + in6FamilyOffset, afInet6);
        putPort(out, offset + in6PortOffset, inet.getPort());
        out.put(offset + in6AddrOffset, bytes);
        int scope = ip instanceof Inet6Address ? ((Inet6Address) ip).getScopeId() : 0;
        out.putInt(offset + in6ScopeIdOffset, scope);
        return in6Size;
    }

    /** {@link #encode(SocketAddress, ByteBuffer, int, boolean)} into {@code out[0..]}. */
    public int encode(SocketAddress address, byte[] out, boolean ipv6Socket) {
        return encode(address, wrap(out), 0, ipv6Socket);
    }

    /**
     * @param length the {@code socklen_t} the kernel reported
     * @return the address, or {@code null} for {@code AF_UNSPEC} / an empty address; an unnamed Unix socket is
     *         {@code UnixDomainSocketAddress.of("")}, a name in the abstract namespace an {@link UnixAbstractAddress}
     *         (only on a codec with abstract names; without them a {@code sun_path} starting with NUL is unnamed)
     * @throws IllegalArgumentException for an unknown family
     */
    public SocketAddress decode(ByteBuffer in, int offset, int length) {
        if (length < saFamilySize) {
            return null;
        }
        int family = getFamily(in, offset);
        if (family == afInet) {
            byte[] ip = new byte[4];
            in.get(offset + inAddrOffset, ip);
            return new InetSocketAddress(inetAddress(ip, 0), port(in, offset + inPortOffset));
        }
        if (family == afInet6) {
            byte[] ip = new byte[16];
            in.get(offset + in6AddrOffset, ip);
            int scope = in.getInt(offset + in6ScopeIdOffset);
            return new InetSocketAddress(inetAddress(ip, scope), port(in, offset + in6PortOffset));
        }
        if (family == afUnix) {
            byte[] path = new byte[Math.max(0, Math.min(length, unSize) - unPathOffset)];
            in.get(offset + unPathOffset, path);
            // unix(7): abstract, the length delimits the name. Without abstract names a leading NUL is an unnamed
            // socket: the BSDs report an unnamed sender as a zero-filled sockaddr_un (sun_noname), not as length 0
            if (abstractNames && path.length > 0 && path[0] == 0) {
                byte[] name = new byte[path.length - 1];
                System.arraycopy(path, 1, name, 0, name.length);
                return UnixAbstractAddress.of(name);
            }
            int end = 0;
            while (end < path.length && path[end] != 0) {
                end++;
            }
            return UnixDomainSocketAddress.of(new String(path, 0, end, StandardCharsets.UTF_8));
        }
        if (family == afUnspec) {
            return null;
        }
        throw new IllegalArgumentException("unsupported address family " + family);
    }

    /** Decodes an "address out" array: a native-order int length, then the sockaddr. */
    public SocketAddress decodeAddressOut(byte[] addressOut) {
        ByteBuffer in = wrap(addressOut);
        return decode(in, Integer.BYTES, in.getInt(0));
    }

    /** in_port_t is in network byte order; written bytewise so the buffer's own order never changes */
    private static void putPort(ByteBuffer out, int offset, int port) {
        out.put(offset, (byte) (port >>> 8));
        out.put(offset + 1, (byte) port);
    }

    private static int port(ByteBuffer in, int offset) {
        return (Byte.toUnsignedInt(in.get(offset)) << 8) | Byte.toUnsignedInt(in.get(offset + 1));
    }

    private static InetAddress inetAddress(byte[] ip, int scopeId) {
        try {
            InetAddress address = InetAddress.getByAddress(ip); // IPv4-mapped IPv6 comes back as Inet4Address
            if (scopeId != 0 && address instanceof Inet6Address) {
                return Inet6Address.getByAddress(null, ip, scopeId);
            }
            return address;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("invalid IP address length " + ip.length, e);
        }
    }

    private void putFamily(ByteBuffer out, int offset, int family) {
        if (saFamilySize == Short.BYTES) {
            out.putShort(offset, (short) family);
        } else {
            out.put(offset, (byte) family);
        }
    }

    private int getFamily(ByteBuffer in, int offset) {
        return saFamilySize == Short.BYTES ? Short.toUnsignedInt(in.getShort(offset))
                : Byte.toUnsignedInt(in.get(offset));
    }
}
