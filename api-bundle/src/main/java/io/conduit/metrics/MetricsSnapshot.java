package io.conduit.metrics;

import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The platform's metrics at one moment ({@link io.conduit.transport.Transports#metrics()}). Immutable; every value
 * was copied when the snapshot was taken. Lists are sorted by name.
 */
@ProviderType
public interface MetricsSnapshot {

    /** @return {@link System#nanoTime()} when the snapshot was taken */
    long nanoTime();

    /** @return every transport that made an event loop group in this JVM */
    List<TransportMetrics> transports();

    /** @return every event loop that has not terminated */
    List<EventLoopMetrics> eventLoops();

    /** @return every started, not yet closed {@code ManagedServer} and {@code ManagedDatagramEndpoint} */
    List<EndpointMetrics> endpoints();

    /** @return the pooled allocator */
    AllocatorMetrics allocator();

    /** @return the transport named {@code name}, if it made an event loop group */
    default Optional<TransportMetrics> transport(String name) {
        return transports().stream().filter(t -> t.getName().equals(name)).findFirst();
    }
}
