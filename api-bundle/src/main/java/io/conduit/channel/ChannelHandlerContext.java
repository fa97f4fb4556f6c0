package io.conduit.channel;

import io.conduit.buffer.BufferAllocator;
import io.conduit.concurrent.EventExecutor;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The place of one {@link ChannelHandler} in one {@link ChannelPipeline}. Inbound events fired here go to the
 * next handler towards the tail; outbound operations started here go to the next handler towards the head.
 * Every method may be called from any thread.
 */
@ProviderType
public interface ChannelHandlerContext extends ChannelInboundInvoker, ChannelOutboundInvoker {

    Channel channel();

    /** @return the executor this handler's methods run on: the channel's event loop or the handler's own executor */
    EventExecutor executor();

    /** @return the unique name of the handler in its pipeline */
    String name();

    ChannelHandler handler();

    /** @return {@code true} once the handler was removed from the pipeline */
    boolean isRemoved();

    ChannelPipeline pipeline();

    /** @return the channel's allocator ({@link ChannelOption#ALLOCATOR}) */
    BufferAllocator alloc();

    @Override
    ChannelHandlerContext fireChannelRegistered();

    @Override
    ChannelHandlerContext fireChannelUnregistered();

    @Override
    ChannelHandlerContext fireChannelActive();

    @Override
    ChannelHandlerContext fireChannelInactive();

    @Override
    ChannelHandlerContext fireExceptionCaught(Throwable cause);

    @Override
    ChannelHandlerContext fireUserEventTriggered(Object event);

    @Override
    ChannelHandlerContext fireChannelRead(Object msg);

    @Override
    ChannelHandlerContext fireChannelReadComplete();

    @Override
    ChannelHandlerContext fireChannelWritabilityChanged();

    @Override
    ChannelHandlerContext read();

    @Override
    ChannelHandlerContext flush();
}
