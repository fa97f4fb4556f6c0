package io.conduit.internal.channel.core;

import io.conduit.buffer.IllegalReferenceCountException;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.AddressBindException;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.ChannelIoOperations;
import io.conduit.internal.channel.OutboundBuffer;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.RejectedExecutionException;

/**
 * The I/O of one kind of channel ({@link StreamIo}, {@link AcceptIo}, {@link DatagramIo}), chosen by the
 * {@link ChannelCore} at construction from its socket, and the channel's internal faces in one object (an idle
 * channel holds no more than it needs): the pipeline head's operations ({@link ChannelIoOperations}), the poller's
 * readiness events ({@link IoEvents}), the config's change listener and the traffic counters listed in
 * {@link OpenChannels} ({@link ChannelStats}). Not the channel itself, so none of these methods is public API of
 * the channel.
 *
 * <p>Threading: every method runs on the channel's event loop, except the {@link ChannelStats} getters and
 * {@link #waterMarkChanged} (any thread).
 */
abstract class KindIo implements ChannelIoOperations, IoEvents, IoChannelConfig.Listener, ChannelStats {

    /** The channel this I/O belongs to; its fields are the shared state (life cycle, outbound buffer, counters). */
    final ChannelCore ch;

    /**
     * Messages written and not yet sent; {@code null} until the first write (an idle channel holds none). Created
     * and used on the loop; read by any thread ({@link #isWritable()}); volatile so that a water-mark change
     * from another thread reaches a buffer created meanwhile.
     */
    volatile OutboundBuffer outboundOrNull;
    private boolean flushing;                  // loop-confined: inside doWrite
    private boolean continuationScheduled;     // loop-confined

    KindIo(ChannelCore ch) {
        this.ch = ch;
    }

    // ------------------------------------------------------------------------------- what the core asks

    /** A read operation begins (auto-read, or {@code read()} with none in progress). */
    abstract void beginRead();

    /** The channel became active with auto-read off. Default: nothing until {@code read()}. */
    void activeWithoutAutoRead() {
    }

    /** @return {@code true} when the kind can write {@code msg} (not released: the core checked that) */
    abstract boolean accepts(Object msg);

    /** @return what can be written, for the message of a refused write, e.g. {@code "a Buffer or a FileRegion"} */
    abstract String writableKinds();

    /**
     * Writes flushed messages from the head of {@code outbound} (not flushed-empty on entry) with at most
     * {@code spins} write calls.
     *
     * @return {@code false} when the socket is full (the core turns on write interest); {@code true} when the
     *         flushed part is written or the spins are spent
     * @throws IOException a socket error, which closes the channel
     */
    abstract boolean write(OutboundBuffer outbound, int spins) throws IOException;

    /** A flush ended (the outbound buffer may still hold flushed messages). Default: nothing. */
    void flushed() {
    }

    /** @return {@code true} while a connect is pending (flushed writes wait for it) */
    boolean connectPending() {
        return false;
    }

    /** @return {@code true} for a connected socket whose channel is not active yet (an accepted connection) */
    boolean connectedBeforeActive() {
        return false;
    }

    /** @return {@code true} once the output was shut down (writes fail) */
    boolean outputShutdown() {
        return false;
    }

    /** Keeps the peer when the channel becomes active. Default: as the socket reported it. */
    void keepRemote(SocketAddress remote) {
        ch.keepRemote(remote, false);
    }

    /** @return the interest ops to hand the poller for the core's {@code ops} (zero-copy forwarding adjusts them) */
    int pollerInterest(int ops) {
        return ops;
    }

    /**
     * Right before a {@link ChannelCore#closeAcceptingQueued()}, on the loop, open and registered: take in what the
     * kernel queued for the channel that closing would lose. Default: nothing.
     */
    void takeQueued() {
    }

    /** The close began, before anything changed: detach what works with other channels. Default: nothing. */
    void closeStarted() {
    }

    /** The channel is closing because of {@code cause} (or {@code null}): fail the kind's pending operations. */
    void closing(Throwable cause) {
    }

    /** The pending writes failed; release what the kind holds. Default: nothing. */
    void closed() {
    }

    /** @return {@code SO_LINGER} seconds to close with ({@code > 0} closes off the loop), or {@code -1} */
    int lingerOnClose() {
        return -1;
    }

    /** {@code disconnect()}: closes the channel; a datagram channel disconnects instead. */
    void disconnect0(Promise<Void> promise) {
        ch.close0(null, "disconnect() was called", promise);
    }

    /** A bind succeeded: the channel becomes active (a stream channel waits for its connect instead). */
    void bound(Promise<Void> promise) {
        ch.succeedAndActivate(promise);
    }

    // ---------------------------------------------------------------------------------------------- writes

    /** @return the outbound buffer, created on the first write (loop thread) */
    private OutboundBuffer outbound() {
        OutboundBuffer ob = outboundOrNull;
        if (ob == null) {
            WriteBufferWaterMark wm = ch.config.waterMark();
            ob = new OutboundBuffer(wm.low(), wm.high());
            outboundOrNull = ob;
            WriteBufferWaterMark now = ch.config.waterMark();
            if (now != wm) { // changed by another thread meanwhile, which may not have seen the new buffer
                ob.waterMarks(now.low(), now.high());
            }
        }
        return ob;
    }

    void write0(Object msg, Promise<Void> promise) {
        if (!ch.open || outputShutdown()) {
            ReferenceCounted.safeRelease(msg);
            promise.tryFailure(ch.open ? new ChannelClosedException("write to channel " + ch.id()
                    + " failed: its output was shut down", null) : ch.closedException("write"));
            return;
        }
        String problem = checkMessage(msg);
        if (problem != null) {
            // decided before the release below, which leaves every refused message at refCnt 0
            boolean released = msg instanceof ReferenceCounted rc && rc.refCnt() == 0;
            ReferenceCounted.safeRelease(msg);
            promise.tryFailure(released ? new IllegalReferenceCountException(problem)
                    : new IllegalArgumentException(problem));
            return;
        }
        if (outbound().addMessage(msg, promise)) {
            ch.pipeline.fireChannelWritabilityChanged();
        }
    }

    private String checkMessage(Object msg) {
        if (msg instanceof ReferenceCounted rc && rc.refCnt() == 0) {
            return "write of a released " + msg.getClass().getSimpleName() + " to channel " + ch.id()
                    + ": the message was freed before it was written (refCnt 0); retain it or write a new one";
        }
        if (accepts(msg)) {
            return null;
        }
        return "channel " + ch + " cannot write a " + (msg == null ? "null" : msg.getClass().getName())
                + "; write " + writableKinds();
    }

    /** Flushes what was written before: the pipeline head's {@code flush()}. Loop thread. */
    @Override
    public void flush() {
        OutboundBuffer ob = outboundOrNull;
        if (ob != null) {
            ob.addFlush();
        }
        flush0();
    }

    /**
     * Writes the flushed part of the outbound buffer. Loop thread.
     *
     * <p><b>Invariant</b> (checked after every {@link #doWrite()}, whichever way it ended): when a flush returns on
     * an open channel, either the flushed part is empty, or write interest ({@code OP_WRITE}) is on, or a
     * continuation task is scheduled. Otherwise flushed data would wait for an event that never comes.
     *
     * <p><b>Re-entrance</b>: {@code doWrite} fires events (writability changes, write promises completing) whose
     * handlers may write and flush into this channel again, e.g. a relay whose writability turns auto-read of
     * the other channel on, which delivers that channel's held input at once and writes it here. Such a nested
     * flush does not write itself (see {@code flushing}); the outer flush writes it with its remaining spins, and
     * after {@code doWrite} returned the invariant is re-established for whatever is left (write readiness or a
     * continuation), whichever exit {@code doWrite} took.
     */
    void flush0() {
        if (flushing) {
            return; // nested in doWrite: the outer flush takes care of it (see the invariant above)
        }
        if (flushedEmpty()) {
            ch.setInterest(IoSocket.OP_WRITE, false);
            return;
        }
        if (!ch.open) {
            failAllPending(null);
            return;
        }
        boolean connecting = connectPending();
        if (!ch.active && !connecting && !connectedBeforeActive()) {
            // nothing would ever write it: fail it now (the class comment, "writes")
            if (outboundOrNull.failFlushed(() -> AddressErrors.notActive(ch.id(), this instanceof DatagramIo))) {
                ch.pipeline.fireChannelWritabilityChanged();
            }
            return;
        }
        if (!ch.active || connecting || (ch.interestOps & IoSocket.OP_WRITE) != 0) {
            return; // after connecting / when the socket reports writable
        }
        flushing = true;
        try {
            doWrite();
        } catch (Throwable t) {
            flushing = false;
            if (t instanceof IOException) {
                ch.loopCounters.ioError();
                ch.close0(t, "an I/O error while writing", null);
            } else {
                OutboundBuffer ob = outboundOrNull;
                if (ob != null && !ob.isFlushedEmpty()) {
                    if (ob.removeHead(t)) {
                        ch.pipeline.fireChannelWritabilityChanged();
                    }
                }
                ch.pipeline.fireExceptionCaught(t);
            }
        } finally {
            flushing = false;
        }
        if (ch.open && !flushedEmpty() && (ch.interestOps & IoSocket.OP_WRITE) == 0) {
            scheduleContinuation(); // the invariant above: something must resume the flushed rest
        }
        flushed();
    }

    /** @return {@code true} when nothing flushed waits (also when nothing was ever written) */
    boolean flushedEmpty() {
        OutboundBuffer ob = outboundOrNull;
        return ob == null || ob.isFlushedEmpty();
    }

    /**
     * Called by flush0 only when something flushed waits: the outbound buffer exists. The kind's I/O writes with at
     * most {@code WRITE_SPIN_COUNT} calls; what is left waits for write readiness (the socket is full: the kind's
     * I/O turned {@code OP_WRITE} on) or for a continuation (the spins are spent).
     */
    private void doWrite() throws IOException {
        OutboundBuffer outbound = this.outboundOrNull; // not null here
        if (!write(outbound, ch.config.writeSpinCount())) {
            ch.setInterest(IoSocket.OP_WRITE, true);
            return;
        }
        if (!outbound.isFlushedEmpty()) {
            scheduleContinuation(); // budget spent but the socket still accepts: let other channels run first
        } else {
            ch.setInterest(IoSocket.OP_WRITE, false);
        }
    }

    private void scheduleContinuation() {
        if (continuationScheduled) {
            return;
        }
        continuationScheduled = true;
        try {
            ch.eventLoop().execute(() -> {
                continuationScheduled = false;
                flush0(); // only the flushed part: no addFlush() here
            });
        } catch (RejectedExecutionException e) {
            continuationScheduled = false;
            ch.setInterest(IoSocket.OP_WRITE, true); // the loop is shutting down; the poller still drives us
        }
    }

    /** The poller reported the socket writable. */
    @Override
    public void writeReady() {
        ch.setInterest(IoSocket.OP_WRITE, false);
        flush0();
    }

    void failAllPending(Throwable cause) {
        OutboundBuffer outbound = this.outboundOrNull;
        if (outbound != null && outbound.failAll(() -> new ChannelClosedException("write to channel " + ch.id()
                + " failed: the channel closed before the write completed" + ch.closeExplanation(), cause))) {
            ch.pipeline.fireChannelWritabilityChanged();
        }
    }

    // ------------------------------------------------------------------ ChannelIoOperations (the head)

    @Override
    public void bind(SocketAddress local, Promise<Void> promise) {
        if (!promise.setUncancellable()) {
            return; // cancelled on its way: nothing was bound (a cancel from now on returns false)
        }
        if (!ch.open) {
            promise.tryFailure(ch.closedException("bind to " + local));
            return;
        }
        try {
            if (ch.socket instanceof IoServerSocket listener) {
                listener.bind(local, ch.config.backlog());
            } else {
                ch.socket.bind(local);
            }
            ch.localAddressChanged();
        } catch (IOException | RuntimeException e) {
            promise.tryFailure(e instanceof IOException io ? bindFailure(local, io) : e);
            return;
        }
        bound(promise);
    }

    /**
     * @return the error of a failed bind naming {@code local}: an {@link AddressBindException} with the reason of
     *         {@code e} (see {@link AddressBindException#reasonOf}) when it is a bind error, saying what to do for
     *         {@code EADDRINUSE} (bind(2)); an {@link IOException} otherwise
     */
    private static IOException bindFailure(SocketAddress local, IOException e) {
        String m = String.valueOf(e.getMessage());
        AddressBindException.Reason reason = AddressBindException.reasonOf(e);
        if (reason == null) {
            return new IOException("bind to " + local + " failed: " + m, e);
        }
        boolean inUse = reason == AddressBindException.Reason.IN_USE;
        return new AddressBindException("bind to " + local + " failed: " + m
                + (inUse ? ": another socket is bound to " + local + "; close it or choose another address" : ""),
                reason, local, e);
    }

    @Override
    public void disconnect(Promise<Void> promise) {
        if (!promise.setUncancellable()) {
            return; // cancelled on its way: nothing was done
        }
        disconnect0(promise);
    }

    @Override
    public void close(Promise<Void> promise) {
        if (!promise.setUncancellable()) {
            return; // cancelled on its way: the channel stays open, as the cancel said
        }
        ch.close0(null, "close() was called", promise);
    }

    @Override
    public void read() {
        beginRead();
    }

    @Override
    public void write(Object msg, Promise<Void> promise) {
        write0(msg, promise);
    }

    // ------------------------------------------------------------------ IoEvents (the poller)

    @Override
    public void connectReady() {
        ch.setInterest(IoSocket.OP_CONNECT, false); // only a stream channel connects
    }

    @Override
    public void loopShuttingDown() {
        ch.close0(null, "its event loop shut down", null);
    }

    // ------------------------------------------------------------------ IoChannelConfig.Listener

    @Override
    public void autoReadTurnedOff() {
        EventLoop l = ch.eventLoop();
        if (l == null || !ch.registered) {
            return;
        }
        Runnable task = () -> {
            if (ch.config.isAutoRead()) {
                return; // turned on again meanwhile
            }
            ch.readPending = false;
            stopReadingWithoutAutoRead();
        };
        if (l.inEventLoop()) {
            task.run();
        } else {
            l.execute(task);
        }
    }

    /** Auto-read was turned off and no read is pending. Default: stop polling input. */
    void stopReadingWithoutAutoRead() {
        ch.setInterest(IoSocket.OP_READ, false);
    }

    @Override
    public void waterMarkChanged(WriteBufferWaterMark waterMark) {
        OutboundBuffer ob = outboundOrNull; // null: outbound() reads the config again after creating it
        if (ob != null) {
            ob.waterMarks(waterMark.low(), waterMark.high());
        }
    }

    // ------------------------------------------------------------------ ChannelStats (OpenChannels)

    @Override
    public Channel channel() {
        return ch;
    }

    @Override
    public long bytesRead() {
        return ch.bytesRead;
    }

    @Override
    public long bytesWritten() {
        return ch.bytesWritten;
    }

    @Override
    public long openedAtNanos() {
        return ch.registeredAtNanos;
    }

    // ------------------------------------------------------------------ shared by the kinds

    /** @return {@code true} when input is wanted: auto-read, or a pending {@code read()} */
    final boolean wantsInput() {
        return ch.config.isAutoRead() || ch.readPending;
    }

    /** Counts a failed read, accept or datagram receive as an I/O error, unless the allocator failed. */
    final void countIoError(Throwable failure) {
        if (!(failure instanceof ReadFailures.AllocatorFailure)) {
            ch.loopCounters.ioError();
        }
    }
}
