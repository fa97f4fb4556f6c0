package io.conduit.buffer;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A reference-counted sequence of bytes with separate reader and writer indexes.
 *
 * <pre>
 *   +-------------------+------------------+------------------+
 *   | discardable bytes |  readable bytes  |  writable bytes  |
 *   +-------------------+------------------+------------------+
 *   0      &lt;=      readerIndex   &lt;=   writerIndex    &lt;=    capacity  &lt;= maxCapacity
 * </pre>
 *
 * <p>Relative {@code read*}/{@code write*} methods move the indexes; absolute {@code get*}/{@code set*}
 * methods do not. Multi-byte accessors are big-endian (network order); the {@code *LE} variants are
 * little-endian. Writes grow the capacity up to {@link #maxCapacity()}.
 *
 * <p>Errors: an index or length outside the allowed range throws {@link IndexOutOfBoundsException} whose
 * message gives the index, the length and the bounds; any access after the buffer was freed throws
 * {@link IllegalReferenceCountException}. Not thread-safe: one thread at a time (reference counting itself is
 * thread-safe).
 */
@ProviderType
public interface Buffer extends ReferenceCounted {

    /** @return the current capacity in bytes */
    int capacity();

    /** @return the largest capacity writes may grow this buffer to */
    int maxCapacity();

    int readerIndex();

    /** @throws IndexOutOfBoundsException unless {@code 0 <= readerIndex <= writerIndex()} */
    Buffer readerIndex(int readerIndex);

    int writerIndex();

    /** @throws IndexOutOfBoundsException unless {@code readerIndex() <= writerIndex <= capacity()} */
    Buffer writerIndex(int writerIndex);

    /** @return {@code writerIndex() - readerIndex()} */
    int readableBytes();

    /** @return {@code capacity() - writerIndex()} */
    int writableBytes();

    default boolean isReadable() {
        return readableBytes() > 0;
    }

    /** Sets both indexes to 0. */
    Buffer clear();

    /**
     * Grows the capacity so that at least {@code minWritableBytes} can be written.
     *
     * @throws IndexOutOfBoundsException when that would exceed {@link #maxCapacity()}
     */
    Buffer ensureWritable(int minWritableBytes);

    /** @return {@code true} when the memory is off-heap (direct) */
    boolean isDirect();

    byte getByte(int index);

    short getShort(int index);

    short getShortLE(int index);

    int getInt(int index);

    int getIntLE(int index);

    long getLong(int index);

    long getLongLE(int index);

    Buffer setByte(int index, int value);

    Buffer setShort(int index, int value);

    Buffer setShortLE(int index, int value);

    Buffer setInt(int index, int value);

    Buffer setIntLE(int index, int value);

    Buffer setLong(int index, long value);

    Buffer setLongLE(int index, long value);

    byte readByte();

    /** @return the next byte as 0..255 */
    short readUnsignedByte();

    short readShort();

    short readShortLE();

    int readInt();

    int readIntLE();

    long readLong();

    long readLongLE();

    Buffer writeByte(int value);

    Buffer writeShort(int value);

    Buffer writeShortLE(int value);

    Buffer writeInt(int value);

    Buffer writeIntLE(int value);

    Buffer writeLong(long value);

    Buffer writeLongLE(long value);

    /** Copies {@code length} bytes at {@code index} into {@code dst[dstIndex..]}. */
    Buffer getBytes(int index, byte[] dst, int dstIndex, int length);

    /** Copies bytes at {@code index} into {@code dst} until it is full (its position advances). */
    Buffer getBytes(int index, ByteBuffer dst);

    Buffer setBytes(int index, byte[] src, int srcIndex, int length);

    /** Reads {@code dst.length} bytes. */
    Buffer readBytes(byte[] dst);

    Buffer readBytes(byte[] dst, int dstIndex, int length);

    /** Reads into {@code dst} until it is full or this buffer is empty (its position advances). */
    Buffer readBytes(ByteBuffer dst);

    Buffer writeBytes(byte[] src);

    Buffer writeBytes(byte[] src, int srcIndex, int length);

    /** Writes all remaining bytes of {@code src} (its position advances). */
    Buffer writeBytes(ByteBuffer src);

    /** Writes all readable bytes of {@code src} (its reader index advances). */
    Buffer writeBytes(Buffer src);

    /** Moves the reader index by {@code length}. */
    Buffer skipBytes(int length);

    /** @return a copy of the readable bytes, as a new array */
    default byte[] toByteArray() {
        byte[] bytes = new byte[readableBytes()];
        getBytes(readerIndex(), bytes, 0, bytes.length);
        return bytes;
    }

    /**
     * A view of {@code length} bytes at {@code index} that shares memory and retains this buffer once; releasing
     * the slice releases that reference. The slice's capacity and max capacity are {@code length}.
     */
    Buffer retainedSlice(int index, int length);

    /** {@link #retainedSlice(int, int)} of the readable bytes; the reader index moves past them. */
    Buffer readRetainedSlice(int length);

    /** @return an independent copy of the readable bytes (a new buffer with its own count) */
    Buffer copy();

    /**
     * For I/O: the number of {@link ByteBuffer}s {@link #nioBuffers(int, int)} returns (1 for plain buffers,
     * more for composites).
     */
    int nioBufferCount();

    /**
     * For I/O: a {@link ByteBuffer} that shares memory with {@code length} bytes at {@code index}. Its position
     * and limit are independent of this buffer's indexes; it is valid until this buffer is released or its
     * capacity changes.
     *
     * @throws UnsupportedOperationException when {@link #nioBufferCount()} is not 1
     */
    ByteBuffer nioBuffer(int index, int length);

    /** For I/O: {@link ByteBuffer}s that together share memory with {@code length} bytes at {@code index}. */
    ByteBuffer[] nioBuffers(int index, int length);

    @Override
    Buffer retain();

    @Override
    Buffer retain(int increment);

    @Override
    Buffer touch(Object hint);

    /** Same as {@link #touch(Object)} with no hint. */
    default Buffer touch() {
        return touch(null);
    }
}
