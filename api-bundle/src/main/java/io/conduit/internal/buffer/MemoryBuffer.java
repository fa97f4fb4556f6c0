package io.conduit.internal.buffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.conduit.buffer.Buffer;

/**
 * A buffer over a region {@code [base, base + capacity)} of a {@link ByteBuffer} (direct or heap). Multi-byte
 * values go through {@link MethodHandles#byteBufferViewVarHandle} view handles, one per width and byte order, so
 * no {@code sun.misc.Unsafe} and no position/limit changes on the shared memory object are involved: a pooled
 * chunk's {@code ByteBuffer} is used by many buffers and threads at once and only ever accessed with absolute
 * indexes (plain, unaligned-safe access modes).
 *
 * <p>Subclasses decide where memory comes from ({@link #grow}) and where it goes ({@link #free()}).
 */
abstract class MemoryBuffer extends AbstractBuffer {

    private static final VarHandle SHORT_BE = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT_LE = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    ByteBuffer memory; // confined to the using thread; replaced by grow(), null after free
    int base;          // confined to the using thread; offset of index 0 within memory
    int capacity;      // confined to the using thread
    private final boolean direct;

    /**
     * Non-null when leak detection tracks this buffer; closed when the buffer is freed. Set once by the allocator
     * right after construction, before the buffer is handed out (safe publication is the caller's hand-off).
     */
    private LeakDetector.Record leak;

    MemoryBuffer(ByteBuffer memory, int base, int capacity, int maxCapacity) {
        super(maxCapacity);
        this.memory = memory;
        this.base = base;
        this.capacity = capacity;
        this.direct = memory.isDirect();
    }

    final void attachLeakRecord(LeakDetector.Record record) {
        this.leak = record;
    }

    /** Returns the memory to its owner; called once. */
    abstract void free();

    @Override
    final void deallocate() {
        LeakDetector.Record record = leak;
        if (record != null) {
            leak = null; // nothing reaches the closed record any more: it is garbage, never enqueued
            record.close();
        }
        free();
        memory = null;
    }

    @Override
    public final Buffer touch(Object hint) {
        if (leak != null) {
            leak.record(hint);
        }
        return this;
    }

    @Override
    final AbstractBuffer root() {
        return this;
    }

    @Override
    public final int capacity() {
        return capacity;
    }

    @Override
    public final boolean isDirect() {
        return direct;
    }

    /** Copies the whole current capacity into {@code [newBase, newBase + capacity)} of {@code newMemory}. */
    final void moveTo(ByteBuffer newMemory, int newBase, int newCapacity) {
        newMemory.put(newBase, memory, base, capacity);
        memory = newMemory;
        base = newBase;
        capacity = newCapacity;
    }

    @Override
    final byte _getByte(int index) {
        return memory.get(base + index);
    }

    @Override
    final short _getShort(int index) {
        return (short) SHORT_BE.get(memory, base + index);
    }

    @Override
    final short _getShortLE(int index) {
        return (short) SHORT_LE.get(memory, base + index);
    }

    @Override
    final int _getInt(int index) {
        return (int) INT_BE.get(memory, base + index);
    }

    @Override
    final int _getIntLE(int index) {
        return (int) INT_LE.get(memory, base + index);
    }

    @Override
    final long _getLong(int index) {
        return (long) LONG_BE.get(memory, base + index);
    }

    @Override
    final long _getLongLE(int index) {
        return (long) LONG_LE.get(memory, base + index);
    }

    @Override
    final void _setByte(int index, int value) {
        memory.put(base + index, (byte) value);
    }

    @Override
    final void _setShort(int index, int value) {
        SHORT_BE.set(memory, base + index, (short) value);
    }

    @Override
    final void _setShortLE(int index, int value) {
        SHORT_LE.set(memory, base + index, (short) value);
    }

    @Override
    final void _setInt(int index, int value) {
        INT_BE.set(memory, base + index, value);
    }

    @Override
    final void _setIntLE(int index, int value) {
        INT_LE.set(memory, base + index, value);
    }

    @Override
    final void _setLong(int index, long value) {
        LONG_BE.set(memory, base + index, value);
    }

    @Override
    final void _setLongLE(int index, long value) {
        LONG_LE.set(memory, base + index, value);
    }

    @Override
    final void _getBytes(int index, byte[] dst, int dstIndex, int length) {
        memory.get(base + index, dst, dstIndex, length);
    }

    @Override
    final void _getBytes(int index, ByteBuffer dst, int length) {
        int position = dst.position();
        dst.put(position, memory, base + index, length);
        dst.position(position + length);
    }

    @Override
    final void _setBytes(int index, byte[] src, int srcIndex, int length) {
        memory.put(base + index, src, srcIndex, length);
    }

    @Override
    final void _setBytes(int index, ByteBuffer src, int length) {
        int position = src.position();
        memory.put(base + index, src, position, length);
        src.position(position + length);
    }

    @Override
    final ByteBuffer _nioBuffer(int index, int length) {
        return memory.slice(base + index, length);
    }
}
