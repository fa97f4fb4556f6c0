package io.conduit.internal.buffer;

import java.nio.ByteBuffer;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;

/**
 * A fixed window {@code [offset, offset + length)} of a parent buffer that shares its memory. The slice holds
 * one reference on the parent (taken by {@link AbstractBuffer#retainedSlice}) and gives it back when its own
 * count reaches 0, so the parent's memory outlives every slice.
 *
 * <p>Accesses go through the parent's raw accessors at {@code offset + index}: they see the parent's current
 * memory even after the parent grew (growth copies and never shrinks, so the window stays inside it).
 */
final class SliceBuffer extends AbstractBuffer {

    private final AbstractBuffer parent; // holds one reference, released in deallocate()
    private final int offset;
    private final int length;

    SliceBuffer(AbstractBuffer parent, int offset, int length) {
        super(length);
        this.parent = parent;
        this.offset = offset;
        this.length = length;
        this.writerIndex = length;
    }

    @Override
    void deallocate() {
        parent.release();
    }

    @Override
    BufferAllocator allocator() {
        return parent.allocator();
    }

    @Override
    AbstractBuffer root() {
        return parent.root();
    }

    @Override
    public Buffer touch(Object hint) {
        root().touch(hint);
        return this;
    }

    @Override
    public int capacity() {
        return length;
    }

    @Override
    void grow(int minCapacity, int preferredCapacity) {
        throw new IllegalStateException("a slice cannot grow"); // unreachable: capacity == maxCapacity
    }

    @Override
    public boolean isDirect() {
        return parent.isDirect();
    }

    @Override
    byte _getByte(int index) {
        return parent._getByte(offset + index);
    }

    @Override
    short _getShort(int index) {
        return parent._getShort(offset + index);
    }

    @Override
    short _getShortLE(int index) {
        return parent._getShortLE(offset + index);
    }

    @Override
    int _getInt(int index) {
        return parent._getInt(offset + index);
    }

    @Override
    int _getIntLE(int index) {
        return parent._getIntLE(offset + index);
    }

    @Override
    long _getLong(int index) {
        return parent._getLong(offset + index);
    }

    @Override
    long _getLongLE(int index) {
        return parent._getLongLE(offset + index);
    }

    @Override
    void _setByte(int index, int value) {
        parent._setByte(offset + index, value);
    }

    @Override
    void _setShort(int index, int value) {
        parent._setShort(offset + index, value);
    }

    @Override
    void _setShortLE(int index, int value) {
        parent._setShortLE(offset + index, value);
    }

    @Override
    void _setInt(int index, int value) {
        parent._setInt(offset + index, value);
    }

    @Override
    void _setIntLE(int index, int value) {
        parent._setIntLE(offset + index, value);
    }

    @Override
    void _setLong(int index, long value) {
        parent._setLong(offset + index, value);
    }

    @Override
    void _setLongLE(int index, long value) {
        parent._setLongLE(offset + index, value);
    }

    @Override
    void _getBytes(int index, byte[] dst, int dstIndex, int length) {
        parent._getBytes(offset + index, dst, dstIndex, length);
    }

    @Override
    void _getBytes(int index, ByteBuffer dst, int length) {
        parent._getBytes(offset + index, dst, length);
    }

    @Override
    void _setBytes(int index, byte[] src, int srcIndex, int length) {
        parent._setBytes(offset + index, src, srcIndex, length);
    }

    @Override
    void _setBytes(int index, ByteBuffer src, int length) {
        parent._setBytes(offset + index, src, length);
    }

    @Override
    ByteBuffer _nioBuffer(int index, int length) {
        return parent._nioBuffer(offset + index, length);
    }
}
