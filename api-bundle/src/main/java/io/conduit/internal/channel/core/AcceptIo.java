package io.conduit.internal.channel.core;

import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.OutboundBuffer;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The I/O of a listener: accepting, and backing off after accept errors. Errors such as {@code EMFILE}/{@code ENFILE}
 * never close the listener: accepting pauses ({@value #ACCEPT_BACKOFF_MILLIS} ms, no polling in between) and the
 * error fires once per burst. Accepted connections are passed to the pipeline as unregistered channels of the core
 * through {@code channelRead}. A listener writes nothing and connects nowhere.
 */
final class AcceptIo extends KindIo {

    /** Pause of accepting after an accept error ({@code EMFILE}, {@code ENFILE}, …), in milliseconds. */
    static final int ACCEPT_BACKOFF_MILLIS = 100;

    /** Most connections {@link #takeQueued()} accepts: a bound on a close under a connection flood. */
    static final int MAX_TAKEN_ON_CLOSE = 4096;

    private boolean acceptPaused;              // loop-confined: backing off after an accept error
    private boolean acceptErrorReported;       // loop-confined: the current burst was reported

    AcceptIo(ChannelCore ch) {
        super(ch);
    }

    @Override
    void beginRead() {
        if (!ch.open || !ch.registered) {
            return;
        }
        ch.readPending = true;
        if (!acceptPaused) { // else: resumes when the back-off ends
            ch.setInterest(IoSocket.OP_READ, true);
        }
    }

    @Override
    public void readReady() {
        if (ch.open) {
            acceptRead();
        }
    }

    private void acceptRead() {
        if (acceptPaused || !wantsInput()) {
            ch.setInterest(IoSocket.OP_READ, false);
            return;
        }
        ch.readPending = false;
        IoServerSocket s = (IoServerSocket) ch.socket;
        int maxMessages = ch.config.maxMessagesPerRead();
        int messages = 0;
        Throwable failure = null;
        try {
            while (messages < maxMessages && ch.open) {
                IoStreamSocket child = s.accept();
                if (child == null) {
                    break;
                }
                acceptErrorReported = false; // an accept worked: a later error starts a new burst
                messages++;
                ch.loopCounters.accepted();
                ch.pipeline.fireChannelRead(newChildChannel(child));
                if (!ch.config.isAutoRead()) {
                    break;
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
        if (messages > 0) {
            ch.pipeline.fireChannelReadComplete();
        }
        if (failure != null) {
            pauseAccepting(failure);
        } else if (!ch.config.isAutoRead() && !ch.readPending) {
            ch.setInterest(IoSocket.OP_READ, false);
        }
    }

    /**
     * Accepts until the queue is empty ({@code accept} answers nothing) or {@value #MAX_TAKEN_ON_CLOSE} connections,
     * whatever auto-read and {@code maxMessagesPerRead} say: the listener closes right after. An accept error ends
     * it and is fired as usual.
     */
    @Override
    void takeQueued() {
        IoServerSocket s = (IoServerSocket) ch.socket;
        int messages = 0;
        try {
            for (IoStreamSocket child; messages < MAX_TAKEN_ON_CLOSE && (child = s.acceptQueued()) != null; ) {
                messages++;
                ch.loopCounters.accepted();
                ch.pipeline.fireChannelRead(newChildChannel(child));
            }
        } catch (Throwable t) {
            ch.loopCounters.ioError();
            ch.pipeline.fireExceptionCaught(t);
        }
        if (messages > 0) {
            ch.pipeline.fireChannelReadComplete();
        }
    }

    private void pauseAccepting(Throwable failure) {
        // EMFILE/ENFILE and friends: the pending connection stays queued, so polling again at once would spin.
        acceptPaused = true;
        ch.setInterest(IoSocket.OP_READ, false);
        if (!acceptErrorReported) {
            acceptErrorReported = true;
            ch.loopCounters.ioError();
            ch.pipeline.fireExceptionCaught(failure);
        }
        ch.readPending = wantsInput();
        ch.eventLoop().schedule(() -> {
            acceptPaused = false;
            if (ch.open && wantsInput()) {
                ch.readPending = false;
                ch.setInterest(IoSocket.OP_READ, true);
                acceptRead(); // try at once: the poller would report the queued connection anyway
            }
        }, ACCEPT_BACKOFF_MILLIS, TimeUnit.MILLISECONDS);
    }

    private ChannelCore newChildChannel(IoStreamSocket child) {
        return ch.type == ChannelType.UNIX_STREAM
                ? new IoDomainSocketChannel(ch.transportName, child, ch, null)
                : new IoSocketChannel(ch.transportName, child, ch, null);
    }

    @Override
    public void connect(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
        if (!ch.open) {
            promise.tryFailure(ch.closedException("connect to " + remote));
            return;
        }
        promise.tryFailure(new UnsupportedOperationException("a server channel cannot connect (" + ch + ")"));
    }

    @Override
    boolean accepts(Object msg) {
        return false;
    }

    @Override
    String writableKinds() {
        return "nothing to a server channel";
    }

    @Override
    boolean write(OutboundBuffer outbound, int spins) {
        return true; // accepts() refused every message: nothing is ever flushed
    }
}
