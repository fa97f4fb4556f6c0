package io.conduit.gateway.internal;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transports;

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
    /** Listeners made by {@link #listen}, until closed; concurrent list. */
    private final List<ManagedServer> servers = new CopyOnWriteArrayList<>();

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
        Transport t = Transports.selected(); // listeners follow the selection
        return t != null ? t.name() : transport.name();
    }

    /**
     * Listens through a {@link ManagedServer}: it binds on the selected transport and re-binds on every transport
     * swap ({@code conduit:use nio}, a transport bundle stopping or starting). Open connections stay on the old
     * transport after a selection change while it is still available, and are drained when it goes away.
     */
    @Override
    public CompletionStage<Bound> listen(GatewayUri endpoint, Map<ChannelOption<?>, Object> childOptions,
            ChannelHandler childHandler) {
        Transport t = Transports.selected();
        String name = t != null ? t.name() : transport.name();
        ManagedServer server = new ManagedServer(endpoint.toSocketAddress(name)).channelType(endpoint.channelType())
                .childHandler(childHandler).threads(Math.max(1, Runtime.getRuntime().availableProcessors()));
        if (endpoint.kind() == GatewayUri.Kind.TCP) {
            server.option(ChannelOption.SO_REUSEADDR, Boolean.TRUE);
            server.childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE);
        }
        childOptions.forEach((k, v) -> childOption(server, k, v));
        servers.add(server);
        return server.start().toCompletionStage().thenApply(address -> (Bound) new Bound() {
            @Override
            public SocketAddress localAddress() {
                return server.localAddress();
            }

            @Override
            public void close() throws InterruptedException {
                server.close().await(15, TimeUnit.SECONDS);
                servers.remove(server);
            }

            @Override
            public String transportName() {
                return server.transportName();
            }
        }).whenComplete((b, failure) -> {
            if (failure != null) {
                servers.remove(server);
            }
        });
    }

    /** The transport of {@code loop}: a listener's current or old (kept, draining) transport, else this network's. */
    private Transport transportOf(EventLoop loop) {
        for (ManagedServer s : servers) {
            Transport t = s.transportOf(loop);
            if (t != null) {
                return t;
            }
        }
        return transport;
    }

    /** Binds on this network's (start-up) transport: datagram channels do not follow a transport swap. */
    @Override
    public Future<Channel> bindDatagram(GatewayUri endpoint, ChannelHandler handler) {
        return new Bootstrap().transport(transport).group(group).channelType(endpoint.channelType()).handler(handler)
                .bind(endpoint.toSocketAddress(transport.name()));
    }

    @Override
    public Future<Channel> connect(GatewayUri endpoint, EventLoop loop, Map<ChannelOption<?>, Object> options,
            ChannelHandler handler) {
        Transport t = transportOf(loop);
        Bootstrap b = new Bootstrap().transport(t).group(loop).channelType(endpoint.channelType())
                .handler(handler);
        if (endpoint.kind() == GatewayUri.Kind.TCP) {
            b.option(ChannelOption.TCP_NODELAY, Boolean.TRUE);
        }
        options.forEach((k, v) -> option(b, k, v));
        return b.connect(endpoint.toSocketAddress(t.name()));
    }

    @SuppressWarnings("unchecked")
    private static <T> void childOption(ManagedServer s, ChannelOption<T> option, Object value) {
        s.childOption(option, (T) value);
    }

    @SuppressWarnings("unchecked")
    private static <T> void option(Bootstrap b, ChannelOption<T> option, Object value) {
        b.option(option, (T) value);
    }
}
