package io.conduit.transport;

import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import org.osgi.annotation.versioning.ProviderType;

/**
 * An available I/O implementation: {@code epoll}, {@code kqueue}, {@code nio}, {@code nio-vthread}.
 * Obtained from {@link Transports}; thread-safe.
 *
 * <p>Channels of a transport must be registered with event loops of a group made by the same transport;
 * the factories below throw {@link IllegalArgumentException} otherwise.
 */
@ProviderType
public interface Transport {

    /** @return the transport's name, e.g. {@code "epoll"}; lower case, unique */
    String name();

    /** @return {@code true} for transports that use a native library */
    boolean isNative();

    /** @return the channel kinds this transport can make */
    Set<ChannelType> channelTypes();

    /** @return {@code true} when this transport honours {@code option} (on at least one channel kind) */
    boolean supports(ChannelOption<?> option);

    /**
     * Whether this transport's channels can bind and connect addresses of {@code address}'s kind. The answer is about
     * the kind only (an IP address, a Unix socket file, a Linux abstract Unix name), not about whether a particular
     * address is free or reachable. {@link ManagedServer} asks before it moves a listener to this transport.
     *
     * <p>The default answers {@code true} for everything except a Linux abstract Unix name
     * ({@link UnixAbstractAddress}, unix(7) abstract namespace), which only transports on Linux sockets accept.
     *
     * @param address any socket address, not {@code null}
     * @return {@code true} when a bind or connect on this transport does not reject the address for its kind
     * @since 0.2.0
     */
    default boolean supportsAddress(SocketAddress address) {
        return !(address instanceof UnixAbstractAddress);
    }

    /**
     * @param nThreads event loops in the group; 0 = twice the number of available processors
     * @return a new group; close it when done
     */
    EventLoopGroup newEventLoopGroup(int nThreads);

    /** Like {@link #newEventLoopGroup(int)} with threads made by {@code threadFactory}. */
    EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory);

    /**
     * A new, unregistered client or datagram channel of {@code type} for {@code loop}.
     *
     * @throws UnsupportedOperationException when this transport lacks {@code type} (the message names both)
     * @throws IllegalArgumentException when {@code loop} was not made by this transport
     */
    Channel newChannel(ChannelType type, EventLoop loop);

    /**
     * A new, unregistered server channel of {@code type} ({@link ChannelType#TCP} or {@link ChannelType#UNIX_STREAM}).
     *
     * @throws UnsupportedOperationException when {@code type} has no server kind or this transport lacks it
     */
    ServerChannel newServerChannel(ChannelType type, EventLoop loop);
}
