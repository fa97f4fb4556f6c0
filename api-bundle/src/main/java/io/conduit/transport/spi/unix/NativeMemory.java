package io.conduit.transport.spi.unix;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.ToLongFunction;

/**
 * SPI for transport implementers: a block of native memory for structs shared with the kernel (poller events,
 * iovecs, mmsghdrs), without {@code sun.misc.Unsafe}: a direct {@link ByteBuffer}, 8-byte aligned, in native byte
 * order, whose address is asked once from the transport's native library (the {@code addressOf} function given
 * to {@link #allocate}, typically JNI {@code GetDirectBufferAddress}). Java reads and writes the structs with the buffer's
 * absolute accessors; natives receive {@link #address()} (+ offsets).
 *
 * <p><b>Lifetime</b>: the memory is freed by the garbage collector when this object (and so the buffer)
 * becomes unreachable. Whoever passes {@link #address()} to a native must keep this object reachable until
 * the call returns (a field of a live object, or {@link java.lang.ref.Reference#reachabilityFence}).
 *
 * <p>Not thread-safe: owned by one thread (an event loop) at a time.
 */
public final class NativeMemory {
    private static final int ALIGNMENT = 8;

    /** the memory: direct, native order, position 0, limit = capacity = {@link #size()} */
    private final ByteBuffer buffer;
    /** address of {@code buffer}'s byte 0 */
    private final long address;

    private NativeMemory(ByteBuffer buffer, long address) {
        this.buffer = buffer;
        this.address = address;
    }

    /**
     * @param size      bytes, &gt; 0; the memory is zeroed
     * @param addressOf the native address of a direct buffer's byte 0 (from the transport's native library)
     * @return the memory
     * @throws IllegalArgumentException when {@code size <= 0}
     * @throws IllegalStateException when {@code addressOf} returns 0
     */
    public static NativeMemory allocate(int size, ToLongFunction<ByteBuffer> addressOf) {
        if (size <= 0) {
            throw new IllegalArgumentException("native memory size " + size + " must be > 0");
        }
        ByteBuffer raw = ByteBuffer.allocateDirect(size + ALIGNMENT - 1);
        ByteBuffer aligned = raw.alignedSlice(ALIGNMENT).slice(0, size).order(ByteOrder.nativeOrder());
        long address = addressOf.applyAsLong(aligned);
        if (address == 0) {
            throw new IllegalStateException("the native library gave address 0 (NULL) for a direct buffer of "
                    + size + " bytes");
        }
        return new NativeMemory(aligned, address);
    }

    /** @return the address of byte 0 */
    public long address() {
        return address;
    }

    /** @return the size in bytes */
    public int size() {
        return buffer.capacity();
    }

    /** @return the memory as a native-order buffer (shared, not a copy) */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Writes a pointer- or {@code size_t}-sized unsigned value of {@code width} bytes (4 or 8). */
    public void putWord(int offset, long value, int width) {
        if (width == Long.BYTES) {
            buffer.putLong(offset, value);
        } else {
            buffer.putInt(offset, (int) value);
        }
    }

    /** Reads a pointer- or {@code size_t}-sized unsigned value of {@code width} bytes (4 or 8). */
    public long getWord(int offset, int width) {
        return width == Long.BYTES ? buffer.getLong(offset) : Integer.toUnsignedLong(buffer.getInt(offset));
    }
}
