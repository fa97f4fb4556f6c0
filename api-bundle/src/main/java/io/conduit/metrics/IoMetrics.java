package io.conduit.metrics;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The counters an event loop keeps, and a transport sums over its loops. Every value is a count since the loop
 * was made, except the gauges {@link #getOpenChannels()} and {@link #getPendingTasks()}.
 */
@ProviderType
public interface IoMetrics {

    /** @return channels registered and not yet closed now (gauge): listeners, connections, datagram channels */
    long getOpenChannels();

    /** @return connections accepted by listeners */
    long getAcceptedConnections();

    /** @return payload bytes read from sockets (stream bytes and datagram payloads) */
    long getBytesRead();

    /** @return payload bytes written to sockets (stream bytes, file regions and datagram payloads) */
    long getBytesWritten();

    /** @return datagrams received */
    long getDatagramsRead();

    /** @return datagrams sent */
    long getDatagramsWritten();

    /**
     * @return I/O errors reported to pipelines: failed reads, writes and connects, accept errors (one per burst),
     *         datagrams that could not be sent
     */
    long getIoErrors();

    /** @return tasks queued for the loop and not yet run, now (gauge; scheduled tasks not yet due are not counted) */
    long getPendingTasks();

    /** @return nanoseconds the loop spent running: handling I/O and tasks, everything but waiting */
    long getBusyNanos();

    /** @return nanoseconds the loop spent blocked in its poller ({@code epoll_wait}, {@code kevent}, {@code select}, a park) */
    long getWaitNanos();
}
