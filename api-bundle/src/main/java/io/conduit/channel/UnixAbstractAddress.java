package io.conduit.channel;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A Unix-domain socket address in the Linux <em>abstract namespace</em> ({@code unix(7)}): {@code sun_path[0]}
 * is {@code '\0'} and the name is the following bytes, delimited by the address length rather than by a NUL, so
 * it may hold any byte (NUL included). No file is created at {@code bind(2)} and none is left behind; the name is
 * released when the last socket bound to it closes. {@link java.net.UnixDomainSocketAddress} cannot express such
 * names, hence this type.
 *
 * <p><b>Linux only, epoll and io_uring transports only</b>: bind and connect it on a
 * {@link io.conduit.transport.ChannelType#UNIX_STREAM UNIX_STREAM} channel of the {@code epoll} or {@code io_uring}
 * transport; every other transport ({@code nio}, {@code kqueue}) rejects it with an
 * {@link java.nio.channels.UnsupportedAddressTypeException} naming the address. Channels bound or connected to one
 * report it from {@link Channel#localAddress()} / {@link Channel#remoteAddress()}. The name is at most
 * {@code sizeof(sun_path) - 1} bytes (107 on Linux); a longer one fails at bind/connect with an
 * {@link IllegalArgumentException}.
 *
 * <p>{@link #toString()} reads {@code @name} (as {@code ss(8)} shows abstract names), with control characters
 * escaped as {@code \xNN}. Equality is by the name's bytes. Immutable; thread-safe.
 */
public final class UnixAbstractAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;

    /** the name without the leading NUL; never modified, never handed out */
    private final byte[] name;

    private UnixAbstractAddress(byte[] name) {
        this.name = name;
    }

    /**
     * @param name the abstract name without the leading NUL, encoded as UTF-8 (may contain any character)
     * @return the address
     * @throws NullPointerException when {@code name} is null
     */
    public static UnixAbstractAddress of(String name) {
        return new UnixAbstractAddress(name.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param name the abstract name's bytes without the leading NUL (copied)
     * @return the address
     * @throws NullPointerException when {@code name} is null
     */
    public static UnixAbstractAddress of(byte[] name) {
        return new UnixAbstractAddress(name.clone());
    }

    /** @return the name decoded as UTF-8 (bytes that are no UTF-8 become U+FFFD) */
    public String name() {
        return new String(name, StandardCharsets.UTF_8);
    }

    /** @return a copy of the name's bytes, without the leading NUL */
    public byte[] bytes() {
        return name.clone();
    }

    /** @return the name's length in bytes */
    public int length() {
        return name.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UnixAbstractAddress && Arrays.equals(name, ((UnixAbstractAddress) o).name);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(name);
    }

    /** @return {@code @name}, control characters (NUL included) escaped as {@code \xNN} */
    @Override
    public String toString() {
        String text = name();
        StringBuilder b = new StringBuilder(text.length() + 1).append('@');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
