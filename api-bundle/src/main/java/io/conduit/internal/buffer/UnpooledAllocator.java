package io.conduit.internal.buffer;

import java.nio.ByteBuffer;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;

/**
 * Allocates every buffer on its own with {@link ByteBuffer#allocateDirect} or {@link ByteBuffer#allocate};
 * released memory is left to the garbage collector (the JVM's {@code -XX:MaxDirectMemorySize} bounds it, not
 * {@code conduit.maxDirectMemory}). Growth allocates a bigger region and copies. Thread-safe.
 */
final class UnpooledAllocator implements BufferAllocator {

    static final int DEFAULT_INITIAL_CAPACITY = 256;

    private final LeakDetector leakDetector;

    UnpooledAllocator(LeakDetector leakDetector) {
        this.leakDetector = leakDetector;
    }

    @Override
    public Buffer buffer() {
        return buffer(DEFAULT_INITIAL_CAPACITY, Integer.MAX_VALUE);
    }

    @Override
    public Buffer buffer(int initialCapacity) {
        return buffer(initialCapacity, Integer.MAX_VALUE);
    }

    @Override
    public Buffer buffer(int initialCapacity, int maxCapacity) {
        checkCapacities(initialCapacity, maxCapacity);
        return newBuffer(true, initialCapacity, maxCapacity);
    }

    @Override
    public Buffer heapBuffer(int initialCapacity) {
        checkCapacities(initialCapacity, Integer.MAX_VALUE);
        return newBuffer(false, initialCapacity, Integer.MAX_VALUE);
    }

    Buffer newBuffer(boolean direct, int initialCapacity, int maxCapacity) {
        UnpooledBuffer buffer = new UnpooledBuffer(this, direct, initialCapacity, maxCapacity);
        buffer.attachLeakRecord(leakDetector.track(buffer));
        return buffer;
    }

    @Override
    public boolean isPooled() {
        return false;
    }

    static void checkCapacities(int initialCapacity, int maxCapacity) {
        if (initialCapacity < 0) {
            throw new IllegalArgumentException("initialCapacity " + initialCapacity + " must be >= 0");
        }
        if (maxCapacity < initialCapacity) {
            throw new IllegalArgumentException("maxCapacity " + maxCapacity + " must be >= initialCapacity "
                    + initialCapacity);
        }
    }

    @Override
    public String toString() {
        return "UnpooledAllocator(leakDetection " + leakDetector.mode() + ")";
    }
}
