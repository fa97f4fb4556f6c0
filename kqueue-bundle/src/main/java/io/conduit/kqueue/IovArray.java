package io.conduit.kqueue;

/**
 * An array of {@code struct iovec { void *iov_base; size_t iov_len; };} for gathering writes
 * ({@code writev(2)}) and scattering reads ({@code readv(2)}), bounded by {@link Native#IOV_MAX}. Layout from
 * {@link Native#IOVEC_SIZE}, {@link Native#IOVEC_BASE_OFFSET}, {@link Native#IOVEC_LEN_OFFSET}.
 *
 * <p>Not thread-safe: owned by one event loop; {@link #clear()} before each use.
 */
final class IovArray {
    /** the most entries, &lt;= IOV_MAX */
    private final int capacity;
    private final NativeMemory memory;
    /** entries added since the last {@link #clear()} */
    private int count;
    /** sum of the lengths of those entries, in bytes */
    private long totalBytes;

    /** @param capacity entries, 1..{@link Native#IOV_MAX} */
    IovArray(int capacity) {
        if (capacity <= 0 || capacity > NativeAbi.IOV_MAX) {
            throw new IllegalArgumentException("iovec capacity " + capacity + " must be in 1.." + NativeAbi.IOV_MAX
                    + " (IOV_MAX)");
        }
        this.capacity = capacity;
        this.memory = NativeMemory.allocate(capacity * NativeAbi.IOVEC_SIZE);
    }

    /**
     * Appends one iovec.
     *
     * @param address native address of the first byte
     * @param length  bytes, &gt;= 0
     * @return {@code false} (nothing added) when the array is full
     */
    boolean add(long address, int length) {
        if (count == capacity) {
            return false;
        }
        int base = count * NativeAbi.IOVEC_SIZE;
        memory.putWord(base + NativeAbi.IOVEC_BASE_OFFSET, address, NativeAbi.SIZEOF_POINTER);
        memory.putWord(base + NativeAbi.IOVEC_LEN_OFFSET, length, NativeAbi.SIZEOF_SIZE_T);
        count++;
        totalBytes += length;
        return true;
    }

    void clear() {
        count = 0;
        totalBytes = 0;
    }

    /** @return the address to pass to {@link Native#readv}/{@link Native#writev} */
    long address() {
        return memory.address();
    }

    /** @return entries added since {@link #clear()} */
    int count() {
        return count;
    }

    /** @return bytes covered by those entries */
    long totalBytes() {
        return totalBytes;
    }
}
