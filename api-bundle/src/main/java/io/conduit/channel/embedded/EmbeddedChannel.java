package io.conduit.channel.embedded;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelPipeline;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.ChannelIoOperations;
import io.conduit.internal.channel.DefaultChannelConfig;
import io.conduit.internal.channel.DefaultChannelPipeline;
import io.conduit.internal.concurrent.DefaultPromise;

/**
 * A {@link Channel} without I/O, for unit-testing handlers: the test feeds inbound messages with
 * {@link #writeInbound(Object...)} and reads what reached the end of the pipeline with {@link #readInbound()};
 * it writes outbound messages with {@link #writeOutbound(Object...)} and reads what reached the head (written
 * and flushed) with {@link #readOutbound()}.
 *
 * <p>The channel is registered and active from construction (its handlers saw {@code channelRegistered} and
 * {@code channelActive}) until {@link #close()} or {@link #finish()}. Its pipeline is the real
 * pipeline of every Conduit channel; its {@link #eventLoop()} is an {@link EmbeddedEventLoop} owned by the
 * thread that created the channel, so tasks that handlers schedule run only when the test calls
 * {@link #runPendingTasks()} or {@link #runScheduledPendingTasks()}. Use the channel from that thread.
 *
 * <p>An exception that reaches the end of the pipeline is kept (later ones are added to it as suppressed) and
 * rethrown by {@link #checkException()}, which the {@code write*} and {@link #finish()} methods call.
 */
public class EmbeddedChannel implements Channel {

    private static final AtomicLong IDS = new AtomicLong();
    private static final SocketAddress EMBEDDED_ADDRESS = new SocketAddress() {
        private static final long serialVersionUID = 1L;

        @Override
        public String toString() {
            return "embedded";
        }
    };

    private final String id = "embedded-" + Long.toHexString(IDS.incrementAndGet());
    private final EmbeddedEventLoop loop = new EmbeddedEventLoop();
    private final DefaultChannelConfig config = new DefaultChannelConfig(this);
    private final DefaultChannelPipeline pipeline;
    private final DefaultPromise<Void> closeFuture = new DefaultPromise<>(loop);
    /** Messages that reached the tail; filled on the loop thread, read by the test. */
    private final Queue<Object> inbound = new ConcurrentLinkedQueue<>();
    /** Messages written and flushed to the head. */
    private final Queue<Object> outbound = new ConcurrentLinkedQueue<>();
    /** Written but not yet flushed, with their promises; confined to the loop thread. */
    private final List<Object[]> unflushed = new ArrayList<>();

    private volatile boolean open = true;
    private volatile boolean registered;
    private volatile boolean active;
    private volatile SocketAddress localAddress = EMBEDDED_ADDRESS;
    private volatile SocketAddress remoteAddress = EMBEDDED_ADDRESS;
    /** The first exception that reached the tail and was not yet checked; written on the loop thread. */
    private volatile Throwable pendingException;
    /** How often the head was asked to read. */
    private final AtomicLong readRequests = new AtomicLong();

    /**
     * Creates an open, registered, active channel with {@code handlers} added last (with generated names).
     *
     * @param handlers the handlers, none {@code null}; may be empty
     */
    public EmbeddedChannel(ChannelHandler... handlers) {
        Objects.requireNonNull(handlers, "handlers");
        pipeline = new EmbeddedPipeline();
        pipeline.addLast(handlers);
        registered = true;
        pipeline.fireChannelRegistered();
        active = true;
        pipeline.fireChannelActive();
        runPendingTasks();
    }

    // ---------------------------------------------------------------- test API

    /**
     * Fires {@code channelRead} for each message, then one {@code channelReadComplete}, and runs pending tasks.
     *
     * @return {@code true} when something reached the end of the pipeline (see {@link #readInbound()})
     * @throws IllegalStateException when the channel is closed (the messages are released)
     */
    public boolean writeInbound(Object... msgs) {
        ensureOpen(msgs);
        for (Object m : msgs) {
            pipeline.fireChannelRead(m);
        }
        pipeline.fireChannelReadComplete();
        runPendingTasks();
        checkException();
        return !inbound.isEmpty();
    }

    /** @return the oldest message that reached the end of the pipeline, or {@code null} */
    @SuppressWarnings("unchecked")
    public <T> T readInbound() {
        return (T) inbound.poll();
    }

    /**
     * Writes each message through the pipeline from the tail, flushes, and runs pending tasks.
     *
     * @return {@code true} when something reached the head (see {@link #readOutbound()})
     * @throws IllegalStateException when the channel is closed (the messages are released)
     * @throws RuntimeException the failure of a write, rethrown as is (checked exceptions unchecked)
     */
    public boolean writeOutbound(Object... msgs) {
        ensureOpen(msgs);
        List<Future<Void>> futures = new ArrayList<>(msgs.length);
        for (Object m : msgs) {
            futures.add(pipeline.write(m));
        }
        pipeline.flush();
        runPendingTasks();
        checkException();
        for (Future<Void> f : futures) {
            if (f.isDone() && !f.isSuccess() && !f.isCancelled()) {
                throwUnchecked(f.cause());
            }
        }
        return !outbound.isEmpty();
    }

    /** @return the oldest message that was written and flushed to the head, or {@code null} */
    @SuppressWarnings("unchecked")
    public <T> T readOutbound() {
        return (T) outbound.poll();
    }

    /** @return the live queue of messages that reached the end of the pipeline */
    public Queue<Object> inboundMessages() {
        return inbound;
    }

    /** @return the live queue of messages written and flushed to the head */
    public Queue<Object> outboundMessages() {
        return outbound;
    }

    /**
     * Closes the channel, runs pending tasks and checks for exceptions.
     *
     * @return {@code true} when inbound or outbound messages are left to read
     */
    public boolean finish() {
        close();
        runPendingTasks();
        checkException();
        return !inbound.isEmpty() || !outbound.isEmpty();
    }

    /** {@link #finish()}, then releases every message left. @return {@code true} when any was left */
    public boolean finishAndReleaseAll() {
        boolean left = finish();
        releaseInbound();
        releaseOutbound();
        return left;
    }

    /** Releases and drops every inbound message left. @return {@code true} when any was left */
    public boolean releaseInbound() {
        return releaseAll(inbound);
    }

    /** Releases and drops every outbound message left. @return {@code true} when any was left */
    public boolean releaseOutbound() {
        return releaseAll(outbound);
    }

    private static boolean releaseAll(Queue<Object> queue) {
        boolean any = false;
        for (Object m; (m = queue.poll()) != null;) {
            ReferenceCounted.safeRelease(m);
            any = true;
        }
        return any;
    }

    /** Runs queued tasks and scheduled tasks that are due, on the calling thread. */
    public void runPendingTasks() {
        loop.runPendingTasks();
        loop.runScheduledPendingTasks();
        loop.runPendingTasks();
    }

    /**
     * Runs scheduled tasks that are due on the loop's clock.
     *
     * @return nanoseconds until the next scheduled task is due, or {@code -1} when none is scheduled
     */
    public long runScheduledPendingTasks() {
        long next = loop.runScheduledPendingTasks();
        loop.runPendingTasks();
        return next;
    }

    /** Moves the loop's clock forward (see {@link EmbeddedEventLoop#advanceTimeBy(long, TimeUnit)}). */
    public void advanceTimeBy(long amount, TimeUnit unit) {
        loop.advanceTimeBy(amount, unit);
    }

    /**
     * Rethrows, once, the exception that reached the end of the pipeline (checked exceptions are thrown
     * unchecked); later exceptions are attached to it as suppressed. No effect when there was none.
     */
    public void checkException() {
        Throwable t = pendingException;
        if (t != null) {
            pendingException = null;
            throwUnchecked(t);
        }
    }

    /** @return how many times a read reached the head (auto-read and explicit {@link #read()} calls) */
    public long readRequests() {
        return readRequests.get();
    }

    private void ensureOpen(Object[] msgs) {
        if (!open) {
            for (Object m : msgs) {
                ReferenceCounted.safeRelease(m);
            }
            throw new IllegalStateException("EmbeddedChannel " + id + " is closed; messages released");
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void throwUnchecked(Throwable t) throws E {
        throw (E) t;
    }

    // ---------------------------------------------------------------- Channel

    @Override
    public String id() {
        return id;
    }

    /** @return {@code "embedded"} */
    @Override
    public String transportName() {
        return "embedded";
    }

    @Override
    public EmbeddedEventLoop eventLoop() {
        return loop;
    }

    @Override
    public Channel parent() {
        return null;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public ChannelPipeline pipeline() {
        return pipeline;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isRegistered() {
        return registered;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public SocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public Future<Void> closeFuture() {
        return closeFuture;
    }

    @Override
    public boolean isWritable() {
        return true;
    }

    @Override
    public long bytesBeforeUnwritable() {
        return Long.MAX_VALUE;
    }

    @Override
    public long bytesBeforeWritable() {
        return 0;
    }

    @Override
    public Promise<Void> newPromise() {
        return pipeline.newPromise();
    }

    @Override
    public String toString() {
        return "EmbeddedChannel[" + id + (open ? "" : ", closed") + "]";
    }

    // ---------------------------------------------------------------- pipeline and I/O

    /** Keeps what reaches the tail instead of releasing or logging it. */
    private final class EmbeddedPipeline extends DefaultChannelPipeline {
        EmbeddedPipeline() {
            super(EmbeddedChannel.this, new EmbeddedIo());
        }

        @Override
        protected void onUnhandledMessage(Object msg) {
            inbound.add(msg);
        }

        @Override
        protected void onUnhandledException(Throwable cause) {
            Throwable first = pendingException;
            if (first == null) {
                pendingException = cause;
            } else if (first != cause) {
                first.addSuppressed(cause);
            }
        }
    }

    /** The head's I/O: keeps flushed messages in {@link #outbound}; runs on the loop thread. */
    private final class EmbeddedIo implements ChannelIoOperations {
        @Override
        public void bind(SocketAddress address, Promise<Void> promise) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: nothing happens
            }
            if (failIfClosed(promise, "bind")) {
                return;
            }
            localAddress = address;
            promise.trySuccess(null);
        }

        @Override
        public void connect(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: nothing happens
            }
            if (failIfClosed(promise, "connect")) {
                return;
            }
            remoteAddress = remote;
            if (local != null) {
                localAddress = local;
            }
            promise.trySuccess(null);
        }

        /** Closes, as for a stream channel. */
        @Override
        public void disconnect(Promise<Void> promise) {
            close(promise);
        }

        @Override
        public void close(Promise<Void> promise) {
            if (!promise.setUncancellable()) {
                return; // cancelled on its way: nothing happens
            }
            if (!open) {
                promise.trySuccess(null);
                return;
            }
            open = false;
            for (Object[] pending : unflushed) {
                ReferenceCounted.safeRelease(pending[0]);
                @SuppressWarnings("unchecked")
                Promise<Void> p = (Promise<Void>) pending[1];
                p.tryFailure(new ChannelClosedException("write of " + pending[0]
                        + " was not flushed before EmbeddedChannel " + id + " closed", null));
            }
            unflushed.clear();
            if (active) {
                active = false;
                pipeline.fireChannelInactive();
            }
            if (registered) {
                registered = false;
                pipeline.fireChannelUnregistered();
            }
            closeFuture.trySuccess(null);
            promise.trySuccess(null);
        }

        @Override
        public void read() {
            readRequests.incrementAndGet();
        }

        @Override
        public void write(Object msg, Promise<Void> promise) {
            if (!open) {
                ReferenceCounted.safeRelease(msg);
                promise.tryFailure(new ChannelClosedException("write of " + msg + " to closed EmbeddedChannel "
                        + id, null));
                return;
            }
            unflushed.add(new Object[] {msg, promise});
        }

        @Override
        public void flush() {
            for (Object[] pending : unflushed) {
                @SuppressWarnings("unchecked")
                Promise<Void> p = (Promise<Void>) pending[1];
                if (p.setUncancellable()) {
                    outbound.add(pending[0]);
                    p.trySuccess(null);
                } else {
                    ReferenceCounted.safeRelease(pending[0]);
                }
            }
            unflushed.clear();
        }

        private boolean failIfClosed(Promise<Void> promise, String op) {
            if (open) {
                return false;
            }
            promise.tryFailure(new ChannelClosedException(op + " on closed EmbeddedChannel " + id, null));
            return true;
        }
    }
}
