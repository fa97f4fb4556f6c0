package io.conduit.internal.buffer;

import java.nio.ByteBuffer;

import io.conduit.buffer.BufferAllocator;

/** A buffer that owns a {@link ByteBuffer} of its own (direct or heap); see {@link UnpooledAllocator}. */
final class UnpooledBuffer extends MemoryBuffer {

    private final BufferAllocator allocator;

    UnpooledBuffer(BufferAllocator allocator, boolean direct, int initialCapacity, int maxCapacity) {
        super(direct ? ByteBuffer.allocateDirect(initialCapacity) : ByteBuffer.allocate(initialCapacity), 0,
                initialCapacity, maxCapacity);
        this.allocator = allocator;
    }

    @Override
    void grow(int minCapacity, int newCapacity) {
        ByteBuffer grown = memory.isDirect() ? ByteBuffer.allocateDirect(newCapacity) : ByteBuffer.allocate(newCapacity);
        moveTo(grown, 0, newCapacity);
    }

    @Override
    void free() {
        // the garbage collector frees the ByteBuffer once no view of it is left
    }

    @Override
    BufferAllocator allocator() {
        return allocator;
    }
}
