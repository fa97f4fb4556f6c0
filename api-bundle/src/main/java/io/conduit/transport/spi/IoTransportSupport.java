package io.conduit.transport.spi;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadFactory;

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
     *         {@code WRITE_BUFFER_WATER_MARK}, {@code MAX_MESSAGES_PER_READ}, {@code ALLOW_HALF_CLOSURE}
     */
    public static boolean isCoreOption(ChannelOption<?> option) {
        return option == ChannelOption.ALLOCATOR || option == ChannelOption.AUTO_READ
                || option == ChannelOption.CONNECT_TIMEOUT_MILLIS || option == ChannelOption.WRITE_SPIN_COUNT
                || option == ChannelOption.WRITE_BUFFER_WATER_MARK || option == ChannelOption.MAX_MESSAGES_PER_READ
                || option == ChannelOption.ALLOW_HALF_CLOSURE;
    }

    /**
     * Makes a group of loops with {@code handlerFactory}'s pollers and remembers it as this transport's.
     *
     * @param nThreads loops; 0 = twice the available processors
     * @throws IllegalArgumentException when {@code nThreads < 0}
     */
    public IoEventLoopGroup newGroup(int nThreads, ThreadFactory threadFactory, IoHandlerFactory handlerFactory,
            IoEventLoopGroup.Options options) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads must be >= 0 (0 = twice the processors), got " + nThreads);
        }
        IoEventLoopGroup group = new IoEventLoopGroup(nThreads, threadFactory, handlerFactory, options);
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
     * @param what {@code "socket"} or {@code "listener"}
     * @return the exception for a failed socket creation, naming the type, the transport and the cause
     */
    public UncheckedIOException openFailed(ChannelType type, String what, IOException e) {
        return new UncheckedIOException("opening a " + type + " " + what + " for the '" + transportName
                + "' transport failed: " + e.getMessage(), e);
    }
}
