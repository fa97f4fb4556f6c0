package io.conduit.buffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Makes {@link Buffer}s. Thread-safe.
 *
 * <p>{@link #pooled()} reuses direct memory from size-classed chunks with per-event-loop caches (dropped
 * when the loop stops; no {@code ThreadLocal}s), bounded by a direct-memory cap: the system property
 * {@code conduit.maxDirectMemory} in bytes, by default 3/4 of {@link Runtime#maxMemory()}. Its heap buffers are
 * not pooled. {@link #unpooled()} allocates each buffer on its own. Both sample buffers for leak detection as
 * {@code conduit.leakDetection} says ({@code disabled}, {@code simple} = about 1 in 128 buffers, the default,
 * {@code paranoid} = every buffer); a leak is logged as one {@code WARNING} on the {@code System.Logger}
 * {@code io.conduit.buffer.leak}. Both properties are read once, when {@link #pooled()} or {@link #unpooled()}
 * is first called; an invalid value makes that call throw an {@link IllegalArgumentException} naming the
 * property and the allowed values.
 */
@ProviderType
public interface BufferAllocator {

    /**
     * @return the shared pooled direct allocator
     * @throws IllegalArgumentException when {@code conduit.leakDetection} or {@code conduit.maxDirectMemory} is invalid
     */
    static BufferAllocator pooled() {
        return io.conduit.internal.buffer.Allocators.pooled();
    }

    /**
     * @return the shared unpooled allocator (direct buffers)
     * @throws IllegalArgumentException when {@code conduit.leakDetection} is invalid
     */
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

    /**
     * An empty {@link CompositeBuffer}; when written past its capacity it adds direct buffers of this allocator
     * as components.
     */
    default CompositeBuffer compositeBuffer() {
        return io.conduit.internal.buffer.Allocators.compositeBuffer(this);
    }

    /** @return {@code true} for a pooled allocator */
    boolean isPooled();
}
