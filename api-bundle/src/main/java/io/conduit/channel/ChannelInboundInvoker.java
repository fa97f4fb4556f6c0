package io.conduit.channel;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Fires inbound events: from a {@link ChannelHandlerContext} to the next handler, from a
 * {@link ChannelPipeline} to its first handler. May be called from any thread; the event is handed to the
 * receiving handler's executor. Each method returns {@code this}.
 */
@ProviderType
public interface ChannelInboundInvoker {
    ChannelInboundInvoker fireChannelRegistered();

    ChannelInboundInvoker fireChannelUnregistered();

    ChannelInboundInvoker fireChannelActive();

    ChannelInboundInvoker fireChannelInactive();

    ChannelInboundInvoker fireExceptionCaught(Throwable cause);

    ChannelInboundInvoker fireUserEventTriggered(Object event);

    ChannelInboundInvoker fireChannelRead(Object msg);

    ChannelInboundInvoker fireChannelReadComplete();

    ChannelInboundInvoker fireChannelWritabilityChanged();
}
