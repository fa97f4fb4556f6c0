package io.conduit.internal.metrics;

import io.conduit.metrics.EventLoopMetrics;
import io.conduit.metrics.TransportMetrics;

/** A live view for JMX: every attribute read takes the values anew. Refers to API-bundle objects only. */
abstract class IoView implements TransportMetrics, EventLoopMetrics {

    abstract IoValues current();

    @Override
    public String getName() {
        return current().getName();
    }

    @Override
    public String getTransport() {
        return current().getTransport();
    }

    @Override
    public String getThreadName() {
        return current().getThreadName();
    }

    @Override
    public int getEventLoops() {
        return current().getEventLoops();
    }

    @Override
    public long getOpenChannels() {
        return current().getOpenChannels();
    }

    @Override
    public long getAcceptedConnections() {
        return current().getAcceptedConnections();
    }

    @Override
    public long getBytesRead() {
        return current().getBytesRead();
    }

    @Override
    public long getBytesWritten() {
        return current().getBytesWritten();
    }

    @Override
    public long getDatagramsRead() {
        return current().getDatagramsRead();
    }

    @Override
    public long getDatagramsWritten() {
        return current().getDatagramsWritten();
    }

    @Override
    public long getIoErrors() {
        return current().getIoErrors();
    }

    @Override
    public long getPendingTasks() {
        return current().getPendingTasks();
    }

    @Override
    public long getBusyNanos() {
        return current().getBusyNanos();
    }

    @Override
    public long getWaitNanos() {
        return current().getWaitNanos();
    }
}
