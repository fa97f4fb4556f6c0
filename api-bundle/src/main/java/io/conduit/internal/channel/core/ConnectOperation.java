package io.conduit.internal.channel.core;

import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ConnectTimeoutException;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.TimeUnit;

/**
 * The connect of a stream channel, from {@code connect(2)} to the socket's connect readiness: the
 * {@code CONNECT_TIMEOUT_MILLIS} timer on the loop ({@link ConnectTimeoutException} naming address and timeout), and
 * the cancel of the connect promise, which closes the channel, also when the cancel came before the connect reached
 * the loop, whichever entry it came through ({@code Channel.connect}, {@code ChannelPipeline.connect}, a handler's
 * context). Made per connect that has to wait; an idle channel holds none. Loop-confined, except
 * {@link #closeWhenCancelled} (any thread).
 */
final class ConnectOperation {

    private final StreamIo io;
    final Promise<Void> promise;
    private final SocketAddress target;
    private ScheduledFuture<?> timeout;        // loop-confined

    private ConnectOperation(StreamIo io, Promise<Void> promise, SocketAddress target) {
        this.io = io;
        this.promise = promise;
        this.target = target;
    }

    /** Starts a connect of {@code io}'s channel; a connect that has to wait becomes {@code io.connecting}. */
    static void start(StreamIo io, SocketAddress remote, SocketAddress local, Promise<Void> promise) {
        ChannelCore ch = io.ch;
        if (!ch.open) {
            promise.tryFailure(ch.closedException("connect to " + remote));
            return;
        }
        IoStreamSocket s = (IoStreamSocket) ch.socket;
        if (io.connecting != null) {
            promise.tryFailure(new ConnectionPendingException());
            return;
        }
        if (ch.active || s.isConnected()) {
            promise.tryFailure(new AlreadyConnectedException());
            return;
        }
        try {
            if (s.connect(remote, local)) {
                if (!promise.setUncancellable() || promise.isDone()) {
                    ch.close0(null, "the connect was cancelled", null); // cancelled while connecting
                    return;
                }
                ch.succeedAndActivate(promise);
                return;
            }
        } catch (IOException | RuntimeException e) {
            Throwable annotated = ChannelCore.annotate(e, remote);
            ch.loopCounters.ioError();
            promise.tryFailure(annotated);
            ch.close0(annotated, "the connect failed", null); // writes made meanwhile fail naming it
            return;
        }
        ConnectOperation op = new ConnectOperation(io, promise, remote);
        io.connecting = op;
        ch.setInterest(IoSocket.OP_CONNECT, true);
        int timeoutMillis = ch.config.connectTimeoutMillis();
        if (timeoutMillis > 0) {
            op.timeout = ch.eventLoop().schedule(() -> {
                if (io.connecting == op && !promise.isDone()) {
                    ConnectTimeoutException e = new ConnectTimeoutException("connection timed out after "
                            + timeoutMillis + " ms (CONNECT_TIMEOUT_MILLIS): " + remote);
                    io.connecting = null;
                    promise.tryFailure(e);
                    ch.close0(e, "the connect timed out", null);
                }
            }, timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Closes a stream channel (on the loop, whichever thread cancels) once the connect {@code promise} is
     * cancelled; called for every entry of a connect into the pipeline ({@code connectEntered}), before it travels,
     * so a connect the pipeline drops on its way (cancelled before it reached the head) closes the channel as well
     * as one pending at the socket. Not when a connect other than this one connected the channel meanwhile (a
     * redundant connect the core refuses must not close a working connection). A loop that rejects the close has
     * shut down, which closes its channels itself.
     */
    static void closeWhenCancelled(StreamIo io, Promise<Void> promise) {
        promise.addListener(f -> {
            if (f.isCancelled()) {
                io.ch.onLoop(() -> {
                    ConnectOperation op = io.connecting;
                    if (op != null && op.promise == promise) {
                        op.cancelTimeout();
                        io.connecting = null;
                    } else if (io.ch.active) {
                        return; // connected by another, uncancelled connect (this one was refused or dropped)
                    }
                    io.ch.close0(null, "the connect was cancelled", null);
                }, null);
            }
        });
    }

    /** The socket reported connect readiness: finish the connect, or fail it and close. */
    void ready() {
        ChannelCore ch = io.ch;
        try {
            if (!((IoStreamSocket) ch.socket).finishConnect()) {
                return;
            }
            ch.setInterest(IoSocket.OP_CONNECT, false);
            io.connecting = null;
            cancelTimeout();
            if (!promise.setUncancellable() || promise.isDone()) {
                ch.close0(null, "the connect was cancelled", null); // cancelled meanwhile
                return;
            }
            ch.succeedAndActivate(promise);
        } catch (IOException | RuntimeException e) {
            io.connecting = null;
            cancelTimeout();
            Throwable annotated = ChannelCore.annotate(e, target);
            ch.loopCounters.ioError();
            promise.tryFailure(annotated);
            ch.close0(annotated, "the connect failed", null);
        }
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    /** The channel closes because of {@code cause} (or {@code null}) while the connect is pending. */
    void abort(Throwable cause) {
        cancelTimeout();
        promise.tryFailure(new ChannelClosedException("connect to " + target + " on channel " + io.ch.id()
                + " was aborted: the channel closed" + (cause != null ? " because of " + cause : ""), cause));
    }
}
