package io.conduit.metrics;

import javax.management.MXBean;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One {@code ManagedServer} or {@code ManagedDatagramEndpoint}: totals over every transport it was on, so they do
 * not reset when it swaps. JMX: {@code io.conduit:type=ManagedServer,name="<address>"} or
 * {@code io.conduit:type=ManagedDatagramEndpoint,name="<address>"}.
 */
@MXBean
@ProviderType
public interface EndpointMetrics {

    /** @return {@code ManagedServer} or {@code ManagedDatagramEndpoint} */
    String getKind();

    /** @return the bound address, e.g. {@code /127.0.0.1:8080} (the requested one before the first bind) */
    String getName();

    /** @return the transport new work goes to now, or an empty string when nothing listens */
    String getTransport();

    /** @return connections (ManagedServer) or adopted channels (ManagedDatagramEndpoint) open now, on every transport (gauge) */
    long getOpenConnections();

    /** @return connections accepted, on every transport (0 for a datagram endpoint) */
    long getAcceptedConnections();

    /** @return swaps that moved the endpoint to another transport */
    long getSwaps();

    /**
     * @return swaps that closed the old listener before the new one was bound (no {@code SO_REUSEPORT} overlap):
     *         during such a swap the kernel refuses connection attempts, which the process cannot count
     */
    long getSwapsWithoutOverlap();

    /** @return swaps that found no transport to bind on (the endpoint kept or lost its listener, see the log) */
    long getSwapFailures();

    /** @return drains started: an old transport's connections were told to finish and close */
    long getDrains();

    /** @return connections closed by a drain (flushed, or failed at the grace period) */
    long getDrainedConnections();

    /** @return connections a drain closed at the grace period with writes still pending (those writes failed) */
    long getDrainTimeouts();
}
