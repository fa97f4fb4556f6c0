package io.conduit.channel;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.access.CoreChannel;
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
        put(options, option, value);
        return this;
    }

    /** An option of every accepted channel; {@code null} removes it. */
    public <T> ServerBootstrap childOption(ChannelOption<T> option, T value) {
        put(childOptions, option, value);
        return this;
    }

    private static <T> void put(Map<ChannelOption<?>, Object> map, ChannelOption<T> option, T value) {
        Objects.requireNonNull(option, "option");
        if (value == null) {
            map.remove(option);
        } else {
            map.put(option, option.validate(value));
        }
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
        ServerChannel server = Bootstrap.setUp(transport.newServerChannel(channelType, parentGroup.next()), s -> {
            Bootstrap.applyOptions(s, options);
            if (handler != null) {
                s.pipeline().addLast(handler);
            }
            s.pipeline().addLast("acceptor", new Acceptor(childGroup, new LinkedHashMap<>(childOptions), childHandler));
        });
        Promise<Channel> result = server.eventLoop().newPromise();
        Bootstrap.register(server).addListener(reg -> {
            if (!reg.isSuccess()) {
                server.close(); // its socket is open already (e.g. its loop ended before it registered)
                result.tryFailure(reg.cause());
                return;
            }
            server.bind(localAddress).addListener(b -> {
                if (b.isSuccess()) {
                    Bootstrap.succeedOrClose(result, server);
                } else {
                    server.close();
                    result.tryFailure(b.cause());
                }
            });
        });
        return result;
    }

    /** Sets up each accepted channel: loop, options, child handler, registration. */
    @ChannelHandler.Sharable
    private static final class Acceptor implements ChannelHandler {
        private final EventLoopGroup childGroup;
        private final Map<ChannelOption<?>, Object> childOptions;
        private final ChannelHandler childHandler;

        Acceptor(EventLoopGroup childGroup, Map<ChannelOption<?>, Object> childOptions, ChannelHandler childHandler) {
            this.childGroup = childGroup;
            this.childOptions = childOptions;
            this.childHandler = childHandler;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof CoreChannel core) || !(msg instanceof Channel child)) {
                ctx.fireChannelRead(msg);
                return;
            }
            try {
                EventLoop loop = childGroup.next();
                core.eventLoop(loop);
                Bootstrap.applyOptions(child, childOptions);
                child.pipeline().addLast(childHandler);
                core.register(loop).addListener(f -> {
                    if (!f.isSuccess()) {
                        System.getLogger(ServerBootstrap.class.getName()).log(System.Logger.Level.WARNING,
                                "registering accepted channel " + child + " failed; closing it", f.cause());
                        child.close();
                    }
                });
            } catch (Throwable t) {
                System.getLogger(ServerBootstrap.class.getName()).log(System.Logger.Level.WARNING,
                        "setting up accepted channel " + child + " failed; closing it", t);
                Bootstrap.closeUnregistered(child); // register() starts nothing when it throws
            }
        }
    }

    @Override
    public String toString() {
        return "ServerBootstrap[" + transport + ", " + channelType + ", options=" + options + ", childOptions="
                + childOptions + "]";
    }
}
