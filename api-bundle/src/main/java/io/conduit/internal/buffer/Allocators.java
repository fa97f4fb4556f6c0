package io.conduit.internal.buffer;

import io.conduit.buffer.BufferAllocator;

/** Placeholder until the buffer implementation lands (replaced by the buffer work). */
public final class Allocators {
    private Allocators() {
    }

    public static BufferAllocator pooled() {
        throw new UnsupportedOperationException("pooled allocator not built yet");
    }

    public static BufferAllocator unpooled() {
        throw new UnsupportedOperationException("unpooled allocator not built yet");
    }
}
