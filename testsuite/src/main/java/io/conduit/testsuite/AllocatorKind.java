package io.conduit.testsuite;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;

/**
 * The allocators every conformance test runs with: the shared pooled and unpooled allocators, and an
 * adversarial one whose buffers start with a capacity of one byte, so that every socket read the channel core
 * makes returns at most one byte (the buffers still grow when a handler writes into them).
 */
public enum AllocatorKind {
    POOLED,
    UNPOOLED,
    ONE_BYTE_READS;

    /** @return the allocator to set as {@link io.conduit.channel.ChannelOption#ALLOCATOR} */
    public BufferAllocator allocator() {
        return switch (this) {
            case POOLED -> BufferAllocator.pooled();
            case UNPOOLED -> BufferAllocator.unpooled();
            case ONE_BYTE_READS -> OneByteReads.INSTANCE;
        };
    }

    /** Hands out one-byte buffers (growable), so reads into them return one byte at a time. Thread-safe. */
    static final class OneByteReads implements BufferAllocator {
        static final OneByteReads INSTANCE = new OneByteReads();
        private final BufferAllocator delegate = BufferAllocator.unpooled();

        @Override
        public Buffer buffer() {
            return delegate.buffer(1);
        }

        @Override
        public Buffer buffer(int initialCapacity) {
            return delegate.buffer(1);
        }

        @Override
        public Buffer buffer(int initialCapacity, int maxCapacity) {
            return delegate.buffer(1, Math.max(1, maxCapacity));
        }

        @Override
        public Buffer heapBuffer(int initialCapacity) {
            return delegate.heapBuffer(initialCapacity);
        }

        @Override
        public boolean isPooled() {
            return false;
        }

        @Override
        public String toString() {
            return "one-byte-reads allocator";
        }
    }
}
