package io.conduit.internal.buffer;

import java.util.concurrent.atomic.AtomicLong;

import io.conduit.internal.config.ConduitProperties;

/**
 * Counts the direct memory a pooled allocator holds (whole chunks and huge buffers) against a cap.
 *
 * <p>The cap comes from {@value #PROPERTY} (bytes); by default it is 3/4 of {@link Runtime#maxMemory()}, which is
 * also the JVM's default {@code -XX:MaxDirectMemorySize}: the remaining quarter is left to unpooled buffers and
 * to the JDK's own temporary direct buffers. Thread-safe (CAS on {@link #usedBytes}).
 */
final class DirectMemoryCounter {

    static final String PROPERTY = ConduitProperties.MAX_DIRECT_MEMORY;

    private final long capBytes;
    /** Bytes reserved now; CAS-updated, never above {@link #capBytes}. */
    private final AtomicLong usedBytes = new AtomicLong();

    DirectMemoryCounter(long capBytes) {
        if (capBytes <= 0) {
            throw new IllegalArgumentException(PROPERTY + " must be > 0 bytes, got " + capBytes);
        }
        this.capBytes = capBytes;
    }

    /**
     * The cap from {@value #PROPERTY}, or the default.
     *
     * @throws IllegalArgumentException when the property is not a positive number of bytes (also when it is empty),
     *         by the rule of every Conduit property ({@link ConduitProperties#parseMaxDirectMemory})
     */
    static long capFromSystemProperty() {
        long cap = ConduitProperties.parseMaxDirectMemory(System.getProperty(PROPERTY));
        return cap > 0 ? cap : ConduitProperties.defaultMaxDirectMemory();
    }

    /** @throws OutOfMemoryError when {@code bytes} more would exceed the cap; the message gives cap and usage */
    void reserve(long bytes) {
        for (;;) {
            long used = usedBytes.get();
            if (used + bytes > capBytes) {
                throw new OutOfMemoryError("cannot reserve " + bytes + " bytes of pooled direct memory: " + used
                        + " of the " + capBytes + " bytes cap (" + PROPERTY + ") are in use; release buffers or"
                        + " raise -D" + PROPERTY);
            }
            if (usedBytes.compareAndSet(used, used + bytes)) {
                return;
            }
        }
    }

    void unreserve(long bytes) {
        usedBytes.addAndGet(-bytes);
    }

    long usedBytes() {
        return usedBytes.get();
    }

    long capBytes() {
        return capBytes;
    }
}
