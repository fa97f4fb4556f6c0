package io.conduit.bootstrap;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ConnectTimeoutException;
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
 * Makes client (and UDP) channels: picks a loop of the {@linkplain #group(EventLoopGroup) group}, creates a
 * channel of the {@linkplain #channelType(ChannelType) type} with the {@linkplain #transport(Transport)
 * transport}, applies the {@linkplain #option options}, adds the {@linkplain #handler handler}, registers
 * the channel, then connects or binds it.
 *
 * <pre>{@code
 * Future<Channel> f = new Bootstrap().transport(nio).group(group).channelType(ChannelType.TCP)
 *         .option(ChannelOption.TCP_NODELAY, true)
 *         .handler(new ChannelInitializer<Channel>() { ... })
 *         .connect(new InetSocketAddress("127.0.0.1", 7));
 * Channel ch = f.sync().getNow();
 * }</pre>
 *
 * <p>An option the transport does not support is ignored with one warning (see {@link ChannelOption}). The
 * returned futures fail with the connect/bind error, after the channel was closed; cancelling a pending
 * connect future cancels the connect, which closes the channel, and a channel whose future was cancelled
 * before it could be handed over (registered, connected or bound meanwhile) is closed. Not thread-safe while being configured; the
 * operations ({@link #connect}, {@link #bind}, {@link #register}) may be called from any thread.
 */
public final class Bootstrap {

    private Transport transport;
    private EventLoopGroup group;
    private ChannelType channelType = ChannelType.TCP;
    private final Map<ChannelOption<?>, Object> options = new LinkedHashMap<>();
    private ChannelHandler handler;

    /** @param transport the transport whose channels to make; its group must come from the same transport */
    public Bootstrap transport(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /** @param group made by {@link Transport#newEventLoopGroup(int)} of the same transport */
    public Bootstrap group(EventLoopGroup group) {
        this.group = Objects.requireNonNull(group, "group");
        return this;
    }

    /** @param channelType {@link ChannelType#TCP} (default), {@link ChannelType#UDP}, {@link ChannelType#UNIX_STREAM}, … */
    public Bootstrap channelType(ChannelType channelType) {
        this.channelType = Objects.requireNonNull(channelType, "channelType");
        return this;
    }

    /**
     * Sets an option of the channels made; {@code null} removes it.
     *
     * @throws IllegalArgumentException when the value is invalid ({@link ChannelOption#validate(Object)})
     */
    public <T> Bootstrap option(ChannelOption<T> option, T value) {
        ChannelSetup.putOption(options, option, value);
        return this;
    }

    /** @param handler added to each channel's pipeline before registration (often a {@link ChannelInitializer}) */
    public Bootstrap handler(ChannelHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /**
     * Creates and registers a channel without connecting or binding it.
     *
     * @return a future that succeeds with the registered channel
     * @throws IllegalStateException when transport, group or handler is missing
     */
    public Future<Channel> register() {
        return ChannelSetup.register(newChannel());
    }

    /** Connects a new channel to {@code remoteAddress}; see {@link #connect(SocketAddress, SocketAddress)}. */
    public Future<Channel> connect(SocketAddress remoteAddress) {
        return connect(remoteAddress, null);
    }

    /**
     * Creates, registers and connects a channel.
     *
     * @param localAddress where to bind first, or {@code null} for any
     * @return a future that succeeds with the connected channel, or fails with the error (e.g.
     *         {@link java.net.ConnectException}, {@link ConnectTimeoutException}) after closing the channel
     * @throws IllegalStateException when transport, group or handler is missing
     */
    public Future<Channel> connect(SocketAddress remoteAddress, SocketAddress localAddress) {
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        return ChannelSetup.connect(newChannel(), remoteAddress, localAddress);
    }

    /**
     * Creates, registers and binds a channel (UDP), ready to read.
     *
     * @return a future that succeeds with the bound channel, or fails after closing it
     */
    public Future<Channel> bind(SocketAddress localAddress) {
        Objects.requireNonNull(localAddress, "localAddress");
        return ChannelSetup.bind(newChannel(), localAddress);
    }

    private Channel newChannel() {
        if (transport == null) {
            throw new IllegalStateException("no transport set: call transport(Transport) (e.g. Transports.selected())");
        }
        if (group == null) {
            throw new IllegalStateException("no event loop group set: call group(transport.newEventLoopGroup(0))");
        }
        if (handler == null) {
            throw new IllegalStateException("no handler set: call handler(ChannelHandler)");
        }
        return ChannelSetup.configure(transport.newChannel(channelType, group.next()), options, handler);
    }

    @Override
    public String toString() {
        return "Bootstrap[" + transport + ", " + channelType + ", options=" + options + "]";
    }
}
