package io.conduit.transport.spi;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.internal.config.ConduitProperties;
import io.conduit.transport.ChannelType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * SPI for transport implementers: the bookkeeping and checks every {@link io.conduit.transport.Transport} on the
 * shared channel core makes — which event loop groups it made (a channel may only be registered with a loop of
 * one of them), which channel types it has, which options the core itself handles, and the messages of the
 * failures. Each transport keeps one instance and adds only what differs (its sockets, its poller, its options).
 *
 * <p>Thread-safe: the groups are kept weakly (a group the application dropped is forgotten) in a map guarded by
 * itself.
 */
public final class IoTransportSupport {

    private final String transportName;
    private final Set<ChannelType> channelTypes;
    /** Groups this transport made; a loop is accepted when its parent is one of them. Guarded by itself. */
    private final Map<EventLoopGroup, Boolean> groups = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * @param transportName the transport's name, used in messages
     * @param channelTypes  the channel types it has (copied)
     */
    public IoTransportSupport(String transportName, Set<ChannelType> channelTypes) {
        this.transportName = transportName;
        this.channelTypes = Collections.unmodifiableSet(EnumSet.copyOf(channelTypes));
    }

    /** @return the channel types, unmodifiable */
    public Set<ChannelType> channelTypes() {
        return channelTypes;
    }

    /**
     * @return {@code true} for the options the shared channel core handles on every transport: {@code ALLOCATOR},
     *         {@code AUTO_READ}, {@code CONNECT_TIMEOUT_MILLIS}, {@code WRITE_SPIN_COUNT},
     *         {@code WRITE_BUFFER_WATER_MARK}, {@code MAX_MESSAGES_PER_READ}, {@code ALLOW_HALF_CLOSURE}, and
     *         {@code SO_BACKLOG} (listeners: the core passes it to {@link IoServerSocket#bind(java.net.SocketAddress,
     *         int)})
     */
    public static boolean isCoreOption(ChannelOption<?> option) {
        return option == ChannelOption.ALLOCATOR || option == ChannelOption.AUTO_READ
                || option == ChannelOption.CONNECT_TIMEOUT_MILLIS || option == ChannelOption.WRITE_SPIN_COUNT
                || option == ChannelOption.WRITE_BUFFER_WATER_MARK || option == ChannelOption.MAX_MESSAGES_PER_READ
                || option == ChannelOption.ALLOW_HALF_CLOSURE || option == ChannelOption.SO_BACKLOG;
    }

    /**
     * Makes a group of loops with {@code handlerFactory}'s pollers and remembers it as this transport's.
     *
     * @param nThreads loops; 0 = twice the available processors
     * @throws IllegalArgumentException when {@code nThreads < 0}, or when a Conduit system property that channels
     *         depend on is malformed (e.g. {@code conduit.leakDetection}, {@code conduit.maxDirectMemory}): the message
     *         names the property, its value and what is allowed, so no channel is made that would fail every read
     */
    public IoEventLoopGroup newGroup(int nThreads, ThreadFactory threadFactory, IoHandlerFactory handlerFactory,
            IoEventLoopGroup.Options options) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads must be >= 0 (0 = twice the processors), got " + nThreads);
        }
        ConduitProperties.checkSystemProperties();
        IoEventLoopGroup group = new IoEventLoopGroup(nThreads, threadFactory, handlerFactory, options, transportName);
        groups.put(group, Boolean.TRUE);
        return group;
    }

    /** @return {@code true} when {@code loop} belongs to a group made by {@link #newGroup} */
    public boolean owns(EventLoop loop) {
        return loop != null && (groups.containsKey(loop.parent()) || groups.containsKey(loop));
    }

    /** @throws IllegalArgumentException naming the loop and what to use when this transport did not make it */
    public void checkLoop(EventLoop loop) {
        if (!owns(loop)) {
            throw new IllegalArgumentException("event loop " + loop + " was not made by the '" + transportName
                    + "' transport; use " + transportName + "'s Transport.newEventLoopGroup");
        }
    }

    /** @throws UnsupportedOperationException naming the types this transport has when it has no {@code type} */
    public void checkType(ChannelType type) {
        if (!channelTypes.contains(type)) {
            throw new UnsupportedOperationException("the '" + transportName + "' transport has no " + type
                    + " channels; it has " + channelTypes);
        }
    }

    /**
     * {@link #checkType}, then that {@code type} has listeners.
     *
     * @throws UnsupportedOperationException for a type this transport lacks or one without a server kind
     */
    public void checkServerType(ChannelType type) {
        checkType(type);
        if (type != ChannelType.TCP && type != ChannelType.UNIX_STREAM) {
            throw new UnsupportedOperationException(type + " has no server channel kind (TCP and UNIX_STREAM have)");
        }
    }

    /**
     * Reads a boolean Conduit system property by the rule every Conduit property follows: unset gives
     * {@code defaultValue}; {@code true} or {@code false} in any case (surrounding whitespace ignored); anything else
     * is an error.
     *
     * @param properties the property lookup, e.g. {@code System::getProperty}; called once, on the caller's thread
     * @param name       the property's name, e.g. {@code conduit.noNative}
     * @return the value, or {@code defaultValue} when unset
     * @throws IllegalArgumentException for any other value, naming the property, the value and the allowed values
     */
    public static boolean booleanProperty(Function<String, String> properties, String name, boolean defaultValue) {
        return ConduitProperties.parseBoolean(name, properties.apply(name), defaultValue);
    }

    /**
     * The {@code listen(2)} backlog of a listener: {@code requested} when positive (a bind with an explicit backlog),
     * else {@code soBacklog} when positive (the {@code SO_BACKLOG} option), else {@link #defaultBacklog()}. Pure,
     * any thread.
     *
     * @param requested the backlog passed to the bind, in connections; 0 or less for none
     * @param soBacklog the channel's {@code SO_BACKLOG}, in connections; 0 or less when not set
     * @return the backlog to pass to {@code listen(2)}, in connections, always positive
     */
    public static int listenBacklog(int requested, int soBacklog) {
        return requested > 0 ? requested : soBacklog > 0 ? soBacklog : defaultBacklog();
    }

    /**
     * The {@code SO_BACKLOG} every transport uses when the option is not set, the same on each: on Linux
     * {@code net.core.somaxconn} ({@value #SOMAXCONN_FILE}, read once), which the kernel caps every backlog at
     * anyway; elsewhere, or when that file cannot be read, {@value #FALLBACK_BACKLOG} (Linux's default
     * {@code somaxconn} since 5.4; macOS and FreeBSD silently cap a larger backlog at {@code kern.ipc.somaxconn}).
     * Unlike the JDK's default of 50, it absorbs connection bursts without SYN retransmits. Any thread; never
     * throws.
     *
     * @return the default backlog, in connections, always positive
     */
    public static int defaultBacklog() {
        return DefaultBacklog.VALUE;
    }

    /** The file holding Linux's {@code net.core.somaxconn}. */
    public static final String SOMAXCONN_FILE = "/proc/sys/net/core/somaxconn";
    /** {@link #defaultBacklog()} where {@value #SOMAXCONN_FILE} is not available. */
    public static final int FALLBACK_BACKLOG = 4096;

    /**
     * The rule of {@link #defaultBacklog()}.
     *
     * @param osName the {@code os.name} system property
     * @param somaxconn the file to read on Linux
     */
    static int defaultBacklog(String osName, Path somaxconn) {
        if (osName == null || !osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return FALLBACK_BACKLOG;
        }
        try {
            int value = Integer.parseInt(readSysctl(somaxconn));
            return value > 0 ? value : FALLBACK_BACKLOG;
        } catch (IOException | RuntimeException e) {
            return FALLBACK_BACKLOG; // e.g. no /proc in this container, or a value that is not a number
        }
    }

    /**
     * Reads a small {@code /proc/sys} file in one {@code read(2)} of a large enough buffer. The kernel's integer
     * handlers ({@code proc_dointvec}) give the whole value to the first read and nothing to a read at a later
     * offset, so a reader that starts with a short read (as {@link java.nio.file.Files#readString} does for a file whose size
     * is 0, which every {@code /proc} file reports) sees only the first digit: "4" for 4096.
     *
     * @return the file's text, trimmed
     * @throws IOException when it cannot be read
     */
    static String readSysctl(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocate(256);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // the first read returns the whole value; a regular file (tests) may need more
            }
            b.flip();
            return StandardCharsets.US_ASCII.decode(b).toString().trim();
        }
    }

    /** Holds the value of {@link #defaultBacklog()}, read on first use. */
    private static final class DefaultBacklog {
        static final int VALUE = defaultBacklog(System.getProperty("os.name"), Path.of(SOMAXCONN_FILE));
    }

    /**
     * @param what {@code "socket"} or {@code "listener"}
     * @return the exception for a failed socket creation, naming the type, the transport and the cause
     */
    public UncheckedIOException openFailed(ChannelType type, String what, IOException e) {
        return new UncheckedIOException("opening a " + type + " " + what + " for the '" + transportName
                + "' transport failed: " + e.getMessage(), e);
    }
}
