package io.conduit.gateway.internal;

import java.util.Map;

import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerBootstrap;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.Transport;

/**
 * A {@link Network} over {@link Bootstrap}/{@link ServerBootstrap} of one transport and one event loop group.
 * Thread-safe (each call builds its own bootstrap).
 */
public final class BootstrapNetwork implements Network {

    private final Transport transport;
    private final EventLoopGroup group;

    /**
     * @param transport the transport whose channels to make
     * @param group     an event loop group of that transport, owned by the caller
     */
    public BootstrapNetwork(Transport transport, EventLoopGroup group) {
        this.transport = transport;
        this.group = group;
    }

    @Override
    public String transportName() {
        return transport.name();
    }

    @Override
    public Future<Channel> listen(GatewayUri endpoint, Map<ChannelOption<?>, Object> childOptions,
            ChannelHandler childHandler) {
        ServerBootstrap b = new ServerBootstrap().transport(transport).group(group)
                .channelType(endpoint.channelType()).childHandler(childHandler);
        if (endpoint.kind() == GatewayUri.Kind.TCP) {
            b.option(ChannelOption.SO_REUSEADDR, Boolean.TRUE);
            b.childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE);
        }
        childOptions.forEach((k, v) -> childOption(b, k, v));
        return b.bind(endpoint.toSocketAddress(transport.name()));
    }

    @Override
    public Future<Channel> bindDatagram(GatewayUri endpoint, ChannelHandler handler) {
        return new Bootstrap().transport(transport).group(group).channelType(endpoint.channelType()).handler(handler)
                .bind(endpoint.toSocketAddress(transport.name()));
    }

    @Override
    public Future<Channel> connect(GatewayUri endpoint, EventLoop loop, Map<ChannelOption<?>, Object> options,
            ChannelHandler handler) {
        Bootstrap b = new Bootstrap().transport(transport).group(loop).channelType(endpoint.channelType())
                .handler(handler);
        if (endpoint.kind() == GatewayUri.Kind.TCP) {
            b.option(ChannelOption.TCP_NODELAY, Boolean.TRUE);
        }
        options.forEach((k, v) -> option(b, k, v));
        return b.connect(endpoint.toSocketAddress(transport.name()));
    }

    @SuppressWarnings("unchecked")
    private static <T> void childOption(ServerBootstrap b, ChannelOption<T> option, Object value) {
        b.childOption(option, (T) value);
    }

    @SuppressWarnings("unchecked")
    private static <T> void option(Bootstrap b, ChannelOption<T> option, Object value) {
        b.option(option, (T) value);
    }
}
