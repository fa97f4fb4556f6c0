package io.conduit.internal.metrics;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import javax.management.ObjectName;

import io.conduit.metrics.EndpointMetrics;

/**
 * The counters of one managed endpoint, for its whole life (every generation of every swap adds to the same
 * object). Written by the endpoint's swap thread and by loop threads once per connection or swap, never per
 * read or write, so plain atomics. Also the live view registered with JMX.
 */
public final class EndpointCounters implements EndpointMetrics {

    private final String kind;
    private final Supplier<String> name;
    private final Supplier<String> transport;
    private final LongSupplier openConnections;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong swaps = new AtomicLong();
    private final AtomicLong swapsWithoutOverlap = new AtomicLong();
    private final AtomicLong swapFailures = new AtomicLong();
    private final AtomicLong drains = new AtomicLong();
    private final AtomicLong drainedConnections = new AtomicLong();
    private final AtomicLong drainTimeouts = new AtomicLong();
    private volatile ObjectName objectName; // written by listed()/unlisted() on the endpoint's swap thread

    /**
     * @param kind {@code ManagedServer} or {@code ManagedDatagramEndpoint}
     * @param name the address, read on every call
     * @param transport the current transport's name, or an empty string; read on every call
     * @param openConnections connections open now
     */
    public EndpointCounters(String kind, Supplier<String> name, Supplier<String> transport, LongSupplier openConnections) {
        this.kind = kind;
        this.name = name;
        this.transport = transport;
        this.openConnections = openConnections;
    }

    public void accepted() {
        accepted.incrementAndGet();
    }

    /** A swap moved the endpoint to another transport; {@code overlap}: the new listener was bound first. */
    public void swapped(boolean overlap) {
        swaps.incrementAndGet();
        if (!overlap) {
            swapsWithoutOverlap.incrementAndGet();
        }
    }

    public void swapFailed() {
        swapFailures.incrementAndGet();
    }

    public void drainStarted() {
        drains.incrementAndGet();
    }

    /** A drained connection closed; {@code timedOut}: at the grace period, with writes failed. */
    public void drained(boolean timedOut) {
        drainedConnections.incrementAndGet();
        if (timedOut) {
            drainTimeouts.incrementAndGet();
        }
    }

    /** Lists the endpoint in snapshots and on JMX (when enabled); again after a change of address is harmless. */
    public void listed() {
        PlatformMetrics.listEndpoint(this);
    }

    /** Removes the endpoint from snapshots and JMX. */
    public void unlisted() {
        PlatformMetrics.unlistEndpoint(this);
    }

    ObjectName objectName() {
        return objectName;
    }

    void objectName(ObjectName n) {
        objectName = n;
    }

    /** @return the values now, as an immutable copy */
    EndpointMetrics copy() {
        return new EndpointValues(getKind(), getName(), getTransport(), getOpenConnections(), getAcceptedConnections(),
                getSwaps(), getSwapsWithoutOverlap(), getSwapFailures(), getDrains(), getDrainedConnections(),
                getDrainTimeouts());
    }

    @Override
    public String getKind() {
        return kind;
    }

    @Override
    public String getName() {
        return name.get();
    }

    @Override
    public String getTransport() {
        String t = transport.get();
        return t == null ? "" : t;
    }

    @Override
    public long getOpenConnections() {
        return openConnections.getAsLong();
    }

    @Override
    public long getAcceptedConnections() {
        return accepted.get();
    }

    @Override
    public long getSwaps() {
        return swaps.get();
    }

    @Override
    public long getSwapsWithoutOverlap() {
        return swapsWithoutOverlap.get();
    }

    @Override
    public long getSwapFailures() {
        return swapFailures.get();
    }

    @Override
    public long getDrains() {
        return drains.get();
    }

    @Override
    public long getDrainedConnections() {
        return drainedConnections.get();
    }

    @Override
    public long getDrainTimeouts() {
        return drainTimeouts.get();
    }

    /** An endpoint's values at one moment. */
    private record EndpointValues(String getKind, String getName, String getTransport, long getOpenConnections,
            long getAcceptedConnections, long getSwaps, long getSwapsWithoutOverlap, long getSwapFailures,
            long getDrains, long getDrainedConnections, long getDrainTimeouts) implements EndpointMetrics {
    }
}
