package io.conduit.internal.buffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.IllegalReferenceCountException;

/**
 * Index bookkeeping, bounds checks and reference counting shared by every buffer; subclasses supply the raw,
 * unchecked memory accessors ({@code _get*}/{@code _set*}).
 *
 * <p>Invariants: {@code 0 <= readerIndex <= writerIndex <= capacity() <= maxCapacity}; every public accessor
 * first checks that {@code refCnt > 0} and then the bounds, so raw accessors are only ever reached with an index
 * range inside {@code [0, capacity())} of live memory. Buffer objects are never recycled: once {@code refCnt}
 * reaches 0 it stays 0, so a stale reference always fails the check instead of touching reused memory.
 *
 * <p>Threading: indexes are confined to the one thread using the buffer (see {@link Buffer}); {@code refCnt} is
 * updated only by CAS through {@link #REF_CNT} and may be changed from any thread.
 */
abstract class AbstractBuffer implements Buffer {

    private static final AtomicIntegerFieldUpdater<AbstractBuffer> REF_CNT =
            AtomicIntegerFieldUpdater.newUpdater(AbstractBuffer.class, "refCnt");

    /** The reference count; 0 = freed. Guarded by CAS through {@link #REF_CNT}. */
    private volatile int refCnt = 1;

    int readerIndex; // confined to the using thread
    int writerIndex; // confined to the using thread
    final int maxCapacity;

    AbstractBuffer(int maxCapacity) {
        this.maxCapacity = maxCapacity;
    }

    // ---- raw accessors: no checks; index is relative to this buffer and already validated ----

    abstract byte _getByte(int index);

    abstract short _getShort(int index);

    abstract short _getShortLE(int index);

    abstract int _getInt(int index);

    abstract int _getIntLE(int index);

    abstract long _getLong(int index);

    abstract long _getLongLE(int index);

    abstract void _setByte(int index, int value);

    abstract void _setShort(int index, int value);

    abstract void _setShortLE(int index, int value);

    abstract void _setInt(int index, int value);

    abstract void _setIntLE(int index, int value);

    abstract void _setLong(int index, long value);

    abstract void _setLongLE(int index, long value);

    abstract void _getBytes(int index, byte[] dst, int dstIndex, int length);

    /** Copies {@code length} bytes into {@code dst} at its position, advancing it. */
    abstract void _getBytes(int index, ByteBuffer dst, int length);

    abstract void _setBytes(int index, byte[] src, int srcIndex, int length);

    /** Copies {@code length} bytes from {@code src} at its position, advancing it. */
    abstract void _setBytes(int index, ByteBuffer src, int length);

    abstract ByteBuffer _nioBuffer(int index, int length);

    /**
     * Raises the capacity to at least {@code minCapacity}: to {@code preferredCapacity}, or to anything between
     * the two that is cheaper (a pooled buffer first uses the rest of its block). Both are greater than the
     * current capacity and at most maxCapacity.
     */
    abstract void grow(int minCapacity, int preferredCapacity);

    /** Frees the memory; called once, when the count reaches 0. */
    abstract void deallocate();

    /** The allocator that {@link #copy()} uses. */
    abstract BufferAllocator allocator();

    /** The buffer that owns the leak record (this one, or the root of a slice). */
    abstract AbstractBuffer root();

    // ---- reference counting ----

    @Override
    public final int refCnt() {
        return refCnt;
    }

    @Override
    public Buffer retain() {
        return retain(1);
    }

    @Override
    public Buffer retain(int increment) {
        if (increment <= 0) {
            throw new IllegalArgumentException("retain(" + increment + "): increment must be > 0");
        }
        for (;;) {
            int count = refCnt;
            if (count == 0) {
                throw new IllegalReferenceCountException(
                        "retain(" + increment + ") on a buffer that was already released (refCnt 0)");
            }
            if (count > Integer.MAX_VALUE - increment) {
                throw new IllegalReferenceCountException(
                        "retain(" + increment + ") would overflow refCnt " + count);
            }
            if (REF_CNT.compareAndSet(this, count, count + increment)) {
                return this;
            }
        }
    }

    @Override
    public boolean release() {
        return release(1);
    }

    @Override
    public boolean release(int decrement) {
        if (decrement <= 0) {
            throw new IllegalArgumentException("release(" + decrement + "): decrement must be > 0");
        }
        for (;;) {
            int count = refCnt;
            if (count < decrement) {
                throw new IllegalReferenceCountException(count == 0
                        ? "release(" + decrement + ") on a buffer that was already released (refCnt 0)"
                        : "release(" + decrement + ") exceeds refCnt " + count);
            }
            if (REF_CNT.compareAndSet(this, count, count - decrement)) {
                if (count == decrement) {
                    deallocate();
                    return true;
                }
                return false;
            }
        }
    }

    @Override
    public Buffer touch(Object hint) {
        return this;
    }

    /** Throws unless the buffer is alive; {@code op} names the attempted operation in the message. */
    final void ensureAccessible(String op) {
        if (refCnt == 0) {
            throw new IllegalReferenceCountException(op + " on a buffer that was already released (refCnt 0)");
        }
    }

    // ---- indexes ----

    @Override
    public final int maxCapacity() {
        return maxCapacity;
    }

    @Override
    public final int readerIndex() {
        return readerIndex;
    }

    @Override
    public final Buffer readerIndex(int readerIndex) {
        if (readerIndex < 0 || readerIndex > writerIndex) {
            throw new IndexOutOfBoundsException("readerIndex " + readerIndex + " must be in 0..writerIndex "
                    + writerIndex + " (capacity " + capacity() + ")");
        }
        this.readerIndex = readerIndex;
        return this;
    }

    @Override
    public final int writerIndex() {
        return writerIndex;
    }

    @Override
    public final Buffer writerIndex(int writerIndex) {
        if (writerIndex < readerIndex || writerIndex > capacity()) {
            throw new IndexOutOfBoundsException("writerIndex " + writerIndex + " must be in readerIndex "
                    + readerIndex + "..capacity " + capacity());
        }
        this.writerIndex = writerIndex;
        return this;
    }

    @Override
    public final int readableBytes() {
        return writerIndex - readerIndex;
    }

    @Override
    public final int writableBytes() {
        return capacity() - writerIndex;
    }

    @Override
    public final Buffer clear() {
        readerIndex = 0;
        writerIndex = 0;
        return this;
    }

    @Override
    public final Buffer ensureWritable(int minWritableBytes) {
        if (minWritableBytes < 0) {
            throw new IllegalArgumentException("ensureWritable(" + minWritableBytes + "): must be >= 0");
        }
        ensureAccessible("ensureWritable");
        ensureWritable0(minWritableBytes, "ensureWritable(" + minWritableBytes + ")");
        return this;
    }

    private void ensureWritable0(int minWritableBytes, String op) {
        int capacity = capacity();
        if (minWritableBytes <= capacity - writerIndex) {
            return;
        }
        if (minWritableBytes > maxCapacity - writerIndex) {
            throw new IndexOutOfBoundsException(op + ": writerIndex " + writerIndex + " + " + minWritableBytes
                    + " bytes exceeds maxCapacity " + maxCapacity + " (capacity " + capacity + ")");
        }
        int minCapacity = writerIndex + minWritableBytes;
        grow(minCapacity, newCapacity(minCapacity, capacity, maxCapacity));
    }

    /** Doubles (at least 64 bytes) up to 4 MiB, then grows in 4 MiB steps, never past {@code maxCapacity}. */
    static int newCapacity(int minCapacity, int capacity, int maxCapacity) {
        final int step = 4 << 20;
        long next;
        if (minCapacity > step) {
            next = ((long) minCapacity + step - 1) / step * step;
        } else {
            next = Math.max(64, capacity);
            while (next < minCapacity) {
                next <<= 1;
            }
        }
        return (int) Math.min(next, maxCapacity);
    }

    // ---- checks ----

    /** Liveness, then {@code 0 <= index && index + length <= capacity()} without overflow. */
    final void checkIndex(String op, int index, int length) {
        ensureAccessible(op);
        int capacity = capacity();
        if ((index | length | (index + length) | (capacity - (index + length))) < 0) {
            throw new IndexOutOfBoundsException(op + ": index " + index + ", length " + length
                    + " is outside 0..capacity " + capacity);
        }
    }

    /** Liveness, then {@code length <= readableBytes()}. */
    final void checkReadable(String op, int length) {
        ensureAccessible(op);
        if (length < 0) {
            throw new IllegalArgumentException(op + ": length " + length + " must be >= 0");
        }
        if (readerIndex > writerIndex - length) {
            throw new IndexOutOfBoundsException(op + ": readerIndex " + readerIndex + " + length " + length
                    + " exceeds writerIndex " + writerIndex + " (capacity " + capacity() + ")");
        }
    }

    /** Liveness, then grows so that {@code length} bytes fit after writerIndex. */
    final void prepareWrite(String op, int length) {
        ensureAccessible(op);
        if (length < 0) {
            throw new IllegalArgumentException(op + ": length " + length + " must be >= 0");
        }
        ensureWritable0(length, op);
    }

    private static void checkArray(String op, int arrayLength, int arrayIndex, int length) {
        if ((arrayIndex | length | (arrayIndex + length) | (arrayLength - (arrayIndex + length))) < 0) {
            throw new IndexOutOfBoundsException(op + ": array index " + arrayIndex + ", length " + length
                    + " is outside 0..array length " + arrayLength);
        }
    }

    // ---- absolute accessors ----

    @Override
    public byte getByte(int index) {
        checkIndex("getByte", index, 1);
        return _getByte(index);
    }

    @Override
    public short getShort(int index) {
        checkIndex("getShort", index, 2);
        return _getShort(index);
    }

    @Override
    public short getShortLE(int index) {
        checkIndex("getShortLE", index, 2);
        return _getShortLE(index);
    }

    @Override
    public int getInt(int index) {
        checkIndex("getInt", index, 4);
        return _getInt(index);
    }

    @Override
    public int getIntLE(int index) {
        checkIndex("getIntLE", index, 4);
        return _getIntLE(index);
    }

    @Override
    public long getLong(int index) {
        checkIndex("getLong", index, 8);
        return _getLong(index);
    }

    @Override
    public long getLongLE(int index) {
        checkIndex("getLongLE", index, 8);
        return _getLongLE(index);
    }

    @Override
    public Buffer setByte(int index, int value) {
        checkIndex("setByte", index, 1);
        _setByte(index, value);
        return this;
    }

    @Override
    public Buffer setShort(int index, int value) {
        checkIndex("setShort", index, 2);
        _setShort(index, value);
        return this;
    }

    @Override
    public Buffer setShortLE(int index, int value) {
        checkIndex("setShortLE", index, 2);
        _setShortLE(index, value);
        return this;
    }

    @Override
    public Buffer setInt(int index, int value) {
        checkIndex("setInt", index, 4);
        _setInt(index, value);
        return this;
    }

    @Override
    public Buffer setIntLE(int index, int value) {
        checkIndex("setIntLE", index, 4);
        _setIntLE(index, value);
        return this;
    }

    @Override
    public Buffer setLong(int index, long value) {
        checkIndex("setLong", index, 8);
        _setLong(index, value);
        return this;
    }

    @Override
    public Buffer setLongLE(int index, long value) {
        checkIndex("setLongLE", index, 8);
        _setLongLE(index, value);
        return this;
    }

    @Override
    public Buffer getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkIndex("getBytes", index, length);
        checkArray("getBytes", dst.length, dstIndex, length);
        _getBytes(index, dst, dstIndex, length);
        return this;
    }

    @Override
    public Buffer getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex("getBytes", index, length);
        _getBytes(index, dst, length);
        return this;
    }

    @Override
    public Buffer setBytes(int index, byte[] src, int srcIndex, int length) {
        checkIndex("setBytes", index, length);
        checkArray("setBytes", src.length, srcIndex, length);
        _setBytes(index, src, srcIndex, length);
        return this;
    }

    // ---- relative accessors ----

    @Override
    public byte readByte() {
        checkReadable("readByte", 1);
        return _getByte(readerIndex++);
    }

    @Override
    public short readUnsignedByte() {
        checkReadable("readUnsignedByte", 1);
        return (short) (_getByte(readerIndex++) & 0xFF);
    }

    @Override
    public short readShort() {
        checkReadable("readShort", 2);
        short v = _getShort(readerIndex);
        readerIndex += 2;
        return v;
    }

    @Override
    public short readShortLE() {
        checkReadable("readShortLE", 2);
        short v = _getShortLE(readerIndex);
        readerIndex += 2;
        return v;
    }

    @Override
    public int readInt() {
        checkReadable("readInt", 4);
        int v = _getInt(readerIndex);
        readerIndex += 4;
        return v;
    }

    @Override
    public int readIntLE() {
        checkReadable("readIntLE", 4);
        int v = _getIntLE(readerIndex);
        readerIndex += 4;
        return v;
    }

    @Override
    public long readLong() {
        checkReadable("readLong", 8);
        long v = _getLong(readerIndex);
        readerIndex += 8;
        return v;
    }

    @Override
    public long readLongLE() {
        checkReadable("readLongLE", 8);
        long v = _getLongLE(readerIndex);
        readerIndex += 8;
        return v;
    }

    @Override
    public Buffer writeByte(int value) {
        prepareWrite("writeByte", 1);
        _setByte(writerIndex++, value);
        return this;
    }

    @Override
    public Buffer writeShort(int value) {
        prepareWrite("writeShort", 2);
        _setShort(writerIndex, value);
        writerIndex += 2;
        return this;
    }

    @Override
    public Buffer writeShortLE(int value) {
        prepareWrite("writeShortLE", 2);
        _setShortLE(writerIndex, value);
        writerIndex += 2;
        return this;
    }

    @Override
    public Buffer writeInt(int value) {
        prepareWrite("writeInt", 4);
        _setInt(writerIndex, value);
        writerIndex += 4;
        return this;
    }

    @Override
    public Buffer writeIntLE(int value) {
        prepareWrite("writeIntLE", 4);
        _setIntLE(writerIndex, value);
        writerIndex += 4;
        return this;
    }

    @Override
    public Buffer writeLong(long value) {
        prepareWrite("writeLong", 8);
        _setLong(writerIndex, value);
        writerIndex += 8;
        return this;
    }

    @Override
    public Buffer writeLongLE(long value) {
        prepareWrite("writeLongLE", 8);
        _setLongLE(writerIndex, value);
        writerIndex += 8;
        return this;
    }

    @Override
    public Buffer readBytes(byte[] dst) {
        return readBytes(dst, 0, dst.length);
    }

    @Override
    public Buffer readBytes(byte[] dst, int dstIndex, int length) {
        checkReadable("readBytes", length);
        checkArray("readBytes", dst.length, dstIndex, length);
        _getBytes(readerIndex, dst, dstIndex, length);
        readerIndex += length;
        return this;
    }

    @Override
    public Buffer readBytes(ByteBuffer dst) {
        ensureAccessible("readBytes");
        int length = Math.min(dst.remaining(), readableBytes());
        _getBytes(readerIndex, dst, length);
        readerIndex += length;
        return this;
    }

    @Override
    public Buffer writeBytes(byte[] src) {
        return writeBytes(src, 0, src.length);
    }

    @Override
    public Buffer writeBytes(byte[] src, int srcIndex, int length) {
        checkArray("writeBytes", src.length, srcIndex, length);
        prepareWrite("writeBytes", length);
        _setBytes(writerIndex, src, srcIndex, length);
        writerIndex += length;
        return this;
    }

    @Override
    public Buffer writeBytes(ByteBuffer src) {
        int length = src.remaining();
        prepareWrite("writeBytes", length);
        _setBytes(writerIndex, src, length);
        writerIndex += length;
        return this;
    }

    @Override
    public Buffer writeBytes(Buffer src) {
        int length = src.readableBytes();
        prepareWrite("writeBytes", length);
        if (length > 0) {
            // nioBuffers checks src's liveness; the views are read before src's reader index moves
            for (ByteBuffer part : src.nioBuffers(src.readerIndex(), length)) {
                int n = part.remaining();
                _setBytes(writerIndex, part, n);
                writerIndex += n;
            }
            src.skipBytes(length);
        }
        return this;
    }

    @Override
    public Buffer skipBytes(int length) {
        checkReadable("skipBytes", length);
        readerIndex += length;
        return this;
    }

    // ---- views and copies ----

    @Override
    public Buffer retainedSlice(int index, int length) {
        checkIndex("retainedSlice", index, length);
        retain();
        return new SliceBuffer(this, index, length);
    }

    @Override
    public Buffer readRetainedSlice(int length) {
        checkReadable("readRetainedSlice", length);
        Buffer slice = retainedSlice(readerIndex, length);
        readerIndex += length;
        return slice;
    }

    @Override
    public Buffer copy() {
        int length = readableBytes();
        ensureAccessible("copy");
        BufferAllocator allocator = allocator();
        Buffer copy = isDirect() ? allocator.buffer(length) : allocator.heapBuffer(length);
        if (length > 0) {
            copy.writeBytes(_nioBuffer(readerIndex, length));
        }
        return copy;
    }

    @Override
    public int nioBufferCount() {
        return 1;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex("nioBuffer", index, length);
        return _nioBuffer(index, length);
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        checkIndex("nioBuffers", index, length);
        return new ByteBuffer[] {_nioBuffer(index, length)};
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(ridx " + readerIndex + ", widx " + writerIndex + ", cap "
                + capacity() + "/" + maxCapacity + ", refCnt " + refCnt + ")";
    }
}
