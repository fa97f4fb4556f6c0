package io.conduit.internal.channel;

import static io.conduit.internal.channel.HandlerMasks.ACTIVE;
import static io.conduit.internal.channel.HandlerMasks.BIND;
import static io.conduit.internal.channel.HandlerMasks.CHANNEL_READ;
import static io.conduit.internal.channel.HandlerMasks.CLOSE;
import static io.conduit.internal.channel.HandlerMasks.CONNECT;
import static io.conduit.internal.channel.HandlerMasks.DISCONNECT;
import static io.conduit.internal.channel.HandlerMasks.EXCEPTION_CAUGHT;
import static io.conduit.internal.channel.HandlerMasks.FLUSH;
import static io.conduit.internal.channel.HandlerMasks.INACTIVE;
import static io.conduit.internal.channel.HandlerMasks.READ;
import static io.conduit.internal.channel.HandlerMasks.READ_COMPLETE;
import static io.conduit.internal.channel.HandlerMasks.REGISTERED;
import static io.conduit.internal.channel.HandlerMasks.UNREGISTERED;
import static io.conduit.internal.channel.HandlerMasks.USER_EVENT;
import static io.conduit.internal.channel.HandlerMasks.WRITABILITY_CHANGED;
import static io.conduit.internal.channel.HandlerMasks.WRITE;

import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelPipeline;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;

/**
 * One node of a {@link DefaultChannelPipeline}'s doubly linked list: a handler, its name and its executor.
 *
 * <p>Dispatch: firing an event picks the next context towards the tail (inbound) or head (outbound) whose
 * handler overrides the event's method ({@link HandlerMasks}); contexts with an executor of their own are never
 * skipped, which keeps the order of events across executor hand-offs. When the receiving context's executor is
 * the current thread the handler runs inline, otherwise the call is handed to that executor as a task. Each
 * executor runs tasks one at a time in submission order, so events reach every handler in the order they were
 * fired.
 *
 * <p>Removal: a removed context keeps its {@link #prev}/{@link #next} links, so an event already on its way to
 * it continues to its old neighbour (or, after a replace, through the replacement) and is never lost.
 */
class HandlerContext implements ChannelHandlerContext {

    private static final System.Logger LOG = System.getLogger(HandlerContext.class.getName());

    /** {@link #handlerState}: handlerAdded not yet called; events pass the handler by. */
    static final int INIT = 0;
    /** {@link #handlerState}: the handler receives events. */
    static final int ADDED = 1;
    /** {@link #handlerState}: handlerRemoved was called (or is running); events pass the handler by. */
    static final int REMOVED = 2;

    final DefaultChannelPipeline pipeline;
    final String name;
    /** The handler; head and tail pass {@code null} and are their own handler. */
    final ChannelHandler handler;
    /** The handler's own executor, or {@code null} for the channel's event loop. */
    final EventExecutor ownExecutor;
    /** {@link HandlerMasks} of the handler's class. */
    final int mask;

    /** Neighbour towards the head; written under the pipeline lock, read by any thread. */
    volatile HandlerContext prev;
    /** Neighbour towards the tail; written under the pipeline lock, read by any thread. */
    volatile HandlerContext next;
    /**
     * {@code null} while linked; once unlinked (under the pipeline lock, written once): the context a replace put
     * in this one's place, or this context itself when it was removed without replacement. One field for both
     * keeps a context at 48 bytes (memory per idle connection).
     */
    volatile HandlerContext replacement;
    /** {@link #INIT}, {@link #ADDED} or {@link #REMOVED}; written on {@link #executor()} only. */
    volatile int handlerState;

    HandlerContext(DefaultChannelPipeline pipeline, EventExecutor ownExecutor, String name, ChannelHandler handler,
            int mask) {
        this.pipeline = pipeline;
        this.ownExecutor = ownExecutor;
        this.name = name;
        this.handler = handler != null ? handler : (ChannelHandler) this; // head and tail are their own handlers
        this.mask = mask;
    }

    // ---------------------------------------------------------------- accessors

    @Override
    public Channel channel() {
        return pipeline.channel();
    }

    /** @return the handler's own executor, else the channel's event loop ({@code null} before the channel has one) */
    @Override
    public EventExecutor executor() {
        return ownExecutor != null ? ownExecutor : pipeline.channel().eventLoop();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ChannelHandler handler() {
        return handler;
    }

    @Override
    public boolean isRemoved() {
        return replacement != null;
    }

    /** @return the context that replaced this one, or {@code null} (linked, or removed without replacement) */
    private HandlerContext replaced() {
        HandlerContext r = replacement;
        return r == this ? null : r;
    }

    @Override
    public ChannelPipeline pipeline() {
        return pipeline;
    }

    @Override
    public BufferAllocator alloc() {
        return channel().config().getAllocator();
    }

    @Override
    public Promise<Void> newPromise() {
        return pipeline.newPromise();
    }

    @Override
    public String toString() {
        return "ChannelHandlerContext(" + name + ", " + pipeline.channel() + ")";
    }

    private boolean invokeHandler() {
        return handlerState == ADDED;
    }

    private HandlerContext nextInbound(int bit) {
        HandlerContext ctx = this;
        do {
            ctx = ctx.next;
        } while ((ctx.mask & bit) == 0 && ctx.ownExecutor == null);
        return ctx;
    }

    private HandlerContext prevOutbound(int bit) {
        HandlerContext ctx = this;
        do {
            ctx = ctx.prev;
        } while ((ctx.mask & bit) == 0 && ctx.ownExecutor == null);
        return ctx;
    }

    /** @return {@code true} when the caller may invoke {@code target}'s handler inline */
    private static boolean inline(HandlerContext target) {
        EventExecutor ex = target.executor();
        return ex == null || ex.inEventLoop();
    }

    /** Hands {@code task} to {@code target}'s executor; on rejection releases {@code msg} and fails {@code promise}. */
    private static void handOff(HandlerContext target, Runnable task, Object msg, Promise<Void> promise) {
        try {
            target.executor().execute(task);
        } catch (RejectedExecutionException e) {
            ReferenceCounted.safeRelease(msg);
            RejectedExecutionException failure = new RejectedExecutionException("executor of handler '"
                    + target.name + "' of channel " + target.pipeline.channel().id()
                    + " rejected the event; it is shutting down", e);
            if (promise == null || !promise.tryFailure(failure)) {
                LOG.log(System.Logger.Level.WARNING, failure.getMessage(), e);
            }
        }
    }

    // ---------------------------------------------------------------- inbound

    @Override
    public ChannelHandlerContext fireChannelRegistered() {
        invokeChannelRegistered(nextInbound(REGISTERED));
        return this;
    }

    static void invokeChannelRegistered(HandlerContext next) {
        if (inline(next)) {
            next.invokeChannelRegistered();
        } else {
            handOff(next, next::invokeChannelRegistered, null, null);
        }
    }

    private void invokeChannelRegistered() {
        if (invokeHandler()) {
            try {
                handler.channelRegistered(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelRegistered(replaced());
        } else {
            fireChannelRegistered();
        }
    }

    @Override
    public ChannelHandlerContext fireChannelUnregistered() {
        invokeChannelUnregistered(nextInbound(UNREGISTERED));
        return this;
    }

    static void invokeChannelUnregistered(HandlerContext next) {
        if (inline(next)) {
            next.invokeChannelUnregistered();
        } else {
            handOff(next, next::invokeChannelUnregistered, null, null);
        }
    }

    private void invokeChannelUnregistered() {
        if (invokeHandler()) {
            try {
                handler.channelUnregistered(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelUnregistered(replaced());
        } else {
            fireChannelUnregistered();
        }
    }

    @Override
    public ChannelHandlerContext fireChannelActive() {
        invokeChannelActive(nextInbound(ACTIVE));
        return this;
    }

    static void invokeChannelActive(HandlerContext next) {
        if (inline(next)) {
            next.invokeChannelActive();
        } else {
            handOff(next, next::invokeChannelActive, null, null);
        }
    }

    private void invokeChannelActive() {
        if (invokeHandler()) {
            try {
                handler.channelActive(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelActive(replaced());
        } else {
            fireChannelActive();
        }
    }

    @Override
    public ChannelHandlerContext fireChannelInactive() {
        invokeChannelInactive(nextInbound(INACTIVE));
        return this;
    }

    static void invokeChannelInactive(HandlerContext next) {
        if (inline(next)) {
            next.invokeChannelInactive();
        } else {
            handOff(next, next::invokeChannelInactive, null, null);
        }
    }

    private void invokeChannelInactive() {
        if (invokeHandler()) {
            try {
                handler.channelInactive(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelInactive(replaced());
        } else {
            fireChannelInactive();
        }
    }

    @Override
    public ChannelHandlerContext fireExceptionCaught(Throwable cause) {
        invokeExceptionCaught(nextInbound(EXCEPTION_CAUGHT), Objects.requireNonNull(cause, "cause"));
        return this;
    }

    static void invokeExceptionCaught(HandlerContext next, Throwable cause) {
        if (inline(next)) {
            next.invokeExceptionCaughtHere(cause);
        } else {
            handOff(next, () -> next.invokeExceptionCaughtHere(cause), null, null);
        }
    }

    /** Calls this handler's exceptionCaught; must run on {@link #executor()}. */
    final void invokeExceptionCaughtHere(Throwable cause) {
        if (invokeHandler()) {
            try {
                handler.exceptionCaught(this, cause);
            } catch (Throwable t) {
                t.addSuppressed(cause);
                LOG.log(System.Logger.Level.WARNING, "exceptionCaught of handler '" + name + "' of channel "
                        + pipeline.channel().id() + " threw while handling " + cause
                        + "; the exception (with the original suppressed) is dropped", t);
            }
        } else if (replaced() != null) {
            invokeExceptionCaught(replaced(), cause);
        } else {
            fireExceptionCaught(cause);
        }
    }

    @Override
    public ChannelHandlerContext fireUserEventTriggered(Object event) {
        invokeUserEventTriggered(nextInbound(USER_EVENT), Objects.requireNonNull(event, "event"));
        return this;
    }

    static void invokeUserEventTriggered(HandlerContext next, Object event) {
        if (inline(next)) {
            next.invokeUserEventTriggered(event);
        } else {
            handOff(next, () -> next.invokeUserEventTriggered(event), event, null);
        }
    }

    private void invokeUserEventTriggered(Object event) {
        if (invokeHandler()) {
            try {
                handler.userEventTriggered(this, event);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeUserEventTriggered(replaced(), event);
        } else {
            fireUserEventTriggered(event);
        }
    }

    @Override
    public ChannelHandlerContext fireChannelRead(Object msg) {
        invokeChannelRead(nextInbound(CHANNEL_READ), Objects.requireNonNull(msg, "msg"));
        return this;
    }

    static void invokeChannelRead(HandlerContext next, Object msg) {
        if (inline(next)) {
            next.invokeChannelRead(msg);
        } else {
            handOff(next, () -> next.invokeChannelRead(msg), msg, null);
        }
    }

    private void invokeChannelRead(Object msg) {
        if (invokeHandler()) {
            try {
                handler.channelRead(this, msg);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelRead(replaced(), msg);
        } else {
            fireChannelRead(msg);
        }
    }

    @Override
    public ChannelHandlerContext fireChannelReadComplete() {
        invokeChannelReadComplete(nextInbound(READ_COMPLETE));
        return this;
    }

    static void invokeChannelReadComplete(HandlerContext next) {
        if (inline(next)) {
            next.invokeChannelReadComplete();
        } else {
            handOff(next, next::invokeChannelReadComplete, null, null);
        }
    }

    private void invokeChannelReadComplete() {
        if (invokeHandler()) {
            try {
                handler.channelReadComplete(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelReadComplete(replaced());
        } else {
            fireChannelReadComplete();
        }
    }

    @Override
    public ChannelHandlerContext fireChannelWritabilityChanged() {
        invokeChannelWritabilityChanged(nextInbound(WRITABILITY_CHANGED));
        return this;
    }

    static void invokeChannelWritabilityChanged(HandlerContext next) {
        if (inline(next)) {
            next.invokeChannelWritabilityChanged();
        } else {
            handOff(next, next::invokeChannelWritabilityChanged, null, null);
        }
    }

    private void invokeChannelWritabilityChanged() {
        if (invokeHandler()) {
            try {
                handler.channelWritabilityChanged(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeChannelWritabilityChanged(replaced());
        } else {
            fireChannelWritabilityChanged();
        }
    }

    // ---------------------------------------------------------------- outbound

    /**
     * Checks a promise handed to an outbound operation.
     *
     * @return {@code true} when the operation should proceed; {@code false} when the promise was cancelled
     *         ({@code msg} has been released)
     * @throws IllegalArgumentException when the promise is already complete otherwise ({@code msg} is released)
     */
    static boolean proceed(Promise<Void> promise, Object msg) {
        Objects.requireNonNull(promise, "promise");
        if (!promise.isDone()) {
            return true;
        }
        ReferenceCounted.safeRelease(msg);
        if (promise.isCancelled()) {
            return false;
        }
        throw new IllegalArgumentException("promise already complete, pass a new one (newPromise()): " + promise);
    }

    /** An outbound handler method threw: fail the promise and release the message. */
    private void outboundFailed(Throwable t, Promise<Void> promise, Object msg) {
        ReferenceCounted.safeRelease(msg);
        if (!promise.tryFailure(t) && !promise.isCancelled()) {
            LOG.log(System.Logger.Level.WARNING, "handler '" + name + "' of channel " + pipeline.channel().id()
                    + " threw after its promise " + promise + " was complete", t);
        }
    }

    @Override
    public Future<Void> bind(SocketAddress localAddress) {
        return bind(localAddress, newPromise());
    }

    @Override
    public Future<Void> bind(SocketAddress localAddress, Promise<Void> promise) {
        Objects.requireNonNull(localAddress, "localAddress");
        if (proceed(promise, null)) {
            invokeBind(prevOutbound(BIND), localAddress, promise);
        }
        return promise;
    }

    private static void invokeBind(HandlerContext next, SocketAddress localAddress, Promise<Void> promise) {
        if (inline(next)) {
            next.invokeBind(localAddress, promise);
        } else {
            handOff(next, () -> next.invokeBind(localAddress, promise), null, promise);
        }
    }

    private void invokeBind(SocketAddress localAddress, Promise<Void> promise) {
        if (promise.isCancelled()) {
            return;
        }
        if (invokeHandler()) {
            try {
                handler.bind(this, localAddress, promise);
            } catch (Throwable t) {
                outboundFailed(t, promise, null);
            }
        } else if (replaced() != null) {
            invokeBind(replaced(), localAddress, promise);
        } else {
            invokeBind(prevOutbound(BIND), localAddress, promise);
        }
    }

    @Override
    public Future<Void> connect(SocketAddress remoteAddress) {
        return connect(remoteAddress, null, newPromise());
    }

    @Override
    public Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress) {
        return connect(remoteAddress, localAddress, newPromise());
    }

    @Override
    public Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise) {
        Objects.requireNonNull(remoteAddress, "remoteAddress");
        boolean proceed = proceed(promise, null);
        // before the hand-off: a cancel may drop the connect on its way to the head (see invokeConnect), and the
        // channel has to learn of it all the same
        pipeline.connectEntered(promise);
        if (proceed) {
            invokeConnect(prevOutbound(CONNECT), remoteAddress, localAddress, promise);
        }
        return promise;
    }

    private static void invokeConnect(HandlerContext next, SocketAddress remote, SocketAddress local,
            Promise<Void> promise) {
        if (inline(next)) {
            next.invokeConnect(remote, local, promise);
        } else {
            handOff(next, () -> next.invokeConnect(remote, local, promise), null, promise);
        }
    }

    private void invokeConnect(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
        if (promise.isCancelled()) {
            return;
        }
        if (invokeHandler()) {
            try {
                handler.connect(this, remote, local, promise);
            } catch (Throwable t) {
                outboundFailed(t, promise, null);
            }
        } else if (replaced() != null) {
            invokeConnect(replaced(), remote, local, promise);
        } else {
            invokeConnect(prevOutbound(CONNECT), remote, local, promise);
        }
    }

    @Override
    public Future<Void> disconnect() {
        return disconnect(newPromise());
    }

    @Override
    public Future<Void> disconnect(Promise<Void> promise) {
        if (proceed(promise, null)) {
            invokeDisconnect(prevOutbound(DISCONNECT), promise);
        }
        return promise;
    }

    private static void invokeDisconnect(HandlerContext next, Promise<Void> promise) {
        if (inline(next)) {
            next.invokeDisconnect(promise);
        } else {
            handOff(next, () -> next.invokeDisconnect(promise), null, promise);
        }
    }

    private void invokeDisconnect(Promise<Void> promise) {
        if (promise.isCancelled()) {
            return;
        }
        if (invokeHandler()) {
            try {
                handler.disconnect(this, promise);
            } catch (Throwable t) {
                outboundFailed(t, promise, null);
            }
        } else if (replaced() != null) {
            invokeDisconnect(replaced(), promise);
        } else {
            invokeDisconnect(prevOutbound(DISCONNECT), promise);
        }
    }

    @Override
    public Future<Void> close() {
        return close(newPromise());
    }

    @Override
    public Future<Void> close(Promise<Void> promise) {
        if (proceed(promise, null)) {
            invokeClose(prevOutbound(CLOSE), promise);
        }
        return promise;
    }

    private static void invokeClose(HandlerContext next, Promise<Void> promise) {
        if (inline(next)) {
            next.invokeClose(promise);
        } else {
            handOff(next, () -> next.invokeClose(promise), null, promise);
        }
    }

    private void invokeClose(Promise<Void> promise) {
        if (promise.isCancelled()) {
            return;
        }
        if (invokeHandler()) {
            try {
                handler.close(this, promise);
            } catch (Throwable t) {
                outboundFailed(t, promise, null);
            }
        } else if (replaced() != null) {
            invokeClose(replaced(), promise);
        } else {
            invokeClose(prevOutbound(CLOSE), promise);
        }
    }

    @Override
    public ChannelHandlerContext read() {
        invokeRead(prevOutbound(READ));
        return this;
    }

    static void invokeRead(HandlerContext next) {
        if (inline(next)) {
            next.invokeRead();
        } else {
            handOff(next, next::invokeRead, null, null);
        }
    }

    private void invokeRead() {
        if (invokeHandler()) {
            try {
                handler.read(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeRead(replaced());
        } else {
            invokeRead(prevOutbound(READ));
        }
    }

    @Override
    public Future<Void> write(Object msg) {
        return write(msg, newPromise());
    }

    @Override
    public Future<Void> write(Object msg, Promise<Void> promise) {
        Objects.requireNonNull(msg, "msg");
        if (proceed(promise, msg)) {
            invokeWrite(prevOutbound(WRITE), msg, promise);
        }
        return promise;
    }

    static void invokeWrite(HandlerContext next, Object msg, Promise<Void> promise) {
        if (inline(next)) {
            next.invokeWrite(msg, promise);
        } else {
            handOff(next, () -> next.invokeWrite(msg, promise), msg, promise);
        }
    }

    private void invokeWrite(Object msg, Promise<Void> promise) {
        if (promise.isCancelled()) {
            ReferenceCounted.safeRelease(msg);
            return;
        }
        if (invokeHandler()) {
            try {
                handler.write(this, msg, promise);
            } catch (Throwable t) {
                outboundFailed(t, promise, msg);
            }
        } else if (replaced() != null) {
            invokeWrite(replaced(), msg, promise);
        } else {
            invokeWrite(prevOutbound(WRITE), msg, promise);
        }
    }

    @Override
    public ChannelHandlerContext flush() {
        invokeFlush(prevOutbound(FLUSH));
        return this;
    }

    static void invokeFlush(HandlerContext next) {
        if (inline(next)) {
            next.invokeFlush();
        } else {
            handOff(next, next::invokeFlush, null, null);
        }
    }

    private void invokeFlush() {
        if (invokeHandler()) {
            try {
                handler.flush(this);
            } catch (Throwable t) {
                invokeExceptionCaughtHere(t);
            }
        } else if (replaced() != null) {
            invokeFlush(replaced());
        } else {
            invokeFlush(prevOutbound(FLUSH));
        }
    }

    @Override
    public Future<Void> writeAndFlush(Object msg) {
        return writeAndFlush(msg, newPromise());
    }

    @Override
    public Future<Void> writeAndFlush(Object msg, Promise<Void> promise) {
        write(msg, promise);
        flush();
        return promise;
    }
}
