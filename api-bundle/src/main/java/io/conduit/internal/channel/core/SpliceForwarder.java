package io.conduit.internal.channel.core;

import io.conduit.channel.ChannelClosedException;
import io.conduit.concurrent.Promise;
import io.conduit.transport.spi.IoSplicePipe;

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;

/**
 * One direction of {@link io.conduit.channel.ZeroCopyForwarding}: moves the input of a source channel to a target
 * channel through an {@link IoSplicePipe}. Both channels share one event loop; every method runs on it.
 *
 * <p>The pump alternates {@link IoSplicePipe#drain()} and {@link IoSplicePipe#fill()}: the pipe is filled only when
 * empty, and drained only when the target's own flushed writes are gone (ordering). When the target is full the
 * source's read interest is dropped and the target's write interest is set (back-pressure: bytes stay in the kernel);
 * when the source is empty its read interest is set. At most {@link #ROUNDS_PER_TURN} rounds run per turn, then the
 * rest continues in a task, so one busy connection does not starve the loop.
 */
final class SpliceForwarder {

    /** Fill/drain rounds per turn before yielding to the loop's other work. */
    private static final int ROUNDS_PER_TURN = 16;

    private final StreamIo source;
    private final StreamIo target;
    private final IoSplicePipe pipe;
    private final Promise<Void> promise;

    private boolean wantsSourceRead;   // loop-confined: read interest of the source, while attached
    private boolean wantsTargetWrite;  // loop-confined: write interest of the target, while attached
    private boolean endOfStream;       // loop-confined: the source reached end of stream
    private boolean pumping;           // loop-confined: inside pump (re-entry from close callbacks is ignored)
    private boolean continuationScheduled; // loop-confined
    private boolean detached;          // loop-confined: finished, failed or stopped

    SpliceForwarder(StreamIo source, StreamIo target, IoSplicePipe pipe, Promise<Void> promise) {
        this.source = source;
        this.target = target;
        this.pipe = pipe;
        this.promise = promise;
    }

    boolean wantsSourceRead() {
        return wantsSourceRead;
    }

    boolean wantsTargetWrite() {
        return wantsTargetWrite;
    }

    /** The source socket reported input (or end of stream, or an error). */
    void sourceReadable() {
        pump();
    }

    /** The target socket reported room, or the target's flushed writes have drained. */
    void targetWritable() {
        if (wantsTargetWrite) {
            pump();
        }
    }

    void pump() {
        if (pumping || detached) {
            return;
        }
        pumping = true;
        try {
            for (int round = 0; round < ROUNDS_PER_TURN; round++) {
                if (pipe.buffered() > 0) {
                    if (!target.spliceTargetReady()) {
                        waitForTarget();
                        return;
                    }
                    long n;
                    try {
                        n = pipe.drain();
                    } catch (IOException e) {
                        fail(target, e);
                        return;
                    }
                    target.spliceWritten(n);
                    if (pipe.buffered() > 0) {
                        waitForTarget(); // the target is full: stop taking from the source
                        return;
                    }
                }
                interest(true, false);
                if (endOfStream) {
                    finish();
                    return;
                }
                long n;
                try {
                    n = pipe.fill();
                } catch (IOException e) {
                    fail(source, e);
                    return;
                }
                if (n < 0) {
                    endOfStream = true;
                } else if (n == 0) {
                    return; // read interest is on: the source reports the next input
                } else {
                    source.spliceRead(n);
                }
            }
            scheduleContinuation();
        } finally {
            pumping = false;
        }
    }

    private void waitForTarget() {
        interest(false, true);
    }

    private void interest(boolean sourceRead, boolean targetWrite) {
        if (wantsSourceRead != sourceRead) {
            wantsSourceRead = sourceRead;
            source.ch.applyInterest();
        }
        if (wantsTargetWrite != targetWrite) {
            wantsTargetWrite = targetWrite;
            target.ch.applyInterest();
        }
    }

    private void scheduleContinuation() {
        if (continuationScheduled) {
            return;
        }
        continuationScheduled = true;
        try {
            source.ch.eventLoop().execute(() -> {
                continuationScheduled = false;
                pump();
            });
        } catch (RejectedExecutionException e) {
            continuationScheduled = false;
            interest(true, wantsTargetWrite); // the loop is shutting down; the poller still drives us
        }
    }

    /** End of stream reached and the pipe is empty: detach, succeed, and let the source handle the end of stream. */
    private void finish() {
        detach();
        promise.trySuccess(null);
        source.spliceEndOfStream();
    }

    private void fail(StreamIo where, IOException e) {
        detach();
        promise.tryFailure(e);
        where.spliceFailed(e, true);
        (where == source ? target : source).spliceFailed(e, false);
    }

    /** {@code closed} (one of the two channels) is closing: stop, keeping the other channel as it is. */
    void channelClosed(StreamIo closed) {
        if (detached) {
            return;
        }
        detach();
        promise.tryFailure(new ChannelClosedException("zero-copy forwarding from " + source.ch + " to " + target.ch
                + " stopped: " + (closed == source ? "the source" : "the target") + " channel closed", null));
    }

    private void detach() {
        detached = true;
        wantsSourceRead = false;
        wantsTargetWrite = false;
        source.spliceDetached(this);
        target.spliceDetached(this);
        pipe.close();
    }
}
