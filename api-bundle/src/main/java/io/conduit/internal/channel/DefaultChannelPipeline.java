package io.conduit.internal.channel;

import java.net.SocketAddress;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelPipeline;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.concurrent.DefaultPromise;

/**
 * The pipeline of every Conduit channel: a doubly linked list of {@link HandlerContext}s between a fixed head
 * and a fixed tail.
 *
 * <p><b>Head</b> (not a handler, not listed, not removable): outbound operations that reach it are performed by
 * the {@link ChannelIoOperations} given to the constructor, on the channel's event loop. After
 * {@code channelActive} and {@code channelReadComplete} have passed it towards the handlers, it calls
 * {@link Channel#read()} when {@link io.conduit.channel.ChannelConfig#isAutoRead()} is on, so auto-read keeps
 * reading. <b>Tail</b>: releases messages nobody consumed (logged at DEBUG), logs each exception nobody handled
 * once at WARNING with the channel id, and drops (releasing) unhandled user events; subclasses change this with
 * {@link #onUnhandledMessage(Object)}, {@link #onUnhandledException(Throwable)} and
 * {@link #onUnhandledUserEvent(Object)}.
 *
 * <p><b>Structure and threads</b>: add/remove/replace may be called from any thread at any time; structural
 * changes are guarded by {@link #lock}. Events keep flowing meanwhile: an event already past a position is not
 * affected, a removed context forwards events still on their way to it, later events see the new list.
 * {@code handlerAdded}/{@code handlerRemoved} run on the handler's executor (inline when the caller is on it);
 * before the channel has an event loop they run on the calling thread. A handler added with its own
 * {@link EventExecutor} gets every event and operation on that executor, in order; it is never skipped.
 * Handlers that do not override an event's method and run on the channel's loop are skipped for that event
 * ({@link HandlerMasks}; measured: 10 such handlers cost about 20 ns per read against about 60 ns for 10
 * forwarding ones).
 *
 * <p>Known limitation: removing a handler that runs on its own executor while events are still queued there
 * lets later events (which no longer pass that executor) overtake them downstream; every event still arrives
 * exactly once. Removing or replacing loop-bound handlers keeps the order.
 *
 * <p><b>Channel core contract</b>: construct once per channel (before registration is fine). Fire inbound
 * events on the channel's event loop: {@code fireChannelRegistered()} once registered (so a
 * {@link io.conduit.channel.ChannelInitializer} runs), {@code fireChannelActive()} once when bound/connected, after
 * registration (the head then starts auto-read through {@link Channel#read()}), {@code fireChannelRead} per message
 * and one {@code fireChannelReadComplete()} per read operation (the head then reads again when auto-read is on),
 * and on close {@code fireChannelInactive()} then {@code fireChannelUnregistered()}. {@link Channel#isRegistered()}
 * must be {@code true} before {@code fireChannelRegistered()}.
 */
public class DefaultChannelPipeline implements ChannelPipeline {

    private static final System.Logger LOG = System.getLogger(DefaultChannelPipeline.class.getName());

    /** Generated names kept per handler class ({@code Name#0} … {@code Name#3}); more are made when needed. */
    private static final int SHARED_NAMES = 4;

    /**
     * Per handler class: its simple class name (the base of generated names) followed by the first
     * {@value #SHARED_NAMES} generated names, made once and shared by every pipeline (a per-channel name string
     * would cost memory on every idle connection); cached with the class.
     */
    private static final ClassValue<String[]> NAMES = new ClassValue<>() {
        @Override
        protected String[] computeValue(Class<?> type) {
            String simple = type.getSimpleName();
            if (simple.isEmpty()) { // anonymous or hidden class
                String full = type.getName();
                simple = full.substring(full.lastIndexOf('.') + 1);
            }
            String[] names = new String[SHARED_NAMES + 1];
            names[0] = simple;
            for (int i = 0; i < SHARED_NAMES; i++) {
                names[i + 1] = simple + '#' + i;
            }
            return names;
        }
    };

    /** Whether a handler class carries {@link ChannelHandler.Sharable}; cached with the class. */
    private static final ClassValue<Boolean> SHARABLE = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return type.isAnnotationPresent(ChannelHandler.Sharable.class);
        }
    };

    /** Non-sharable handler instances currently in some pipeline; weak, so nothing is pinned. */
    private static final WeakIdentitySet IN_A_PIPELINE = new WeakIdentitySet();

    final Channel channel;     // read by HeadContext
    final ChannelIoOperations io; // where HeadContext sends outbound operations
    final HeadContext head;
    final TailContext tail;
    /**
     * Guards structural changes (links, names, {@link HandlerContext#replacement}): the head, an internal object
     * no user code can reach (one lock object less per channel).
     */
    private final Object lock;

    /**
     * @param channel the channel this pipeline belongs to; its {@link Channel#eventLoop()} may be {@code null}
     *        until registration
     * @param io performs outbound operations that reach the head; called on the channel's event loop
     */
    public DefaultChannelPipeline(Channel channel, ChannelIoOperations io) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.io = Objects.requireNonNull(io, "io");
        head = new HeadContext(this);
        tail = new TailContext(this);
        lock = head;
        head.next = tail;
        tail.prev = head;
        head.handlerState = HandlerContext.ADDED;
        tail.handlerState = HandlerContext.ADDED;
    }

    @Override
    public final Channel channel() {
        return channel;
    }

    /** A connect with {@code promise} entered the pipeline at a context; see {@link ChannelIoOperations#connectEntered}. */
    final void connectEntered(Promise<Void> promise) {
        io.connectEntered(promise);
    }

    @Override
    public Promise<Void> newPromise() {
        return new DefaultPromise<>(channel.eventLoop());
    }

    // ---------------------------------------------------------------- structure

    @Override
    public ChannelPipeline addFirst(String name, ChannelHandler handler) {
        return add(null, name, handler, Position.FIRST, null);
    }

    @Override
    public ChannelPipeline addLast(String name, ChannelHandler handler) {
        return add(null, name, handler, Position.LAST, null);
    }

    @Override
    public ChannelPipeline addLast(ChannelHandler... handlers) {
        Objects.requireNonNull(handlers, "handlers");
        for (ChannelHandler h : handlers) {
            addLast(null, Objects.requireNonNull(h, "a handler in handlers"));
        }
        return this;
    }

    @Override
    public ChannelPipeline addLast(EventExecutor executor, String name, ChannelHandler handler) {
        return add(executor, name, handler, Position.LAST, null);
    }

    /** Adds {@code handler} first, its methods running on {@code executor} ({@code null} = the channel's loop). */
    public ChannelPipeline addFirst(EventExecutor executor, String name, ChannelHandler handler) {
        return add(executor, name, handler, Position.FIRST, null);
    }

    @Override
    public ChannelPipeline addBefore(String baseName, String name, ChannelHandler handler) {
        return add(null, name, handler, Position.BEFORE, Objects.requireNonNull(baseName, "baseName"));
    }

    @Override
    public ChannelPipeline addAfter(String baseName, String name, ChannelHandler handler) {
        return add(null, name, handler, Position.AFTER, Objects.requireNonNull(baseName, "baseName"));
    }

    private enum Position { FIRST, LAST, BEFORE, AFTER }

    private ChannelPipeline add(EventExecutor executor, String name, ChannelHandler handler, Position where,
            String baseName) {
        Objects.requireNonNull(handler, "handler");
        HandlerContext ctx;
        boolean inline;
        synchronized (lock) {
            HandlerContext prev;
            switch (where) {
                case FIRST -> prev = head;
                case LAST -> prev = tail.prev;
                case BEFORE -> prev = contextOrThrow(baseName).prev;
                default -> prev = contextOrThrow(baseName);
            }
            name = name == null ? generateName(handler) : checkUnique(name);
            claim(handler);
            ctx = new HandlerContext(this, executor, name, handler, HandlerMasks.mask(handler.getClass()));
            try {
                inline = link(prev, ctx, prev.next);
            } catch (RuntimeException e) {
                unclaim(handler);
                throw e;
            }
        }
        if (inline) {
            callHandlerAdded(ctx);
        }
        return this;
    }

    /**
     * Links {@code ctx} between {@code prev} and {@code next}; called under {@link #lock}. When the handler's
     * executor is another thread, handlerAdded is queued there <em>before</em> the context becomes reachable,
     * so it runs before any event.
     *
     * @return {@code true} when the caller must call handlerAdded itself after unlocking
     */
    private boolean link(HandlerContext prev, HandlerContext ctx, HandlerContext next) {
        ctx.prev = prev;
        ctx.next = next;
        EventExecutor ex = ctx.executor();
        boolean inline = ex == null || ex.inEventLoop();
        if (!inline) {
            ex.execute(() -> callHandlerAdded(ctx)); // may throw RejectedExecutionException: not linked then
        }
        prev.next = ctx;
        next.prev = ctx;
        return inline;
    }

    private void callHandlerAdded(HandlerContext ctx) {
        if (ctx.handlerState != HandlerContext.INIT) {
            return;
        }
        ctx.handlerState = HandlerContext.ADDED;
        try {
            ctx.handler.handlerAdded(ctx);
        } catch (Throwable t) {
            boolean removedHere = false;
            synchronized (lock) {
                if (!ctx.isRemoved()) {
                    unlink(ctx);
                    removedHere = true;
                }
            }
            if (removedHere) {
                callHandlerRemoved(ctx);
            }
            fireExceptionCaught(new IllegalStateException("handlerAdded of handler '" + ctx.name + "' ("
                    + ctx.handler.getClass().getName() + ") threw; the handler was removed from the pipeline of "
                    + channel.id(), t));
        }
    }

    private void callHandlerRemoved(HandlerContext ctx) {
        EventExecutor ex = ctx.executor();
        if (ex == null || ex.inEventLoop()) {
            invokeHandlerRemoved(ctx);
        } else {
            try {
                ex.execute(() -> invokeHandlerRemoved(ctx));
            } catch (RuntimeException rejected) {
                LOG.log(System.Logger.Level.WARNING, "executor of handler '" + ctx.name + "' rejected its "
                        + "handlerRemoved call; calling it on " + Thread.currentThread().getName(), rejected);
                invokeHandlerRemoved(ctx);
            }
        }
    }

    private void invokeHandlerRemoved(HandlerContext ctx) {
        int state = ctx.handlerState;
        ctx.handlerState = HandlerContext.REMOVED;
        if (state != HandlerContext.ADDED) {
            return; // handlerAdded never ran: nothing to undo
        }
        try {
            ctx.handler.handlerRemoved(ctx);
        } catch (Throwable t) {
            fireExceptionCaught(new IllegalStateException("handlerRemoved of handler '" + ctx.name + "' ("
                    + ctx.handler.getClass().getName() + ") threw", t));
        }
    }

    /** Unlinks {@code ctx}, which keeps its own links for events still on their way; under {@link #lock}. */
    private void unlink(HandlerContext ctx) {
        HandlerContext prev = ctx.prev;
        HandlerContext next = ctx.next;
        prev.next = next;
        next.prev = prev;
        if (ctx.replacement == null) {
            ctx.replacement = ctx; // removed, not replaced
        }
        unclaim(ctx.handler);
    }

    @Override
    public ChannelPipeline remove(ChannelHandler handler) {
        HandlerContext ctx;
        synchronized (lock) {
            ctx = contextOrThrow(handler);
            unlink(ctx);
        }
        callHandlerRemoved(ctx);
        return this;
    }

    @Override
    public ChannelHandler remove(String name) {
        HandlerContext ctx;
        synchronized (lock) {
            ctx = contextOrThrow(Objects.requireNonNull(name, "name"));
            unlink(ctx);
        }
        callHandlerRemoved(ctx);
        return ctx.handler;
    }

    @Override
    public ChannelHandler replace(String oldName, String newName, ChannelHandler newHandler) {
        Objects.requireNonNull(newHandler, "newHandler");
        HandlerContext old;
        HandlerContext ctx;
        boolean inline;
        synchronized (lock) {
            old = contextOrThrow(Objects.requireNonNull(oldName, "oldName"));
            if (newName == null) {
                newName = generateName(newHandler);
            } else if (!newName.equals(oldName)) {
                checkUnique(newName);
            }
            boolean sameInstance = newHandler == old.handler;
            if (!sameInstance) {
                claim(newHandler);
            }
            ctx = new HandlerContext(this, old.ownExecutor, newName, newHandler,
                    HandlerMasks.mask(newHandler.getClass()));
            try {
                inline = link(old.prev, ctx, old.next);
            } catch (RuntimeException e) {
                if (!sameInstance) {
                    unclaim(newHandler);
                }
                throw e;
            }
            old.replacement = ctx; // removed and replaced
            if (!sameInstance) {
                unclaim(old.handler);
            }
        }
        if (inline) {
            callHandlerAdded(ctx);
        }
        callHandlerRemoved(old);
        return old.handler;
    }

    private String generateName(ChannelHandler handler) {
        String[] names = NAMES.get(handler.getClass());
        for (int i = 0;; i++) {
            String candidate = i < SHARED_NAMES ? names[i + 1] : names[0] + '#' + i;
            if (find(candidate) == null) {
                return candidate;
            }
        }
    }

    private String checkUnique(String name) {
        if (find(name) != null) {
            throw new IllegalArgumentException("duplicate handler name '" + name + "' in the pipeline of channel "
                    + channel.id() + "; choose another name or pass null to generate one");
        }
        return name;
    }

    private static void claim(ChannelHandler handler) {
        if (!SHARABLE.get(handler.getClass()) && !IN_A_PIPELINE.add(handler)) {
            throw new IllegalArgumentException("handler " + handler + " (" + handler.getClass().getName()
                    + ") is already in a pipeline and is not @Sharable; create a new instance per channel or "
                    + "annotate its class with @ChannelHandler.Sharable if it is thread-safe");
        }
    }

    private static void unclaim(ChannelHandler handler) {
        if (!SHARABLE.get(handler.getClass())) {
            IN_A_PIPELINE.remove(handler);
        }
    }

    /** Under {@link #lock}. */
    private HandlerContext find(String name) {
        for (HandlerContext c = head.next; c != tail; c = c.next) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        return null;
    }

    private HandlerContext contextOrThrow(String name) {
        HandlerContext ctx = find(name);
        if (ctx == null) {
            throw new NoSuchElementException("no handler named '" + name + "' in the pipeline of channel "
                    + channel.id() + "; present: " + namesLocked());
        }
        return ctx;
    }

    private HandlerContext contextOrThrow(ChannelHandler handler) {
        Objects.requireNonNull(handler, "handler");
        for (HandlerContext c = head.next; c != tail; c = c.next) {
            if (c.handler == handler) {
                return c;
            }
        }
        throw new NoSuchElementException("handler " + handler + " is not in the pipeline of channel "
                + channel.id() + "; present: " + namesLocked());
    }

    private List<String> namesLocked() {
        List<String> names = new ArrayList<>();
        for (HandlerContext c = head.next; c != tail; c = c.next) {
            names.add(c.name);
        }
        return names;
    }

    @Override
    public ChannelHandler get(String name) {
        ChannelHandlerContext ctx = context(name);
        return ctx == null ? null : ctx.handler();
    }

    @Override
    public <T extends ChannelHandler> T get(Class<T> handlerType) {
        Objects.requireNonNull(handlerType, "handlerType");
        synchronized (lock) {
            for (HandlerContext c = head.next; c != tail; c = c.next) {
                if (handlerType.isInstance(c.handler)) {
                    return handlerType.cast(c.handler);
                }
            }
        }
        return null;
    }

    @Override
    public ChannelHandlerContext context(String name) {
        Objects.requireNonNull(name, "name");
        synchronized (lock) {
            return find(name);
        }
    }

    @Override
    public ChannelHandlerContext context(ChannelHandler handler) {
        Objects.requireNonNull(handler, "handler");
        synchronized (lock) {
            for (HandlerContext c = head.next; c != tail; c = c.next) {
                if (c.handler == handler) {
                    return c;
                }
            }
        }
        return null;
    }

    @Override
    public ChannelHandler first() {
        HandlerContext c = head.next;
        return c == tail ? null : c.handler;
    }

    @Override
    public ChannelHandler last() {
        HandlerContext c = tail.prev;
        return c == head ? null : c.handler;
    }

    @Override
    public List<String> names() {
        synchronized (lock) {
            return namesLocked();
        }
    }

    /** @return a snapshot of name → handler, head to tail */
    public Map<String, ChannelHandler> toMap() {
        Map<String, ChannelHandler> map = new java.util.LinkedHashMap<>();
        synchronized (lock) {
            for (HandlerContext c = head.next; c != tail; c = c.next) {
                map.put(c.name, c.handler);
            }
        }
        return map;
    }

    /** Iterates over a snapshot taken when called; head and tail are not included. */
    @Override
    public Iterator<Map.Entry<String, ChannelHandler>> iterator() {
        List<Map.Entry<String, ChannelHandler>> entries = new ArrayList<>();
        synchronized (lock) {
            for (HandlerContext c = head.next; c != tail; c = c.next) {
                entries.add(new AbstractMap.SimpleImmutableEntry<>(c.name, c.handler));
            }
        }
        return entries.iterator();
    }

    @Override
    public String toString() {
        return "DefaultChannelPipeline" + toMap().keySet() + " of " + channel;
    }

    // ---------------------------------------------------------------- inbound: start at the head

    @Override
    public ChannelPipeline fireChannelRegistered() {
        HandlerContext.invokeChannelRegistered(head);
        return this;
    }

    @Override
    public ChannelPipeline fireChannelUnregistered() {
        HandlerContext.invokeChannelUnregistered(head);
        return this;
    }

    @Override
    public ChannelPipeline fireChannelActive() {
        HandlerContext.invokeChannelActive(head);
        return this;
    }

    @Override
    public ChannelPipeline fireChannelInactive() {
        HandlerContext.invokeChannelInactive(head);
        return this;
    }

    @Override
    public ChannelPipeline fireExceptionCaught(Throwable cause) {
        HandlerContext.invokeExceptionCaught(head, Objects.requireNonNull(cause, "cause"));
        return this;
    }

    @Override
    public ChannelPipeline fireUserEventTriggered(Object event) {
        HandlerContext.invokeUserEventTriggered(head, Objects.requireNonNull(event, "event"));
        return this;
    }

    @Override
    public ChannelPipeline fireChannelRead(Object msg) {
        HandlerContext.invokeChannelRead(head, Objects.requireNonNull(msg, "msg"));
        return this;
    }

    @Override
    public ChannelPipeline fireChannelReadComplete() {
        HandlerContext.invokeChannelReadComplete(head);
        return this;
    }

    @Override
    public ChannelPipeline fireChannelWritabilityChanged() {
        HandlerContext.invokeChannelWritabilityChanged(head);
        return this;
    }

    // ---------------------------------------------------------------- outbound: start at the tail

    @Override
    public Future<Void> bind(SocketAddress localAddress) {
        return tail.bind(localAddress);
    }

    @Override
    public Future<Void> connect(SocketAddress remoteAddress) {
        return tail.connect(remoteAddress);
    }

    @Override
    public Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress) {
        return tail.connect(remoteAddress, localAddress);
    }

    @Override
    public Future<Void> disconnect() {
        return tail.disconnect();
    }

    @Override
    public Future<Void> close() {
        return tail.close();
    }

    @Override
    public Future<Void> bind(SocketAddress localAddress, Promise<Void> promise) {
        return tail.bind(localAddress, promise);
    }

    @Override
    public Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise) {
        return tail.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public Future<Void> disconnect(Promise<Void> promise) {
        return tail.disconnect(promise);
    }

    @Override
    public Future<Void> close(Promise<Void> promise) {
        return tail.close(promise);
    }

    @Override
    public ChannelPipeline read() {
        tail.read();
        return this;
    }

    @Override
    public Future<Void> write(Object msg) {
        return tail.write(msg);
    }

    @Override
    public Future<Void> write(Object msg, Promise<Void> promise) {
        return tail.write(msg, promise);
    }

    @Override
    public ChannelPipeline flush() {
        tail.flush();
        return this;
    }

    @Override
    public Future<Void> writeAndFlush(Object msg) {
        return tail.writeAndFlush(msg);
    }

    @Override
    public Future<Void> writeAndFlush(Object msg, Promise<Void> promise) {
        return tail.writeAndFlush(msg, promise);
    }

    // ---------------------------------------------------------------- tail hooks

    /**
     * A message reached the tail: no handler consumed it. Default: log at DEBUG and release it. Runs on the
     * channel's event loop.
     */
    protected void onUnhandledMessage(Object msg) {
        try {
            LOG.log(System.Logger.Level.DEBUG, () -> "channel " + channel.id() + ": message " + msg
                    + " reached the end of the pipeline unhandled and was released; add a handler that consumes it");
        } finally {
            ReferenceCounted.safeRelease(msg);
        }
    }

    /** An exception reached the tail: no handler handled it. Default: log once at WARNING with the channel id. */
    protected void onUnhandledException(Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, "channel " + channel.id() + ": an exception reached the end of the "
                + "pipeline unhandled; add a handler that overrides exceptionCaught", cause);
    }

    /** A user event reached the tail. Default: drop it, releasing it when reference counted. */
    protected void onUnhandledUserEvent(Object event) {
        ReferenceCounted.safeRelease(event);
    }
}
