package io.conduit.channel;

import java.net.NetworkInterface;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.conduit.buffer.BufferAllocator;

/**
 * A typed channel option. Every option is declared once, here, whether every transport supports it
 * (standard options) or only a native one ({@linkplain #isNativeOnly() native-only} options such as
 * {@link #SO_REUSEPORT} or {@link #TCP_CORK}). {@code Transport.supports(option)} tells which transport
 * honours which option; setting an option a transport lacks is ignored with one warning that names the
 * option and the transport, so an application written for epoll still runs after a fallback to NIO.
 *
 * <p>Socket-level names and meanings are those of {@code socket(7)}, {@code tcp(7)}, {@code ip(7)} and
 * {@code udp(7)}; units are in the option name or its javadoc. Options are compared by identity and are
 * unique by name ({@link #valueOf(String)}).
 *
 * @param <T> the value type
 */
public final class ChannelOption<T> {

    private static final Map<String, ChannelOption<?>> BY_NAME = new ConcurrentHashMap<>();

    // ---- options of the channel core (every transport)

    /** The allocator for read buffers. Default: {@link BufferAllocator#pooled()}. */
    public static final ChannelOption<BufferAllocator> ALLOCATOR = standard("ALLOCATOR", BufferAllocator.class);
    /** Read whenever data is available, without {@link Channel#read()} calls. Default: {@code true}. */
    public static final ChannelOption<Boolean> AUTO_READ = standard("AUTO_READ", Boolean.class);
    /** Connect timeout in milliseconds; 0 = none. Default: 30,000. */
    public static final ChannelOption<Integer> CONNECT_TIMEOUT_MILLIS = standard("CONNECT_TIMEOUT_MILLIS", Integer.class);
    /** Most write system calls per flush before yielding to other channels of the loop. Default: 16. */
    public static final ChannelOption<Integer> WRITE_SPIN_COUNT = standard("WRITE_SPIN_COUNT", Integer.class);
    /** Water marks of the outbound buffer. Default: {@link WriteBufferWaterMark#DEFAULT}. */
    public static final ChannelOption<WriteBufferWaterMark> WRITE_BUFFER_WATER_MARK =
            standard("WRITE_BUFFER_WATER_MARK", WriteBufferWaterMark.class);
    /** Most messages (reads) per read operation before yielding. Default: 16. */
    public static final ChannelOption<Integer> MAX_MESSAGES_PER_READ = standard("MAX_MESSAGES_PER_READ", Integer.class);
    /** Keep the output open after the peer's end-of-stream; see {@link DuplexChannel}. Default: {@code false}. */
    public static final ChannelOption<Boolean> ALLOW_HALF_CLOSURE = standard("ALLOW_HALF_CLOSURE", Boolean.class);

    // ---- standard socket options (every transport)

    /**
     * Listen backlog ({@code listen(2)}). Default, the same on every transport: on Linux {@code net.core.somaxconn}
     * (read from {@code /proc/sys/net/core/somaxconn}), elsewhere 4096, which the kernel caps at its own limit; a
     * listener's {@code getOption} answers the backlog it uses.
     */
    public static final ChannelOption<Integer> SO_BACKLOG = standard("SO_BACKLOG", Integer.class);
    public static final ChannelOption<Boolean> SO_BROADCAST = standard("SO_BROADCAST", Boolean.class);
    public static final ChannelOption<Boolean> SO_KEEPALIVE = standard("SO_KEEPALIVE", Boolean.class);
    /** Send buffer size in bytes. */
    public static final ChannelOption<Integer> SO_SNDBUF = standard("SO_SNDBUF", Integer.class);
    /** Receive buffer size in bytes. */
    public static final ChannelOption<Integer> SO_RCVBUF = standard("SO_RCVBUF", Integer.class);
    public static final ChannelOption<Boolean> SO_REUSEADDR = standard("SO_REUSEADDR", Boolean.class);
    /** Linger on close, in seconds; 0 = reset, negative = off. A positive value closes off the event loop. */
    public static final ChannelOption<Integer> SO_LINGER = standard("SO_LINGER", Integer.class);
    public static final ChannelOption<Integer> IP_TOS = standard("IP_TOS", Integer.class);
    public static final ChannelOption<NetworkInterface> IP_MULTICAST_IF = standard("IP_MULTICAST_IF", NetworkInterface.class);
    public static final ChannelOption<Integer> IP_MULTICAST_TTL = standard("IP_MULTICAST_TTL", Integer.class);
    public static final ChannelOption<Boolean> IP_MULTICAST_LOOP = standard("IP_MULTICAST_LOOP", Boolean.class);
    public static final ChannelOption<Boolean> TCP_NODELAY = standard("TCP_NODELAY", Boolean.class);

    // ---- native-only options (declared once; Transport.supports(option) answers per transport)

    /** {@code SO_REUSEPORT}: several sockets may bind the same address and port. */
    public static final ChannelOption<Boolean> SO_REUSEPORT = nativeOnly("SO_REUSEPORT", Boolean.class);
    /** {@code SO_BUSY_POLL}: microseconds to busy-poll the device queue on blocking receives. */
    public static final ChannelOption<Integer> SO_BUSY_POLL = nativeOnly("SO_BUSY_POLL", Integer.class);
    /** {@code TCP_FASTOPEN_CONNECT}: send data in the SYN when a Fast Open cookie is cached. */
    public static final ChannelOption<Boolean> TCP_FASTOPEN_CONNECT = nativeOnly("TCP_FASTOPEN_CONNECT", Boolean.class);
    /** {@code TCP_FASTOPEN} on a listener: the Fast Open queue length. */
    public static final ChannelOption<Integer> TCP_FASTOPEN = nativeOnly("TCP_FASTOPEN", Integer.class);
    /** {@code IP_FREEBIND}: bind to an address not (yet) configured on this host. */
    public static final ChannelOption<Boolean> IP_FREEBIND = nativeOnly("IP_FREEBIND", Boolean.class);
    /** {@code IP_TRANSPARENT}: transparent proxying; needs {@code CAP_NET_ADMIN}. */
    public static final ChannelOption<Boolean> IP_TRANSPARENT = nativeOnly("IP_TRANSPARENT", Boolean.class);
    /** {@code IP_RECVORIGDSTADDR}: received datagrams carry their original destination as recipient. */
    public static final ChannelOption<Boolean> IP_RECVORIGDSTADDR = nativeOnly("IP_RECVORIGDSTADDR", Boolean.class);
    /** {@code TCP_CORK}: hold partial frames until uncorked. */
    public static final ChannelOption<Boolean> TCP_CORK = nativeOnly("TCP_CORK", Boolean.class);
    /** {@code TCP_QUICKACK}: acknowledge at once instead of delayed ACKs. */
    public static final ChannelOption<Boolean> TCP_QUICKACK = nativeOnly("TCP_QUICKACK", Boolean.class);
    /** {@code TCP_USER_TIMEOUT}: milliseconds transmitted data may stay unacknowledged before the connection is dropped. */
    public static final ChannelOption<Integer> TCP_USER_TIMEOUT = nativeOnly("TCP_USER_TIMEOUT", Integer.class);
    /** {@code TCP_NOTSENT_LOWAT}: bytes of unsent data below which the socket polls writable. */
    public static final ChannelOption<Integer> TCP_NOTSENT_LOWAT = nativeOnly("TCP_NOTSENT_LOWAT", Integer.class);
    /** {@code TCP_KEEPIDLE}: seconds idle before keep-alive probes start. */
    public static final ChannelOption<Integer> TCP_KEEPIDLE = nativeOnly("TCP_KEEPIDLE", Integer.class);
    /** {@code TCP_KEEPINTVL}: seconds between keep-alive probes. */
    public static final ChannelOption<Integer> TCP_KEEPINTVL = nativeOnly("TCP_KEEPINTVL", Integer.class);
    /** {@code TCP_KEEPCNT}: unanswered probes before the connection is dropped. */
    public static final ChannelOption<Integer> TCP_KEEPCNT = nativeOnly("TCP_KEEPCNT", Integer.class);
    /**
     * {@code SO_ACCEPTFILTER} on a listener (FreeBSD {@code accf(9)}): the name of an accept filter, e.g.
     * {@code "dataready"} or {@code "httpready"}, that holds connections until they have data; the empty
     * string removes it. Set after bind (the listener must be listening).
     */
    public static final ChannelOption<String> SO_ACCEPTFILTER = nativeOnly("SO_ACCEPTFILTER", String.class);
    /** {@code TCP_NOPUSH} (BSD, macOS): hold partial segments until the option is cleared, like Linux {@code TCP_CORK}. */
    public static final ChannelOption<Boolean> TCP_NOPUSH = nativeOnly("TCP_NOPUSH", Boolean.class);
    /** {@code SO_SNDLOWAT}: bytes of send-buffer space below which the socket does not poll writable (not settable on Linux). */
    public static final ChannelOption<Integer> SO_SNDLOWAT = nativeOnly("SO_SNDLOWAT", Integer.class);
    /**
     * Bytes: a send of at least this many bytes is a zero-copy send, where the kernel reads the transport's send
     * buffer in place instead of copying it ({@code IORING_OP_SEND_ZC}, Linux 6.0, io_uring transport; see
     * {@code io_uring_enter(2)}). {@code 0}, the default, never; a negative value is refused with an
     * {@link IllegalArgumentException}. Set from any thread; it applies from the next send. A socket that cannot
     * send zero-copy (Unix-domain) sends plainly. It pays for large sends through a network card; on loopback the
     * kernel copies anyway and the send waits for the copy, so it is slower there.
     */
    public static final ChannelOption<Integer> SEND_ZC_THRESHOLD = nativeOnly("SEND_ZC_THRESHOLD", Integer.class);

    private final String name;
    private final Class<T> valueType;
    private final boolean nativeOnly;

    private ChannelOption(String name, Class<T> valueType, boolean nativeOnly) {
        this.name = name;
        this.valueType = valueType;
        this.nativeOnly = nativeOnly;
    }

    private static <T> ChannelOption<T> standard(String name, Class<T> type) {
        return register(new ChannelOption<>(name, type, false));
    }

    private static <T> ChannelOption<T> nativeOnly(String name, Class<T> type) {
        return register(new ChannelOption<>(name, type, true));
    }

    private static <T> ChannelOption<T> register(ChannelOption<T> option) {
        if (BY_NAME.putIfAbsent(option.name, option) != null) {
            throw new IllegalStateException("channel option declared twice: " + option.name);
        }
        return option;
    }

    /**
     * @param name an option name as declared here, e.g. {@code "SO_REUSEPORT"} (case-sensitive)
     * @return the option
     * @throws IllegalArgumentException when no option has that name; the message lists the known names
     */
    public static ChannelOption<?> valueOf(String name) {
        ChannelOption<?> option = BY_NAME.get(Objects.requireNonNull(name, "name"));
        if (option == null) {
            throw new IllegalArgumentException("unknown channel option '" + name + "'; known options: "
                    + new java.util.TreeSet<>(BY_NAME.keySet()));
        }
        return option;
    }

    /** @return every declared option */
    public static Collection<ChannelOption<?>> values() {
        return Collections.unmodifiableCollection(BY_NAME.values());
    }

    public String name() {
        return name;
    }

    public Class<T> valueType() {
        return valueType;
    }

    /** @return {@code true} for options only native transports can honour */
    public boolean isNativeOnly() {
        return nativeOnly;
    }

    /**
     * Checks a value before it is applied.
     *
     * @return {@code value}
     * @throws NullPointerException when {@code value} is {@code null}
     * @throws IllegalArgumentException when it has the wrong type or is out of range (negative sizes,
     *         counts and timeouts); the message names the option and the value
     */
    public T validate(Object value) {
        Objects.requireNonNull(value, () -> "value of channel option " + name);
        if (!valueType.isInstance(value)) {
            throw new IllegalArgumentException("channel option " + name + " takes a " + valueType.getSimpleName()
                    + ", got " + value.getClass().getName() + ": " + value);
        }
        if (value instanceof Integer i && i < 0 && this != SO_LINGER && this != IP_TOS) {
            throw new IllegalArgumentException("channel option " + name + " must not be negative, got " + i);
        }
        if ((this == WRITE_SPIN_COUNT || this == MAX_MESSAGES_PER_READ) && (Integer) value == 0) {
            throw new IllegalArgumentException("channel option " + name + " must be at least 1, got 0");
        }
        return valueType.cast(value);
    }

    @Override
    public String toString() {
        return name;
    }
}
