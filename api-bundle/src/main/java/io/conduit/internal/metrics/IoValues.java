package io.conduit.internal.metrics;

import io.conduit.metrics.EventLoopMetrics;
import io.conduit.metrics.TransportMetrics;

/**
 * Counters copied at one moment: one loop's or a transport's sum. Filled by one thread, then only read (safe
 * publication by whoever hands the snapshot over).
 */
final class IoValues implements TransportMetrics, EventLoopMetrics {

    final String name;
    final String transport;
    String threadName = "";
    int eventLoops;
    long openChannels;
    long acceptedConnections;
    long bytesRead;
    long bytesWritten;
    long datagramsRead;
    long datagramsWritten;
    long ioErrors;
    long pendingTasks;
    long busyNanos;
    long waitNanos;

    IoValues(String name, String transport) {
        this.name = name;
        this.transport = transport;
    }

    /** Adds every counter of {@code other}, except the gauges (open channels, pending tasks, loops). */
    void addCounters(IoValues other) {
        acceptedConnections += other.acceptedConnections;
        bytesRead += other.bytesRead;
        bytesWritten += other.bytesWritten;
        datagramsRead += other.datagramsRead;
        datagramsWritten += other.datagramsWritten;
        ioErrors += other.ioErrors;
        busyNanos += other.busyNanos;
        waitNanos += other.waitNanos;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String getTransport() {
        return transport;
    }

    @Override
    public String getThreadName() {
        return threadName;
    }

    @Override
    public int getEventLoops() {
        return eventLoops;
    }

    @Override
    public long getOpenChannels() {
        return openChannels;
    }

    @Override
    public long getAcceptedConnections() {
        return acceptedConnections;
    }

    @Override
    public long getBytesRead() {
        return bytesRead;
    }

    @Override
    public long getBytesWritten() {
        return bytesWritten;
    }

    @Override
    public long getDatagramsRead() {
        return datagramsRead;
    }

    @Override
    public long getDatagramsWritten() {
        return datagramsWritten;
    }

    @Override
    public long getIoErrors() {
        return ioErrors;
    }

    @Override
    public long getPendingTasks() {
        return pendingTasks;
    }

    @Override
    public long getBusyNanos() {
        return busyNanos;
    }

    @Override
    public long getWaitNanos() {
        return waitNanos;
    }

    @Override
    public String toString() {
        return "IoMetrics[" + name + ": open=" + openChannels + ", accepted=" + acceptedConnections + ", read="
                + bytesRead + " B, written=" + bytesWritten + " B, datagrams=" + datagramsRead + "/" + datagramsWritten
                + ", ioErrors=" + ioErrors + ", pending=" + pendingTasks + ", busy=" + busyNanos + " ns, wait="
                + waitNanos + " ns]";
    }
}
