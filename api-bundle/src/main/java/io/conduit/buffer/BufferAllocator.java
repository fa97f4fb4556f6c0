package io.conduit.buffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Makes {@link Buffer}s. Thread-safe.
 *
 * <p>{@link #pooled()} reuses direct memory from size-classed chunks with per-event-loop caches (dropped
 * when the loop stops; no {@code ThreadLocal}s), bounded by a direct-memory cap. {@link #unpooled()} allocates
 * each buffer on its own. Both sample buffers for leak detection as {@code conduit.leakDetection} says.
 */
@ProviderType
public interface BufferAllocator {

    /** @return the shared pooled direct allocator */
    static BufferAllocator pooled() {
        return io.conduit.internal.buffer.Allocators.pooled();
    }

    /** @return the shared unpooled allocator (direct buffers) */
    static BufferAllocator unpooled() {
        return io.conduit.internal.buffer.Allocators.unpooled();
    }

    /** A direct buffer with a default initial capacity (256 bytes) and no practical limit. */
    Buffer buffer();

    /**
     * A direct buffer.
     *
     * @param initialCapacity bytes, {@code >= 0}
     * @throws IllegalArgumentException when negative
     * @throws OutOfMemoryError when the direct-memory cap would be exceeded (the message gives the cap and the usage)
     */
    Buffer buffer(int initialCapacity);

    /** A direct buffer that may grow to {@code maxCapacity} bytes. */
    Buffer buffer(int initialCapacity, int maxCapacity);

    /** A heap buffer (for data that is not written to a socket directly). */
    Buffer heapBuffer(int initialCapacity);

    /** @return {@code true} for a pooled allocator */
    boolean isPooled();
}
