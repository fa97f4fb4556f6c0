package io.conduit.internal.nio;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoDatagramChannel;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoDomainSocketChannel;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoHandlerFactory;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoServerSocketChannel;
import io.conduit.transport.spi.IoSocketChannel;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadFactory;

/**
 * The {@code nio} and {@code nio-vthread} transports: the shared channel core over {@code java.nio} sockets.
 * They differ only in their {@link Sockets} (non-blocking selector sockets, or blocking sockets driven by
 * virtual threads) and their loops' {@link io.conduit.transport.spi.IoHandler}. Thread-safe.
 */
final class NioTransport implements Transport {

    /** How a transport makes its sockets and its loops' pollers. */
    interface Sockets {
        IoStreamSocket stream(ProtocolFamily family) throws IOException;

        IoServerSocket server(ProtocolFamily family) throws IOException;

        /** @throws UnsupportedOperationException when the transport has no UDP */
        IoDatagramSocket datagram() throws IOException;

        IoHandlerFactory handlerFactory();
    }

    private final String name;
    private final Set<ChannelType> channelTypes;
    private final Sockets sockets;
    /** Groups this transport made; a loop is accepted when its parent is one of them. Guarded by itself. */
    private final Map<EventLoopGroup, Boolean> groups = Collections.synchronizedMap(new WeakHashMap<>());

    NioTransport(String name, Set<ChannelType> channelTypes, Sockets sockets) {
        this.name = name;
        this.channelTypes = Collections.unmodifiableSet(EnumSet.copyOf(channelTypes));
        this.sockets = sockets;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isNative() {
        return false;
    }

    @Override
    public Set<ChannelType> channelTypes() {
        return channelTypes;
    }

    @Override
    public boolean supports(ChannelOption<?> option) {
        return isCoreOption(option) || NioSocket.mapsOption(option);
    }

    private static boolean isCoreOption(ChannelOption<?> option) {
        return option == ChannelOption.ALLOCATOR || option == ChannelOption.AUTO_READ
                || option == ChannelOption.CONNECT_TIMEOUT_MILLIS || option == ChannelOption.WRITE_SPIN_COUNT
                || option == ChannelOption.WRITE_BUFFER_WATER_MARK || option == ChannelOption.MAX_MESSAGES_PER_READ
                || option == ChannelOption.ALLOW_HALF_CLOSURE;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads) {
        return newEventLoopGroup(nThreads, null);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads must be >= 0 (0 = twice the processors), got " + nThreads);
        }
        int n = nThreads == 0 ? 2 * Runtime.getRuntime().availableProcessors() : nThreads;
        EventLoopGroup group = new IoEventLoopGroup(n, threadFactory, sockets.handlerFactory());
        groups.put(group, Boolean.TRUE);
        return group;
    }

    private void checkLoop(EventLoop loop) {
        if (loop == null || !(groups.containsKey(loop.parent()) || groups.containsKey(loop))) {
            throw new IllegalArgumentException("event loop " + loop + " was not made by the '" + name
                    + "' transport; use " + name + "'s Transport.newEventLoopGroup");
        }
    }

    /** @return {@code true} when {@code loop} belongs to a group of this transport */
    boolean owns(EventLoop loop) {
        return loop != null && (groups.containsKey(loop.parent()) || groups.containsKey(loop));
    }

    @Override
    public Channel newChannel(ChannelType type, EventLoop loop) {
        checkType(type);
        checkLoop(loop);
        try {
            switch (type) {
                case TCP:
                    return new IoSocketChannel(name, sockets.stream(StandardProtocolFamily.INET6), null, loop);
                case UNIX_STREAM:
                    return new IoDomainSocketChannel(name, sockets.stream(StandardProtocolFamily.UNIX), null, loop);
                case UDP:
                    return new IoDatagramChannel(name, sockets.datagram(), loop);
                default:
                    throw new UnsupportedOperationException("the '" + name + "' transport has no " + type + " channels");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("opening a " + type + " socket for the '" + name + "' transport failed: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
        checkType(type);
        if (type != ChannelType.TCP && type != ChannelType.UNIX_STREAM) {
            throw new UnsupportedOperationException(type + " has no server channel kind (TCP and UNIX_STREAM have)");
        }
        checkLoop(loop);
        try {
            ProtocolFamily family = type == ChannelType.TCP ? StandardProtocolFamily.INET6 : StandardProtocolFamily.UNIX;
            return new IoServerSocketChannel(name, type, sockets.server(family), loop);
        } catch (IOException e) {
            throw new UncheckedIOException("opening a " + type + " listener for the '" + name + "' transport failed: "
                    + e.getMessage(), e);
        }
    }

    private void checkType(ChannelType type) {
        if (!channelTypes.contains(type)) {
            throw new UnsupportedOperationException("the '" + name + "' transport has no " + type + " channels; it has "
                    + channelTypes);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
