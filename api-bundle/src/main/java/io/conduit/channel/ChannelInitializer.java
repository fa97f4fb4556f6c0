package io.conduit.channel;

/**
 * A handler that configures a new channel's pipeline once, when it is registered, and then removes itself.
 * Typically the child handler of a {@link io.conduit.bootstrap.ServerBootstrap}. It is {@link ChannelHandler.Sharable}: one
 * instance serves every accepted channel, so {@link #initChannel(Channel)} must not keep per-channel state.
 * An exception thrown by {@code initChannel} is logged and closes the channel.
 *
 * @param <C> the channel type
 */
@ChannelHandler.Sharable
public abstract class ChannelInitializer<C extends Channel> implements ChannelHandler {

    /** Adds the channel's handlers; runs on the channel's event loop. */
    protected abstract void initChannel(C channel) throws Exception;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isRegistered()) {
            init(ctx);
        }
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        if (!ctx.isRemoved()) {
            init(ctx);
            ctx.pipeline().fireChannelRegistered();
        } else {
            ctx.fireChannelRegistered();
        }
    }

    @SuppressWarnings("unchecked")
    private void init(ChannelHandlerContext ctx) {
        if (ctx.isRemoved()) {
            return;
        }
        try {
            initChannel((C) ctx.channel());
        } catch (Throwable t) {
            System.getLogger(ChannelInitializer.class.getName()).log(System.Logger.Level.WARNING,
                    "initChannel failed for channel " + ctx.channel().id() + "; closing it", t);
            ctx.close();
        } finally {
            if (!ctx.isRemoved()) {
                ctx.pipeline().remove(this);
            }
        }
    }
}
