package io.conduit.transport;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.internal.metrics.EndpointCounters;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One transport's event-loop group, socket and tied channels (accepted connections, adopted channels). A
 * subclass keeps the tied channels and drains them its way.
 */
abstract class SwapGeneration {
    final Transport transport;
    final EventLoopGroup group;
    private final SwapEngine<?> engine;
    volatile Channel channel;        // written once by the swap thread after the bind
    volatile boolean reusePort;      // written once by the swap thread after the bind: SO_REUSEPORT is on
    volatile boolean retired;        // written by the swap thread: the socket is closed or being closed
    /** Written once under this generation's monitor: why its tied channels are drained; null while kept. */
    volatile String drainCause;
    private final AtomicBoolean released = new AtomicBoolean();

    SwapGeneration(SwapEngine<?> engine, Transport transport, EventLoopGroup group) {
        this.engine = engine;
        this.transport = transport;
        this.group = group;
    }

    boolean owns(EventLoop loop) {
        return loop.parent() == group || loop == group;
    }

    /**
     * Waits at most {@link SwapEngine#STEP_TIMEOUT_MILLIS} for {@code bound}; on failure throws and leaves the group
     * running (a bind after a close is retried on it; the caller that gives up shuts it down).
     *
     * @return the bound channel
     * @throws Exception the bind's failure, or an {@link IOException} naming the address and transport
     */
    Channel awaitBound(Future<Channel> bound, SocketAddress address) throws Exception {
        Throwable failure;
        if (!bound.await(SwapEngine.STEP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            bound.cancel(false); // a socket bound after this closes itself (ServerBootstrap.bind, Bootstrap.bind)
            failure = new IOException("binding " + address + " on '" + transport.name() + "' did not finish within "
                    + SwapEngine.STEP_TIMEOUT_MILLIS + " ms");
        } else {
            failure = bound.cause();
        }
        if (failure == null) {
            return bound.getNow();
        }
        // the group stays: a bind retried after a close reuses it; whoever gives up shuts it down
        if (failure instanceof Exception ex) {
            throw ex;
        }
        throw new IOException("binding " + address + " on '" + transport.name() + "' failed: " + failure, failure);
    }

    /**
     * Closes the socket, waiting at most {@link SwapEngine#STEP_TIMEOUT_MILLIS}.
     *
     * @param takeQueued whether a listener first accepts what waits in its accept queue (its connections stay open
     *        on this generation); otherwise closing resets them, unless {@code tcp_migrate_req} moves them to the
     *        successor
     */
    void closeSocket(boolean takeQueued) {
        Channel c = channel;
        if (c != null) {
            try {
                Future<Void> closed = takeQueued ? CoreCalls.closeAcceptingQueued(c) : c.close();
                closed.await(SwapEngine.STEP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return tied channels still open */
    abstract int members();

    /** Starts the drain of every tied channel; called once, after {@link #drainCause} was set. */
    abstract void drainMembers();

    /** On {@link SwapEngine#close()}: drains (or closes) every tied channel, the drain's cause {@code cause}. */
    void closeMembers(String cause) {
        startDrain(cause);
    }

    /** @return the engine's grace period of a drain, in nanoseconds */
    final long gracePeriodNanos() {
        return engine.gracePeriodNanos;
    }

    final EndpointCounters metrics() {
        return engine.metrics;
    }

    /** Drains every tied channel, and those tied later; the first call's cause wins. */
    final void startDrain(String cause) {
        synchronized (this) {
            if (drainCause != null) {
                return;
            }
            drainCause = cause;
        }
        engine.metrics.drainStarted();
        drainMembers();
    }

    /** Shuts the group down once the generation is retired, its socket closed and its last tied channel gone. */
    final void maybeRelease() {
        Channel c = channel;
        if (retired && members() == 0 && (c == null || !c.isOpen()) && released.compareAndSet(false, true)) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).addListener(f -> {
                synchronized (engine.lock) {
                    engine.forget(this);
                }
            });
        }
    }
}
