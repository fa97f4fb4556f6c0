package io.conduit.testsuite;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;

/**
 * An allocator that refuses every buffer with one {@link IllegalArgumentException}, as the shared allocators do while
 * a property such as {@code conduit.leakDetection} is malformed: set as a channel's {@code ALLOCATOR}, every read the
 * channel core makes fails. Thread-safe.
 */
public final class RefusingAllocator implements BufferAllocator {

    /** The one exception every call throws. */
    public final IllegalArgumentException refusal;

    public RefusingAllocator() {
        refusal = new IllegalArgumentException("RefusingAllocator: every buffer is refused (as with"
                + " -Dconduit.leakDetection=bogus)");
    }

    @Override
    public Buffer buffer() {
        throw refusal;
    }

    @Override
    public Buffer buffer(int initialCapacity) {
        throw refusal;
    }

    @Override
    public Buffer buffer(int initialCapacity, int maxCapacity) {
        throw refusal;
    }

    @Override
    public Buffer heapBuffer(int initialCapacity) {
        throw refusal;
    }

    @Override
    public boolean isPooled() {
        return false;
    }

    @Override
    public String toString() {
        return "refusing allocator";
    }
}
