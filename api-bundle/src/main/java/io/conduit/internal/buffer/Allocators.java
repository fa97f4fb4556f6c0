package io.conduit.internal.buffer;

import io.conduit.buffer.BufferAllocator;

/**
 * The shared allocators behind {@link BufferAllocator#pooled()} and {@link BufferAllocator#unpooled()}, built on
 * first use from the system properties {@code conduit.leakDetection} ({@code disabled|simple|paranoid}, default
 * {@code simple}) and {@code conduit.maxDirectMemory} (bytes; default 3/4 of {@link Runtime#maxMemory()}).
 *
 * <p>A property value that is not valid fails fast: every call throws an {@link IllegalArgumentException} that
 * names the property and the allowed values, until the property is fixed (nothing is cached on failure).
 * Thread-safe.
 */
public final class Allocators {

    private static final Object LOCK = new Object();
    private static volatile LeakDetector leakDetector; // written under LOCK
    private static volatile BufferAllocator pooled;     // written under LOCK
    private static volatile BufferAllocator unpooled;   // written under LOCK

    private Allocators() {
    }

    /** @throws IllegalArgumentException when {@code conduit.leakDetection} or {@code conduit.maxDirectMemory} is invalid */
    public static BufferAllocator pooled() {
        BufferAllocator a = pooled;
        if (a != null) {
            return a;
        }
        synchronized (LOCK) {
            if (pooled == null) {
                long cap = DirectMemoryCounter.capFromSystemProperty();
                int chunkSize = PooledAllocator.DEFAULT_CHUNK_SIZE;
                pooled = new PooledAllocator(PooledAllocator.defaultArenaCount(cap, chunkSize),
                        PooledAllocator.DEFAULT_PAGE_SIZE, chunkSize, new DirectMemoryCounter(cap), leakDetector());
            }
            return pooled;
        }
    }

    /** @throws IllegalArgumentException when {@code conduit.leakDetection} is invalid */
    public static BufferAllocator unpooled() {
        BufferAllocator a = unpooled;
        if (a != null) {
            return a;
        }
        synchronized (LOCK) {
            if (unpooled == null) {
                unpooled = new UnpooledAllocator(leakDetector());
            }
            return unpooled;
        }
    }

    /** @return an empty composite that grows with direct buffers of {@code allocator} */
    public static io.conduit.buffer.CompositeBuffer compositeBuffer(BufferAllocator allocator) {
        return new DefaultCompositeBuffer(allocator);
    }

    private static LeakDetector leakDetector() {
        synchronized (LOCK) {
            if (leakDetector == null) {
                leakDetector = new LeakDetector(LeakDetector.Mode.parse(System.getProperty(LeakDetector.PROPERTY)), null);
            }
            return leakDetector;
        }
    }

    /** @return the live metrics of the pooled allocator (zeros until it exists); never creates it */
    public static io.conduit.metrics.AllocatorMetrics metrics() {
        return PooledAllocatorMetrics.LIVE;
    }

    /** @return the pooled allocator's metrics now, as an immutable copy */
    public static io.conduit.metrics.AllocatorMetrics metricsCopy() {
        return PooledAllocatorMetrics.copy();
    }

    /** @return the pooled allocator when {@link #pooled()} made it, else {@code null} */
    static PooledAllocator pooledIfMade() {
        return pooled instanceof PooledAllocator p ? p : null;
    }

    /** @return the leak detector when an allocator made it, else {@code null} */
    static LeakDetector leakDetectorIfMade() {
        return leakDetector;
    }
}
