package io.conduit.internal.channel.access;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;

import java.net.SocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The steps that turn a channel fresh from a transport into a registered, bound or connected one: options, handlers,
 * registration on its loop, bind or connect, and closing it on any failure so no descriptor stays open. The public
 * bootstraps ({@code io.conduit.bootstrap}) and the managed endpoints ({@code io.conduit.transport}) both run them;
 * neither depends on the other, and this class depends on neither (it takes the channel, not the transport).
 *
 * <p>Threading: every method may be called from any thread; the futures complete on the channel's event loop.
 */
public final class ChannelSetup {

    private static final System.Logger LOG = System.getLogger(ChannelSetup.class.getName());

    private ChannelSetup() {
    }

    /**
     * Sets {@code option} to {@code value} in {@code options}, or removes it when {@code value} is {@code null}: the
     * option builders of the bootstraps and the managed endpoints.
     *
     * @throws IllegalArgumentException when the value is invalid ({@link ChannelOption#validate(Object)})
     */
    public static <T> void putOption(Map<ChannelOption<?>, Object> options, ChannelOption<T> option, T value) {
        Objects.requireNonNull(option, "option");
        if (value == null) {
            options.remove(option);
        } else {
            options.put(option, option.validate(value));
        }
    }

    /**
     * Applies {@code options} to a channel that is not registered yet and adds {@code handler} (if not {@code null})
     * to its pipeline; see {@link #setUp}.
     *
     * @return {@code ch}
     */
    public static <C extends Channel> C configure(C ch, Map<ChannelOption<?>, Object> options, ChannelHandler handler) {
        return setUp(ch, c -> {
            applyOptions(c, options);
            if (handler != null) {
                c.pipeline().addLast(handler);
            }
        });
    }

    /**
     * Configures a listener like {@link #configure} and adds, last, the handler that sets up every accepted child:
     * a loop of {@code childGroup}, {@code childOptions}, {@code childHandler}, registration.
     *
     * @param handler added before the acceptor, or {@code null}; it sees accepted children and accept errors
     * @param childOptions applied to every child (the map is read at each accept: pass a copy)
     * @return {@code server}
     */
    public static ServerChannel configureServer(ServerChannel server, Map<ChannelOption<?>, Object> options,
                                                ChannelHandler handler, EventLoopGroup childGroup,
                                                Map<ChannelOption<?>, Object> childOptions, ChannelHandler childHandler) {
        return setUp(server, s -> {
            applyOptions(s, options);
            if (handler != null) {
                s.pipeline().addLast(handler);
            }
            s.pipeline().addLast("acceptor", new Acceptor(childGroup, childOptions, childHandler));
        });
    }

    /**
     * Runs the set-up of a channel that is not registered yet; when a step throws (an option the socket refuses, a
     * handler already in another pipeline, a transport whose classes are gone), closes the channel's socket at once
     * and rethrows, so a failed bind or connect leaves no descriptor open.
     *
     * @return {@code ch}
     */
    public static <C extends Channel> C setUp(C ch, Consumer<C> steps) {
        try {
            steps.accept(ch);
            return ch;
        } catch (RuntimeException | Error e) {
            closeUnregistered(ch);
            throw e;
        }
    }

    /**
     * Registers {@code ch} without binding or connecting it.
     *
     * @return a future that succeeds with the registered channel; cancelling it closes the channel
     */
    public static Future<Channel> register(Channel ch) {
        Promise<Channel> result = ch.eventLoop().newPromise();
        registerOnLoop(ch).addListener(f -> {
            if (f.isSuccess()) {
                succeedOrClose(result, ch);
            } else {
                result.tryFailure(f.cause());
            }
        });
        return result;
    }

    /**
     * Registers and binds {@code ch} (a listener or a datagram channel).
     *
     * @return a future that succeeds with the bound channel, or fails with the bind error after closing it;
     *         cancelling it (any thread) closes a channel bound meanwhile, so no port stays bound by a channel
     *         nobody holds
     */
    public static Future<Channel> bind(Channel ch, SocketAddress localAddress) {
        Promise<Channel> result = ch.eventLoop().newPromise();
        registerOnLoop(ch).addListener(reg -> {
            if (!reg.isSuccess()) {
                ch.close(); // its socket is open already (e.g. its loop ended before it registered)
                result.tryFailure(reg.cause());
                return;
            }
            ch.bind(localAddress).addListener(b -> {
                if (b.isSuccess()) {
                    succeedOrClose(result, ch);
                } else {
                    ch.close();
                    result.tryFailure(b.cause());
                }
            });
        });
        return result;
    }

    /**
     * Registers {@code ch} and connects it to {@code remoteAddress}.
     *
     * @param localAddress where to bind first, or {@code null} for any
     * @return a future that succeeds with the connected channel, or fails with the error after closing it;
     *         cancelling it cancels a pending connect, which closes the channel
     */
    public static Future<Channel> connect(Channel ch, SocketAddress remoteAddress, SocketAddress localAddress) {
        Promise<Channel> result = ch.eventLoop().newPromise();
        registerOnLoop(ch).addListener(reg -> {
            if (!reg.isSuccess()) {
                ch.close();
                result.tryFailure(reg.cause());
                return;
            }
            Future<Void> connect = ch.connect(remoteAddress, localAddress);
            result.addListener(r -> {
                if (r.isCancelled()) {
                    connect.cancel(false);
                }
            });
            connect.addListener(c -> {
                if (c.isSuccess()) {
                    succeedOrClose(result, ch);
                } else {
                    ch.close();
                    result.tryFailure(c.cause());
                }
            });
        });
        return result;
    }

    /** Closes {@code ch}, which was never registered, without its event loop (see {@link #setUp}). */
    static void closeUnregistered(Channel ch) {
        if (ch instanceof CoreChannel io) {
            io.closeUnregistered();
        } else {
            ch.close();
        }
    }

    private static void applyOptions(Channel ch, Map<ChannelOption<?>, Object> options) {
        for (Map.Entry<ChannelOption<?>, Object> e : options.entrySet()) {
            setOption(ch.config(), e.getKey(), e.getValue());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void setOption(ChannelConfig config, ChannelOption<T> option, Object value) {
        config.setOption(option, (T) value); // false = unsupported: already warned once per option and transport
    }

    /**
     * Hands {@code ch} to the caller through {@code result}; when the caller cancelled {@code result} meanwhile (from
     * any thread, racing with the registration, connect or bind), nobody holds the channel any more: it is closed
     * instead of being left open (a connected socket or a bound port nobody can reach).
     */
    private static void succeedOrClose(Promise<Channel> result, Channel ch) {
        if (!result.trySuccess(ch)) {
            ch.close();
        }
    }

    private static Future<Void> registerOnLoop(Channel ch) {
        if (ch instanceof CoreChannel io) {
            return io.register();
        }
        throw new IllegalArgumentException("channel " + ch + " of transport '" + ch.transportName()
                + "' is not built on the shared channel core and cannot be registered by a bootstrap");
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
                applyOptions(child, childOptions);
                child.pipeline().addLast(childHandler);
                core.register(loop).addListener(f -> {
                    if (!f.isSuccess()) {
                        LOG.log(System.Logger.Level.WARNING,
                                "registering accepted channel " + child + " failed; closing it", f.cause());
                        child.close();
                    }
                });
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "setting up accepted channel " + child + " failed; closing it", t);
                closeUnregistered(child); // register() starts nothing when it throws
            }
        }
    }
}
