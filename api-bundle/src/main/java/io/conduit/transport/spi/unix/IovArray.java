package io.conduit.transport.spi.unix;

import java.nio.ByteBuffer;
import java.util.function.ToLongFunction;

/**
 * SPI for transport implementers: an array of {@code struct iovec { void *iov_base; size_t iov_len; };} for
 * gathering writes ({@code writev(2)}) and scattering reads ({@code readv(2)}), bounded by {@code IOV_MAX}. The
 * layout ({@link Layout}: {@code IOV_MAX}, struct size, field offsets, pointer and {@code size_t} widths) comes
 * from the transport's native library.
 *
 * <p>Not thread-safe: owned by one event loop; {@link #clear()} before each use.
 */
public final class IovArray {

    /**
     * The platform's {@code struct iovec}, as the transport's native library reports it.
     *
     * @param iovMax      {@code IOV_MAX}: the most iovecs one call accepts
     * @param size        {@code sizeof(struct iovec)}, bytes
     * @param baseOffset  {@code offsetof(struct iovec, iov_base)}, bytes
     * @param lenOffset   {@code offsetof(struct iovec, iov_len)}, bytes
     * @param pointerSize {@code sizeof(void *)}, 4 or 8
     * @param sizeTSize   {@code sizeof(size_t)}, 4 or 8
     * @param addressOf   the native address of a direct buffer's byte 0 (see {@link NativeMemory#allocate})
     */
    public record Layout(int iovMax, int size, int baseOffset, int lenOffset, int pointerSize, int sizeTSize,
            ToLongFunction<ByteBuffer> addressOf) {

        /**
         * @param constants the library's constants ({@code IOV_MAX}, {@code IOVEC_SIZE}, {@code IOVEC_BASE_OFFSET},
         *                  {@code IOVEC_LEN_OFFSET}, {@code SIZEOF_POINTER}, {@code SIZEOF_SIZE_T})
         * @param addressOf the native address of a direct buffer's byte 0, from the same library
         * @return the layout
         * @throws IllegalStateException when a constant is missing
         */
        public static Layout of(NativeConstants constants, ToLongFunction<ByteBuffer> addressOf) {
            return new Layout(constants.get("IOV_MAX"), constants.get("IOVEC_SIZE"),
                    constants.get("IOVEC_BASE_OFFSET"), constants.get("IOVEC_LEN_OFFSET"),
                    constants.get("SIZEOF_POINTER"), constants.get("SIZEOF_SIZE_T"), addressOf);
        }
    }

    private final Layout layout;
    /** the most entries, &lt;= IOV_MAX */
    private final int capacity;
    private final NativeMemory memory;
    /** entries added since the last {@link #clear()} */
    private int count;
    /** sum of the lengths of those entries, in bytes */
    private long totalBytes;

    /**
     * @param capacity entries, 1..{@code layout.iovMax()}
     * @param layout   the platform's {@code struct iovec}
     * @throws IllegalArgumentException for a capacity out of that range
     */
    public IovArray(int capacity, Layout layout) {
        if (capacity <= 0 || capacity > layout.iovMax()) {
            throw new IllegalArgumentException("iovec capacity " + capacity + " must be in 1.." + layout.iovMax()
                    + " (IOV_MAX)");
        }
        this.layout = layout;
        this.capacity = capacity;
        this.memory = NativeMemory.allocate(capacity * layout.size(), layout.addressOf());
    }

    /**
     * Appends one iovec.
     *
     * @param address native address of the first byte
     * @param length  bytes, &gt;= 0
     * @return {@code false} (nothing added) when the array is full
     */
    public boolean add(long address, int length) {
        if (count == capacity) {
            return false;
        }
        int base = count * layout.size();
        memory.putWord(base + layout.baseOffset(), address, layout.pointerSize());
        memory.putWord(base + layout.lenOffset(), length, layout.sizeTSize());
        count++;
        totalBytes += length;
        return true;
    }

    /** Forgets every entry. */
    public void clear() {
        count = 0;
        totalBytes = 0;
    }

    /** @return the address of the first iovec, to pass to {@code readv(2)}/{@code writev(2)} */
    public long address() {
        return memory.address();
    }

    /** @return entries added since {@link #clear()} */
    public int count() {
        return count;
    }

    /** @return bytes covered by those entries */
    public long totalBytes() {
        return totalBytes;
    }

    /**
     * Moves the positions of {@code srcs[from .. to)} past {@code written} bytes, in order: what a gathering
     * {@code writev(2)} over their remaining bytes took. Loop thread only, like the buffers.
     *
     * @param written bytes the system call reported, {@code >= 0} and at most the buffers' remaining bytes
     */
    public static void advance(ByteBuffer[] srcs, int from, int to, long written) {
        for (int i = from; i < to && written > 0; i++) {
            ByteBuffer b = srcs[i];
            int step = (int) Math.min(b.remaining(), written);
            b.position(b.position() + step);
            written -= step;
        }
    }
}
