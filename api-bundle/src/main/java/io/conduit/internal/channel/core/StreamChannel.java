package io.conduit.internal.channel.core;

import io.conduit.channel.Channel;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoStreamSocket;

/**
 * The face of a stream channel of the core (TCP or Unix-domain): half-closure and zero-copy forwarding on top of the
 * shared life cycle; the work is its {@link StreamIo}'s.
 */
public abstract class StreamChannel extends ChannelCore implements DuplexChannel, ZeroCopyForwarding {

    StreamChannel(String transportName, ChannelType type, IoStreamSocket socket, Channel parent, EventLoop loop) {
        super(transportName, type, socket, parent, loop);
    }

    private StreamIo stream() {
        return (StreamIo) io;
    }

    @Override
    public boolean isInputShutdown() {
        return stream().inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return stream().outputShutdown;
    }

    @Override
    public boolean isShutdown() {
        StreamIo s = stream();
        return s.inputShutdown && s.outputShutdown;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Like the other operations here, the returned future is cancellable until the loop starts the operation: a
     * successful cancel means it did not happen.
     */
    @Override
    public Future<Void> shutdownInput() {
        return stream().shutdownInput();
    }

    /** Fails unflushed writes, waits until the flushed ones are written, then {@code shutdown(SHUT_WR)}. */
    @Override
    public Future<Void> shutdownOutput() {
        return stream().shutdownOutput();
    }

    @Override
    public Future<Void> shutdown() {
        return stream().shutdown();
    }

    @Override
    public boolean canForwardTo(Channel target) {
        return stream().canForwardTo(target);
    }

    @Override
    public Future<Void> forwardTo(Channel target) {
        return stream().forwardTo(target);
    }
}
