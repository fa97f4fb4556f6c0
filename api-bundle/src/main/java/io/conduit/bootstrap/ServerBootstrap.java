package io.conduit.bootstrap;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.ChannelSetup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Makes a listening channel (TCP or Unix-domain) and sets up every accepted child: the child is given a loop
 * of the {@linkplain #group(EventLoopGroup, EventLoopGroup) child group}, the {@linkplain #childOption child
 * options} and the {@linkplain #childHandler child handler}, then registered.
 *
 * <pre>{@code
 * Future<Channel> f = new ServerBootstrap().transport(nio).group(boss, workers)
 *         .childHandler(new ChannelInitializer<Channel>() { ... })
 *         .bind(new InetSocketAddress("127.0.0.1", 0));
 * }</pre>
 *
 * <p>The {@linkplain #handler server handler}, if any, sees the accepted channels (pass them on with
 * {@code ctx.fireChannelRead}) and accept errors such as {@code EMFILE} (once per burst; the listener stays
 * open). Not thread-safe while being configured; {@link #bind} may be called from any thread.
 */
public final class ServerBootstrap {

    private Transport transport;
    private EventLoopGroup parentGroup;
    private EventLoopGroup childGroup;
    private ChannelType channelType = ChannelType.TCP;
    private final Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
    private final Map<ChannelOption<?>, Object> childOptions = new LinkedHashMap<>();
    private ChannelHandler handler;
    private ChannelHandler childHandler;

    public ServerBootstrap transport(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /** One group for the listener and its children. */
    public ServerBootstrap group(EventLoopGroup group) {
        return group(group, group);
    }

    /** @param parent runs the listener; @param child runs accepted channels (both from the same transport) */
    public ServerBootstrap group(EventLoopGroup parent, EventLoopGroup child) {
        this.parentGroup = Objects.requireNonNull(parent, "parent");
        this.childGroup = Objects.requireNonNull(child, "child");
        return this;
    }

    /** @param channelType {@link ChannelType#TCP} (default) or {@link ChannelType#UNIX_STREAM} */
    public ServerBootstrap channelType(ChannelType channelType) {
        this.channelType = Objects.requireNonNull(channelType, "channelType");
        return this;
    }

    /** An option of the listener (e.g. {@link ChannelOption#SO_BACKLOG}); {@code null} removes it. */
    public <T> ServerBootstrap option(ChannelOption<T> option, T value) {
        ChannelSetup.putOption(options, option, value);
        return this;
    }

    /** An option of every accepted channel; {@code null} removes it. */
    public <T> ServerBootstrap childOption(ChannelOption<T> option, T value) {
        ChannelSetup.putOption(childOptions, option, value);
        return this;
    }

    /** @param handler added to the listener's pipeline, before the handler that sets up children */
    public ServerBootstrap handler(ChannelHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /** @param childHandler added to every accepted channel; must be {@link ChannelHandler.Sharable} (e.g. a {@link ChannelInitializer}) */
    public ServerBootstrap childHandler(ChannelHandler childHandler) {
        this.childHandler = Objects.requireNonNull(childHandler, "childHandler");
        return this;
    }

    /**
     * Creates, registers and binds the listener.
     *
     * @return a future that succeeds with the bound listener ({@link ServerChannel}), or fails with the bind error
     *         after closing it; cancelling it (any thread) closes a listener bound meanwhile, so no port stays
     *         bound by a listener nobody holds
     * @throws IllegalStateException when transport, groups or child handler are missing
     */
    public Future<Channel> bind(SocketAddress localAddress) {
        Objects.requireNonNull(localAddress, "localAddress");
        if (transport == null) {
            throw new IllegalStateException("no transport set: call transport(Transport)");
        }
        if (parentGroup == null) {
            throw new IllegalStateException("no event loop group set: call group(parent, child)");
        }
        if (childHandler == null) {
            throw new IllegalStateException("no child handler set: call childHandler(ChannelHandler)");
        }
        ServerChannel server = ChannelSetup.configureServer(transport.newServerChannel(channelType, parentGroup.next()),
                options, handler, childGroup, new LinkedHashMap<>(childOptions), childHandler);
        return ChannelSetup.bind(server, localAddress);
    }

    @Override
    public String toString() {
        return "ServerBootstrap[" + transport + ", " + channelType + ", options=" + options + ", childOptions="
                + childOptions + "]";
    }
}
