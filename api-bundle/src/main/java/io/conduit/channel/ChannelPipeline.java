package io.conduit.channel;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import io.conduit.concurrent.EventExecutor;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The ordered list of {@link ChannelHandler}s of one {@link Channel}, between a fixed head (the transport)
 * and a fixed tail (which releases unhandled messages and logs unhandled exceptions). Head and tail are
 * part of the pipeline itself, not handlers that can be seen or removed.
 *
 * <p>Handlers may be added, removed and replaced from any thread at any time, also while events flow: an
 * event already past a position is not affected, later events see the new list. Names are unique per
 * pipeline; passing {@code null} as a name generates one ({@code SimpleClassName#0}). A handler added with
 * its own {@link EventExecutor} has all its methods called on that executor, in event order.
 *
 * <p>Errors: a duplicate name throws {@link IllegalArgumentException}; an unknown name or handler throws
 * {@link NoSuchElementException}; a non-{@link ChannelHandler.Sharable} handler already in a pipeline throws
 * {@link IllegalArgumentException}.
 */
@ProviderType
public interface ChannelPipeline extends ChannelInboundInvoker, ChannelOutboundInvoker, Iterable<Map.Entry<String, ChannelHandler>> {

    ChannelPipeline addFirst(String name, ChannelHandler handler);

    ChannelPipeline addLast(String name, ChannelHandler handler);

    /** Adds handlers at the end with generated names. */
    ChannelPipeline addLast(ChannelHandler... handlers);

    /** Adds {@code handler} whose methods will run on {@code executor} instead of the channel's event loop. */
    ChannelPipeline addLast(EventExecutor executor, String name, ChannelHandler handler);

    ChannelPipeline addBefore(String baseName, String name, ChannelHandler handler);

    ChannelPipeline addAfter(String baseName, String name, ChannelHandler handler);

    ChannelPipeline remove(ChannelHandler handler);

    /** @return the removed handler */
    ChannelHandler remove(String name);

    /** Replaces {@code oldName}'s handler; {@code newName} may equal {@code oldName}. @return the old handler */
    ChannelHandler replace(String oldName, String newName, ChannelHandler newHandler);

    /** @return the handler with that name, or {@code null} */
    ChannelHandler get(String name);

    /** @return the first handler of that type, or {@code null} */
    <T extends ChannelHandler> T get(Class<T> handlerType);

    /** @return the context of that name, or {@code null} */
    ChannelHandlerContext context(String name);

    /** @return the context of that handler, or {@code null} */
    ChannelHandlerContext context(ChannelHandler handler);

    /** @return the first handler (after the head), or {@code null} when empty */
    ChannelHandler first();

    /** @return the last handler (before the tail), or {@code null} when empty */
    ChannelHandler last();

    /** @return the handler names from head to tail (head and tail excluded) */
    List<String> names();

    Channel channel();

    @Override
    ChannelPipeline fireChannelRegistered();

    @Override
    ChannelPipeline fireChannelUnregistered();

    @Override
    ChannelPipeline fireChannelActive();

    @Override
    ChannelPipeline fireChannelInactive();

    @Override
    ChannelPipeline fireExceptionCaught(Throwable cause);

    @Override
    ChannelPipeline fireUserEventTriggered(Object event);

    @Override
    ChannelPipeline fireChannelRead(Object msg);

    @Override
    ChannelPipeline fireChannelReadComplete();

    @Override
    ChannelPipeline fireChannelWritabilityChanged();

    @Override
    ChannelPipeline read();

    @Override
    ChannelPipeline flush();
}
