package io.conduit.kqueue;

import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.unix.NativeMemory;

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
 * Encodes and decodes raw {@code struct sockaddr_in}, {@code sockaddr_in6} and {@code sockaddr_un} (quoted
 * on {@link Native#SA_FAMILY_SIZE}) with the sizes, offsets and family numbers the library publishes. Works on
 * any native-order {@link ByteBuffer} (the caller's buffer must be in native order; its order is never changed): a wrapped {@code byte[]} for bind/connect/sendto, or
 * {@link NativeMemory} for {@code mmsghdr} batches. Stateless and thread-safe.
 */
final class Sockaddr {

    private Sockaddr() {
    }

    /** @return a native-order view of {@code bytes} */
    static ByteBuffer wrap(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }

    /** @return a zeroed array large enough for any sockaddr ({@code sizeof(struct sockaddr_storage)}) */
    static byte[] newSockaddr() {
        return new byte[NativeAbi.SOCKADDR_STORAGE_SIZE];
    }

    /**
     * Writes {@code address} at {@code offset} (zeroing the struct first).
     *
     * @param ipv6Socket {@code true} for an {@code AF_INET6} socket: IPv4 addresses become IPv4-mapped IPv6
     * @return the sockaddr length ({@code socklen_t}) to pass with it
     * @throws java.nio.channels.UnresolvedAddressException for an unresolved address (with a message)
     * @throws java.nio.channels.UnsupportedAddressTypeException for an unsupported address type (with a message)
     * @throws IllegalArgumentException for a too-long Unix path
     */
    static int encode(SocketAddress address, ByteBuffer out, int offset, boolean ipv6Socket) {
        for (int i = 0; i < NativeAbi.SOCKADDR_STORAGE_SIZE; i++) {
            out.put(offset + i, (byte) 0);
        }
        if (address instanceof InetSocketAddress) {
            InetSocketAddress inet = (InetSocketAddress) address;
            InetAddress ip = inet.getAddress();
            if (ip == null) {
                throw AddressErrors.unresolved(inet);
            }
            if (ip instanceof Inet4Address && !ipv6Socket) {
                putFamily(out, offset + NativeAbi.SOCKADDR_IN_FAMILY_OFFSET, NativeAbi.AF_INET);
                putPort(out, offset + NativeAbi.SOCKADDR_IN_PORT_OFFSET, inet.getPort());
                out.put(offset + NativeAbi.SOCKADDR_IN_ADDR_OFFSET, ip.getAddress());
                return NativeAbi.SOCKADDR_IN_SIZE;
            }
            byte[] bytes = ip.getAddress();
            if (bytes.length == 4) { // IPv4-mapped: ::ffff:a.b.c.d
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(bytes, 0, mapped, 12, 4);
                bytes = mapped;
            }
            putFamily(out, offset + NativeAbi.SOCKADDR_IN6_FAMILY_OFFSET, NativeAbi.AF_INET6);
            putPort(out, offset + NativeAbi.SOCKADDR_IN6_PORT_OFFSET, inet.getPort());
            out.put(offset + NativeAbi.SOCKADDR_IN6_ADDR_OFFSET, bytes);
            int scope = ip instanceof Inet6Address ? ((Inet6Address) ip).getScopeId() : 0;
            out.putInt(offset + NativeAbi.SOCKADDR_IN6_SCOPE_ID_OFFSET, scope);
            return NativeAbi.SOCKADDR_IN6_SIZE;
        }
        if (address instanceof UnixDomainSocketAddress) {
            byte[] path = ((UnixDomainSocketAddress) address).getPath().toString().getBytes(StandardCharsets.UTF_8);
            int room = NativeAbi.SOCKADDR_UN_SIZE - NativeAbi.SOCKADDR_UN_PATH_OFFSET - 1; // keep the NUL
            if (path.length > room) {
                throw new IllegalArgumentException("Unix socket path of " + path.length + " bytes exceeds the "
                        + room + " bytes of sun_path: " + address);
            }
            putFamily(out, offset + NativeAbi.SOCKADDR_UN_FAMILY_OFFSET, NativeAbi.AF_UNIX);
            out.put(offset + NativeAbi.SOCKADDR_UN_PATH_OFFSET, path);
            return NativeAbi.SOCKADDR_UN_PATH_OFFSET + path.length + 1;
        }
        throw AddressErrors.unsupported(address);
    }

    /** {@link #encode(SocketAddress, ByteBuffer, int, boolean)} into {@code out[0..]}. */
    static int encode(SocketAddress address, byte[] out, boolean ipv6Socket) {
        return encode(address, wrap(out), 0, ipv6Socket);
    }

    /**
     * @param length the {@code socklen_t} the kernel reported
     * @return the address, or {@code null} for {@code AF_UNSPEC} / an empty address
     * @throws IllegalArgumentException for an unknown family
     */
    static SocketAddress decode(ByteBuffer in, int offset, int length) {
        if (length < NativeAbi.SA_FAMILY_SIZE) {
            return null;
        }
        int family = getFamily(in, offset);
        if (family == NativeAbi.AF_INET) {
            byte[] ip = new byte[4];
            in.get(offset + NativeAbi.SOCKADDR_IN_ADDR_OFFSET, ip);
            return new InetSocketAddress(inetAddress(ip, 0), port(in, offset + NativeAbi.SOCKADDR_IN_PORT_OFFSET));
        }
        if (family == NativeAbi.AF_INET6) {
            byte[] ip = new byte[16];
            in.get(offset + NativeAbi.SOCKADDR_IN6_ADDR_OFFSET, ip);
            int scope = in.getInt(offset + NativeAbi.SOCKADDR_IN6_SCOPE_ID_OFFSET);
            return new InetSocketAddress(inetAddress(ip, scope), port(in, offset + NativeAbi.SOCKADDR_IN6_PORT_OFFSET));
        }
        if (family == NativeAbi.AF_UNIX) {
            int pathLength = length - NativeAbi.SOCKADDR_UN_PATH_OFFSET;
            byte[] path = new byte[Math.max(0, pathLength)];
            in.get(offset + NativeAbi.SOCKADDR_UN_PATH_OFFSET, path);
            int end = 0;
            while (end < path.length && path[end] != 0) {
                end++;
            }
            return UnixDomainSocketAddress.of(new String(path, 0, end, StandardCharsets.UTF_8));
        }
        if (family == NativeAbi.AF_UNSPEC) {
            return null;
        }
        throw new IllegalArgumentException("unsupported address family " + family);
    }

    /** Decodes an "address out" array: a native-order int length, then the sockaddr. */
    static SocketAddress decodeAddressOut(byte[] addressOut) {
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

    private static void putFamily(ByteBuffer out, int offset, int family) {
        if (NativeAbi.SA_FAMILY_SIZE == Short.BYTES) {
            out.putShort(offset, (short) family);
        } else {
            out.put(offset, (byte) family);
        }
    }

    private static int getFamily(ByteBuffer in, int offset) {
        return NativeAbi.SA_FAMILY_SIZE == Short.BYTES ? Short.toUnsignedInt(in.getShort(offset))
                : Byte.toUnsignedInt(in.get(offset));
    }
}
