package io.conduit.internal.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.metrics.AllocatorMetrics;
import io.conduit.transport.Transports;

import org.junit.jupiter.api.Test;

/** The pooled allocator's metrics follow what a thread that is no event loop allocates and releases. */
class PooledAllocatorMetricsTest {

    @Test
    void usedBytesFollowAllocationsAndThePoolHoldsAChunk() {
        Allocators.pooled();
        AllocatorMetrics before = Transports.metrics().allocator();
        Buffer a = Allocators.pooled().buffer(4096);
        Buffer b = Allocators.pooled().buffer(100_000); // a run of pages: 131072 bytes, the next power of two
        try {
            AllocatorMetrics during = Transports.metrics().allocator();
            assertEquals("pooled", during.getName());
            assertEquals(4096 + 131_072, during.getUsedDirectBytes() - before.getUsedDirectBytes(), during.toString());
            assertTrue(during.getPooledDirectBytes() >= PooledAllocator.DEFAULT_CHUNK_SIZE, during.toString());
            assertTrue(during.getChunks() >= 1, during.toString());
            assertTrue(during.getMaxDirectBytes() >= during.getPooledDirectBytes(), during.toString());
            assertEquals(during.getUsedDirectBytes(), Allocators.metrics().getUsedDirectBytes(),
                    "the live view (JMX) reads the same");
        } finally {
            a.release();
            b.release();
        }
        assertEquals(before.getUsedDirectBytes(), Transports.metrics().allocator().getUsedDirectBytes(),
                "released blocks go back to their arena");
    }
}
