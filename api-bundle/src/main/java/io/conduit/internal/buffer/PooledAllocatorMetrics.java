package io.conduit.internal.buffer;

import io.conduit.metrics.AllocatorMetrics;

/**
 * The pooled allocator's metrics: {@link #LIVE} reads them on every call (the JMX view); {@link #copy()} freezes
 * them. Read from any thread: the arenas' sums take each arena's lock briefly, the rest are atomics.
 */
final class PooledAllocatorMetrics implements AllocatorMetrics {

    static final PooledAllocatorMetrics LIVE = new PooledAllocatorMetrics();

    private PooledAllocatorMetrics() {
    }

    static AllocatorMetrics copy() {
        return new Values(LIVE.getName(), LIVE.getUsedDirectBytes(), LIVE.getPooledDirectBytes(),
                LIVE.getMaxDirectBytes(), LIVE.getChunks(), LIVE.getLeakReports());
    }

    @Override
    public String getName() {
        return "pooled";
    }

    @Override
    public long getUsedDirectBytes() {
        PooledAllocator p = Allocators.pooledIfMade();
        return p == null ? 0 : p.usedBytes();
    }

    @Override
    public long getPooledDirectBytes() {
        PooledAllocator p = Allocators.pooledIfMade();
        return p == null ? 0 : p.reservedBytes();
    }

    @Override
    public long getMaxDirectBytes() {
        PooledAllocator p = Allocators.pooledIfMade();
        return p == null ? 0 : p.capBytes();
    }

    @Override
    public int getChunks() {
        PooledAllocator p = Allocators.pooledIfMade();
        return p == null ? 0 : p.chunkCount();
    }

    @Override
    public long getLeakReports() {
        LeakDetector d = Allocators.leakDetectorIfMade();
        return d == null ? 0 : d.reportCount();
    }

    /** The values at one moment. */
    private record Values(String getName, long getUsedDirectBytes, long getPooledDirectBytes, long getMaxDirectBytes,
            int getChunks, long getLeakReports) implements AllocatorMetrics {
    }
}
