package io.conduit.metrics;

import javax.management.MXBean;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The pooled allocator ({@code BufferAllocator.pooled()}). All values are 0 until it is first used.
 * JMX: {@code io.conduit:type=Allocator,name=pooled}.
 */
@MXBean
@ProviderType
public interface AllocatorMetrics {

    /** @return {@code pooled} */
    String getName();

    /** @return bytes of direct memory in buffers handed out now, including blocks held in event-loop caches (gauge) */
    long getUsedDirectBytes();

    /** @return bytes of direct memory the pool holds now: its chunks and huge blocks, used or free (gauge) */
    long getPooledDirectBytes();

    /** @return the cap on {@link #getPooledDirectBytes()} ({@code conduit.maxDirectMemory}), in bytes */
    long getMaxDirectBytes();

    /** @return chunks the pool holds now (gauge) */
    int getChunks();

    /** @return leaks reported by the leak detector, for buffers of any Conduit allocator */
    long getLeakReports();
}
