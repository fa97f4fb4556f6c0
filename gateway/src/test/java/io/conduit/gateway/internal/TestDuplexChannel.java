package io.conduit.gateway.internal;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.InputShutdownReadCompleteEvent;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.Future;

/** An {@link EmbeddedChannel} that can half-close and whose writability the test sets. */
public class TestDuplexChannel extends EmbeddedChannel implements DuplexChannel {

    private boolean inputShutdown;
    private boolean outputShutdown;
    /** What had been flushed when the output was shut down; -1 while open. */
    public int flushedAtOutputShutdown = -1;
    private boolean writable = true;

    public TestDuplexChannel(ChannelHandler... handlers) {
        super(handlers);
    }

    /** The peer sent FIN: fires the half-closure events as the channel core does. */
    public void receiveEof() {
        inputShutdown = true;
        pipeline().fireUserEventTriggered(InputShutdownEvent.INSTANCE);
        pipeline().fireUserEventTriggered(InputShutdownReadCompleteEvent.INSTANCE);
        runPendingTasks();
    }

    public void setWritable(boolean writable) {
        this.writable = writable;
        pipeline().fireChannelWritabilityChanged();
        runPendingTasks();
    }

    @Override
    public boolean isWritable() {
        return writable;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    @Override
    public boolean isShutdown() {
        return inputShutdown && outputShutdown;
    }

    @Override
    public Future<Void> shutdownInput() {
        inputShutdown = true;
        return eventLoop().newSucceededFuture(null);
    }

    @Override
    public Future<Void> shutdownOutput() {
        outputShutdown = true;
        flushedAtOutputShutdown = outboundMessages().size();
        return eventLoop().newSucceededFuture(null);
    }

    @Override
    public Future<Void> shutdown() {
        shutdownInput();
        return shutdownOutput();
    }
}
