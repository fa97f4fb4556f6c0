package io.conduit.internal.buffer;

import io.conduit.buffer.BufferAllocator;

/**
 * A buffer over one {@link PoolBlock}. Its capacity may be smaller than the block (the block is the size class);
 * growth that fits the block only raises the capacity to the block's length (or maxCapacity), growth past it takes a bigger block, copies and frees the old
 * one. Freed blocks go back through {@link PooledAllocator#free} on whichever thread releases the buffer.
 */
final class PooledBuffer extends MemoryBuffer {

    private final PooledAllocator allocator;
    private PoolBlock block; // confined to the using thread; null once freed

    PooledBuffer(PooledAllocator allocator, PoolBlock block, int initialCapacity, int maxCapacity) {
        super(block.memory, block.offset, initialCapacity, maxCapacity);
        this.allocator = allocator;
        this.block = block;
    }

    @Override
    void grow(int minCapacity, int newCapacity) {
        if (minCapacity <= block.length) { // the size class has room: no copy
            capacity = Math.min(block.length, maxCapacity);
            return;
        }
        PoolBlock grown = allocator.allocate(newCapacity);
        moveTo(grown.memory, grown.offset, newCapacity);
        PoolBlock old = block;
        block = grown;
        allocator.free(old);
    }

    @Override
    void free() {
        PoolBlock b = block;
        block = null;
        allocator.free(b);
    }

    @Override
    BufferAllocator allocator() {
        return allocator;
    }

    /** For tests and diagnostics: where the memory lies, e.g. {@code "chunk 1 offset 0 length 16"}. */
    String location() {
        PoolBlock b = block;
        return b == null ? "freed" : b.location();
    }
}
