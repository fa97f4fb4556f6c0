package io.conduit.transport.spi.unix;

import io.conduit.channel.ChannelOption;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * SPI for transport implementers: which {@link ChannelOption}s a Unix transport maps to {@code setsockopt(2)} /
 * {@code getsockopt(2)}, at which level and name, and on which socket kinds. A transport lists its options once
 * ({@link #builder}); level and option numbers are read from its library's {@link NativeConstants} when the table
 * is built, never hard-coded (they differ between Linux, macOS and FreeBSD). The calls follow {@code socket(7)},
 * {@code ip(7)}, {@code ipv6(7)}, {@code tcp(7)} and {@code unix(7)}.
 *
 * <p><b>Values.</b> An option whose {@link ChannelOption#valueType()} is {@link Boolean} is an {@code int} of 0 or
 * 1 to the kernel and any non-zero {@code int} reads back as {@code true}; an {@link Integer} option passes its
 * value unchanged (bytes for buffer sizes, seconds for keep-alive times, milliseconds for
 * {@code TCP_USER_TIMEOUT}: the unit the kernel documents). {@code SO_LINGER} ({@link Builder#linger}) is an
 * {@code Integer} of seconds: a negative value turns lingering off ({@code l_onoff = 0}), and reading it back
 * gives -1 when it is off.
 *
 * <p><b>IPv6 counterparts.</b> Where an IPv4-level option has an IPv6 counterpart ({@code IP_TOS} and
 * {@code IPV6_TCLASS}), {@link Builder#ipv6Also} makes a set on an {@code AF_INET6} socket set both, so a
 * dual-stack socket behaves the same for IPv4 and IPv6 peers (Linux); {@link Builder#ipv6Instead} uses only the
 * IPv6 option on such a socket (the BSDs).
 *
 * <p><b>Errors.</b> A failed call throws the exception {@link UnixErrors#newIoException} makes for it; its message
 * names the call and the kernel's option name, e.g. {@code setsockopt(TCP_NODELAY)(..) failed: Bad file descriptor
 * (errno 9)}.
 *
 * <p>Immutable once built; thread-safe. The socket kinds ({@link #TCP}, {@link #UDP}, …) are bits, so one entry
 * can name several.
 *
 * @since 0.5.0
 */
public final class SocketOptionTable {

    /** A connected (or connecting) TCP socket. */
    public static final int TCP = 1;
    /** A listening TCP socket. */
    public static final int TCP_SERVER = 2;
    /** A UDP socket. */
    public static final int UDP = 4;
    /** A Unix-domain stream socket ({@code AF_UNIX}, {@code SOCK_STREAM}). */
    public static final int UNIX = 8;
    /** A listening Unix-domain stream socket. */
    public static final int UNIX_SERVER = 16;
    /** A Unix-domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}). */
    public static final int UNIX_DGRAM = 32;
    /** Every IP socket kind. */
    public static final int INET = TCP | TCP_SERVER | UDP;
    /** Every socket kind. */
    public static final int ALL = INET | UNIX | UNIX_SERVER | UNIX_DGRAM;

    /** One int or boolean option: the resolved numbers and the names for error messages. */
    private record Spec(int level, int name, boolean bool, int kinds, String setCall, String getCall, Companion ipv6) {
    }

    /**
     * The IPv6 option of an entry: set along with it on an {@code AF_INET6} socket, or ({@code instead}) set and
     * read in its place there.
     */
    private record Companion(int level, int name, boolean checked, boolean instead, String setCall, String getCall) {
    }

    /** option → spec; never modified after construction */
    private final Map<ChannelOption<?>, Spec> specs;
    /** the kinds {@code SO_LINGER} applies to; 0 when the transport does not map it */
    private final int lingerKinds;

    private SocketOptionTable(Map<ChannelOption<?>, Spec> specs, int lingerKinds) {
        this.specs = Map.copyOf(specs);
        this.lingerKinds = lingerKinds;
    }

    /**
     * @param constants the transport library's constants, for the level and option numbers
     * @return an empty builder
     */
    public static Builder builder(NativeConstants constants) {
        return new Builder(constants);
    }

    /**
     * @return {@code true} when the table maps {@code option} for at least one socket kind (for
     *         {@code Transport.supports})
     */
    public boolean maps(ChannelOption<?> option) {
        return specs.containsKey(option) || option == ChannelOption.SO_LINGER && lingerKinds != 0;
    }

    /** @return {@code true} when {@code option} is a socket option of sockets of {@code kind} (one kind bit) */
    public boolean appliesTo(ChannelOption<?> option, int kind) {
        if (option == ChannelOption.SO_LINGER) {
            return (lingerKinds & kind) != 0;
        }
        Spec spec = specs.get(option);
        return spec != null && (spec.kinds & kind) != 0;
    }

    /**
     * Sets {@code option} on descriptor {@code fd}: one {@code setsockopt(2)}, two on an IPv6 socket when the option
     * has a companion.
     *
     * @param kind the socket's kind (one bit)
     * @param ipv6 whether the socket is {@code AF_INET6}
     * @param value the option's value, of its {@link ChannelOption#valueType()}
     * @return {@code false} when the option does not apply to {@code kind} (nothing was called), else {@code true}
     * @throws IOException when the kernel refuses the value (typed by {@link UnixErrors#newIoException})
     */
    public <T> boolean set(SocketCalls calls, UnixErrors errors, int fd, int kind, boolean ipv6,
            ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.SO_LINGER) {
            if ((lingerKinds & kind) == 0) {
                return false;
            }
            int seconds = (Integer) value;
            errors.check("setsockopt(SO_LINGER)", calls.setsockoptLinger(fd, seconds >= 0 ? 1 : 0,
                    Math.max(0, seconds)));
            return true;
        }
        Spec spec = specs.get(option);
        if (spec == null || (spec.kinds & kind) == 0) {
            return false;
        }
        int v = spec.bool ? (((Boolean) value) ? 1 : 0) : (Integer) value;
        Companion c = ipv6 ? spec.ipv6 : null;
        if (c == null || !c.instead) {
            errors.check(spec.setCall, calls.setsockoptInt(fd, spec.level, spec.name, v));
        }
        if (c != null) {
            int r = calls.setsockoptInt(fd, c.level, c.name, v);
            if (c.checked) {
                errors.check(c.setCall, r);
            }
        }
        return true;
    }

    /**
     * Reads {@code option} of descriptor {@code fd} with one {@code getsockopt(2)}; on an IPv6 socket, of the
     * option's IPv6 replacement where it has one ({@link Builder#ipv6Instead}).
     *
     * @param kind the socket's kind (one bit)
     * @param ipv6 whether the socket is {@code AF_INET6}
     * @return the value, of the option's {@link ChannelOption#valueType()}; {@code null} when the option does not
     *         apply to {@code kind}
     * @throws IOException when the call fails (typed by {@link UnixErrors#newIoException})
     */
    @SuppressWarnings("unchecked")
    public <T> T get(SocketCalls calls, UnixErrors errors, int fd, int kind, boolean ipv6, ChannelOption<T> option)
            throws IOException {
        if (option == ChannelOption.SO_LINGER) {
            if ((lingerKinds & kind) == 0) {
                return null;
            }
            int[] out = new int[2];
            errors.check("getsockopt(SO_LINGER)", calls.getsockoptLinger(fd, out));
            return (T) Integer.valueOf(out[0] == 0 ? -1 : out[1]);
        }
        Spec spec = specs.get(option);
        if (spec == null || (spec.kinds & kind) == 0) {
            return null;
        }
        int[] out = new int[1];
        Companion c = ipv6 ? spec.ipv6 : null;
        if (c != null && c.instead) {
            errors.check(c.getCall, calls.getsockoptInt(fd, c.level, c.name, out));
        } else {
            errors.check(spec.getCall, calls.getsockoptInt(fd, spec.level, spec.name, out));
        }
        return (T) (spec.bool ? Boolean.valueOf(out[0] != 0) : Integer.valueOf(out[0]));
    }

    /**
     * Collects a transport's options. Not thread-safe; build once, e.g. in a static initialiser that runs after
     * the library is loaded.
     */
    public static final class Builder {

        private final NativeConstants constants;
        private final Map<ChannelOption<?>, Spec> specs = new HashMap<>();
        private int lingerKinds;

        private Builder(NativeConstants constants) {
            this.constants = Objects.requireNonNull(constants, "constants");
        }

        /**
         * Maps {@code option} to the {@code int} socket option {@code name} at {@code level} on sockets of
         * {@code kinds}.
         *
         * @param level the name of the level constant, e.g. {@code "IPPROTO_TCP"}
         * @param name  the name of the option constant as the kernel spells it, e.g. {@code "TCP_NODELAY"}
         * @param kinds the socket kinds (bits) it applies to
         * @return this builder
         * @throws IllegalArgumentException when the option's value type is neither {@link Boolean} nor
         *         {@link Integer}, or it is {@code SO_LINGER} (see {@link #linger})
         * @throws IllegalStateException when the library does not publish {@code level} or {@code name}
         */
        public Builder option(ChannelOption<?> option, String level, String name, int kinds) {
            Class<?> type = option.valueType();
            if (type != Boolean.class && type != Integer.class || option == ChannelOption.SO_LINGER) {
                throw new IllegalArgumentException(option.name() + " is not an int or boolean socket option");
            }
            specs.put(option, new Spec(constants.get(level), constants.get(name), type == Boolean.class, kinds,
                    "setsockopt(" + name + ")", "getsockopt(" + name + ")", null));
            return this;
        }

        /**
         * On an {@code AF_INET6} socket, a set of {@code option} (mapped before with {@link #option}) also sets
         * {@code name} at {@code level} to the same value.
         *
         * @param checked whether a failure of that second call fails the set ({@code false}: it is best effort)
         * @return this builder
         * @throws IllegalArgumentException when {@code option} is not mapped yet
         * @throws IllegalStateException when the library does not publish {@code level} or {@code name}
         */
        public Builder ipv6Also(ChannelOption<?> option, String level, String name, boolean checked) {
            return ipv6(option, level, name, checked, false);
        }

        /**
         * On an {@code AF_INET6} socket, {@code option} (mapped before with {@link #option}) is {@code name} at
         * {@code level} instead, for both set and get (e.g. {@code IPV6_TCLASS} for {@code IP_TOS} where the
         * system applies only the IPv6 option to an IPv6 socket).
         *
         * @return this builder
         * @throws IllegalArgumentException when {@code option} is not mapped yet
         * @throws IllegalStateException when the library does not publish {@code level} or {@code name}
         */
        public Builder ipv6Instead(ChannelOption<?> option, String level, String name) {
            return ipv6(option, level, name, true, true);
        }

        private Builder ipv6(ChannelOption<?> option, String level, String name, boolean checked, boolean instead) {
            Spec spec = specs.get(option);
            if (spec == null) {
                throw new IllegalArgumentException(option.name() + " is not mapped yet");
            }
            Companion c = new Companion(constants.get(level), constants.get(name), checked, instead,
                    "setsockopt(" + name + ")", "getsockopt(" + name + ")");
            specs.put(option, new Spec(spec.level, spec.name, spec.bool, spec.kinds, spec.setCall, spec.getCall, c));
            return this;
        }

        /**
         * Maps {@code SO_LINGER} ({@code struct linger}, seconds) on sockets of {@code kinds}.
         *
         * @return this builder
         */
        public Builder linger(int kinds) {
            lingerKinds = kinds;
            return this;
        }

        /** @return the table; the builder may not be used afterwards */
        public SocketOptionTable build() {
            return new SocketOptionTable(specs, lingerKinds);
        }
    }
}
