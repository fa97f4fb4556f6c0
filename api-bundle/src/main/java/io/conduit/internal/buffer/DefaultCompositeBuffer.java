package io.conduit.internal.buffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.CompositeBuffer;

/**
 * {@link CompositeBuffer} over a list of components, each a window {@code [srcOffset, srcOffset + length)} of a
 * component buffer, laid end to end: component {@code i} covers composite indexes
 * {@code [start_i, start_i + length_i)} with {@code start_0 = 0} and {@code start_{i+1} = start_i + length_i};
 * {@code capacity() = sum of lengths}. Component accesses go through the components' public, checked
 * accessors, so any {@link Buffer} implementation can be a component. Values that straddle a boundary are
 * assembled byte by byte (big-endian; the LE variants byte-swap).
 *
 * <p>{@link #addComponent} first drops the writable tail (bytes after the writer index, e.g. room added by an
 * earlier growth), so the new component's bytes directly follow the readable ones.
 *
 * <p>Not tracked by leak detection itself: its components are. Threading: like any buffer, one thread at a time.
 */
final class DefaultCompositeBuffer extends AbstractBuffer implements CompositeBuffer {

    private static final class Component {
        final Buffer buffer;
        final int srcOffset;
        final int length;
        final int start;

        Component(Buffer buffer, int srcOffset, int length, int start) {
            this.buffer = buffer;
            this.srcOffset = srcOffset;
            this.length = length;
            this.start = start;
        }

        int end() {
            return start + length;
        }
    }

    private final BufferAllocator allocator;
    private final ArrayList<Component> components = new ArrayList<>(4); // confined to the using thread
    private int capacity;      // confined; sum of component lengths
    private int lastComponent; // confined; index of the last component found, a lookup hint

    DefaultCompositeBuffer(BufferAllocator allocator) {
        super(Integer.MAX_VALUE);
        this.allocator = allocator;
    }

    @Override
    public CompositeBuffer addComponent(Buffer buffer) {
        ensureAccessible("addComponent");
        if (buffer == this) {
            throw new IllegalArgumentException("addComponent: a composite cannot contain itself");
        }
        if (buffer.refCnt() == 0) {
            throw new io.conduit.buffer.IllegalReferenceCountException(
                    "addComponent of a buffer that was already released (refCnt 0)");
        }
        int length = buffer.readableBytes();
        if (length > Integer.MAX_VALUE - capacity) {
            throw new IndexOutOfBoundsException("addComponent: capacity " + capacity + " + " + length
                    + " bytes exceeds maxCapacity " + Integer.MAX_VALUE);
        }
        append(buffer, buffer.readerIndex(), length);
        writerIndex += length;
        return this;
    }

    private void append(Buffer buffer, int srcOffset, int length) {
        trimToWriterIndex();
        components.add(new Component(buffer, srcOffset, length, capacity));
        capacity += length;
    }

    /**
     * Drops the writable tail {@code [writerIndex, capacity)} so that an appended component directly follows the
     * written bytes: components wholly in the tail are released, the one that straddles it is shortened.
     */
    private void trimToWriterIndex() {
        while (capacity > writerIndex) {
            int last = components.size() - 1;
            Component c = components.get(last);
            if (c.start >= writerIndex) {
                components.remove(last);
                c.buffer.release();
                capacity = c.start;
            } else {
                components.set(last, new Component(c.buffer, c.srcOffset, writerIndex - c.start, c.start));
                capacity = writerIndex;
            }
        }
        lastComponent = 0;
    }

    @Override
    public int numComponents() {
        return components.size();
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    void grow(int minCapacity, int preferredCapacity) {
        int length = preferredCapacity - capacity;
        Buffer extra = allocator.buffer(length, length);
        extra.writerIndex(length);
        components.add(new Component(extra, 0, length, capacity));
        capacity += length;
    }

    @Override
    void deallocate() {
        for (Component c : components) {
            c.buffer.release();
        }
        components.clear();
        capacity = 0;
    }

    @Override
    BufferAllocator allocator() {
        return allocator;
    }

    @Override
    AbstractBuffer root() {
        return this;
    }

    @Override
    public boolean isDirect() {
        for (Component c : components) {
            if (!c.buffer.isDirect()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public CompositeBuffer retain() {
        super.retain(1);
        return this;
    }

    @Override
    public CompositeBuffer retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public CompositeBuffer touch(Object hint) {
        for (Component c : components) {
            c.buffer.touch(hint);
        }
        return this;
    }

    @Override
    public CompositeBuffer touch() {
        return touch(null);
    }

    /** @return the index of the component holding composite index {@code index} ({@code 0 <= index < capacity}) */
    private int find(int index) {
        Component hint = components.get(lastComponent);
        if (index >= hint.start && index < hint.end()) {
            return lastComponent;
        }
        int lo = 0;
        int hi = components.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (components.get(mid).start <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        // skip zero-length components that share a start
        while (components.get(lo).length == 0) {
            lo++;
        }
        lastComponent = lo;
        return lo;
    }

    /** @return the component when {@code [index, index + width)} lies inside one, else {@code null} */
    private Component within(int index, int width) {
        Component c = components.get(find(index));
        return index + width <= c.end() ? c : null;
    }

    private long getBigEndian(int index, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) {
            v = (v << 8) | (_getByte(index + i) & 0xFF);
        }
        return v;
    }

    private void setBigEndian(int index, int width, long value) {
        for (int i = width - 1; i >= 0; i--) {
            _setByte(index + i, (int) value);
            value >>>= 8;
        }
    }

    @Override
    byte _getByte(int index) {
        Component c = components.get(find(index));
        return c.buffer.getByte(c.srcOffset + index - c.start);
    }

    @Override
    short _getShort(int index) {
        Component c = within(index, 2);
        return c != null ? c.buffer.getShort(c.srcOffset + index - c.start) : (short) getBigEndian(index, 2);
    }

    @Override
    short _getShortLE(int index) {
        return Short.reverseBytes(_getShort(index));
    }

    @Override
    int _getInt(int index) {
        Component c = within(index, 4);
        return c != null ? c.buffer.getInt(c.srcOffset + index - c.start) : (int) getBigEndian(index, 4);
    }

    @Override
    int _getIntLE(int index) {
        return Integer.reverseBytes(_getInt(index));
    }

    @Override
    long _getLong(int index) {
        Component c = within(index, 8);
        return c != null ? c.buffer.getLong(c.srcOffset + index - c.start) : getBigEndian(index, 8);
    }

    @Override
    long _getLongLE(int index) {
        return Long.reverseBytes(_getLong(index));
    }

    @Override
    void _setByte(int index, int value) {
        Component c = components.get(find(index));
        c.buffer.setByte(c.srcOffset + index - c.start, value);
    }

    @Override
    void _setShort(int index, int value) {
        Component c = within(index, 2);
        if (c != null) {
            c.buffer.setShort(c.srcOffset + index - c.start, value);
        } else {
            setBigEndian(index, 2, value);
        }
    }

    @Override
    void _setShortLE(int index, int value) {
        _setShort(index, Short.reverseBytes((short) value));
    }

    @Override
    void _setInt(int index, int value) {
        Component c = within(index, 4);
        if (c != null) {
            c.buffer.setInt(c.srcOffset + index - c.start, value);
        } else {
            setBigEndian(index, 4, value);
        }
    }

    @Override
    void _setIntLE(int index, int value) {
        _setInt(index, Integer.reverseBytes(value));
    }

    @Override
    void _setLong(int index, long value) {
        Component c = within(index, 8);
        if (c != null) {
            c.buffer.setLong(c.srcOffset + index - c.start, value);
        } else {
            setBigEndian(index, 8, value);
        }
    }

    @Override
    void _setLongLE(int index, long value) {
        _setLong(index, Long.reverseBytes(value));
    }

    @Override
    void _getBytes(int index, byte[] dst, int dstIndex, int length) {
        while (length > 0) {
            Component c = components.get(find(index));
            int n = Math.min(length, c.end() - index);
            c.buffer.getBytes(c.srcOffset + index - c.start, dst, dstIndex, n);
            index += n;
            dstIndex += n;
            length -= n;
        }
    }

    @Override
    void _getBytes(int index, ByteBuffer dst, int length) {
        int limit = dst.limit();
        try {
            while (length > 0) {
                Component c = components.get(find(index));
                int n = Math.min(length, c.end() - index);
                dst.limit(dst.position() + n);
                c.buffer.getBytes(c.srcOffset + index - c.start, dst);
                index += n;
                length -= n;
            }
        } finally {
            dst.limit(limit);
        }
    }

    @Override
    void _setBytes(int index, byte[] src, int srcIndex, int length) {
        while (length > 0) {
            Component c = components.get(find(index));
            int n = Math.min(length, c.end() - index);
            c.buffer.setBytes(c.srcOffset + index - c.start, src, srcIndex, n);
            index += n;
            srcIndex += n;
            length -= n;
        }
    }

    @Override
    void _setBytes(int index, ByteBuffer src, int length) {
        while (length > 0) {
            Component c = components.get(find(index));
            int n = Math.min(length, c.end() - index);
            ByteBuffer target = c.buffer.nioBuffer(c.srcOffset + index - c.start, n);
            int position = src.position();
            target.put(0, src, position, n);
            src.position(position + n);
            index += n;
            length -= n;
        }
    }

    /** One component's view, or a merged copy when the range spans several (used by {@link #copy()}). */
    @Override
    ByteBuffer _nioBuffer(int index, int length) {
        if (length == 0) {
            return ByteBuffer.allocate(0);
        }
        Component c = within(index, length);
        if (c != null) {
            return c.buffer.nioBuffer(c.srcOffset + index - c.start, length);
        }
        ByteBuffer merged = ByteBuffer.allocate(length);
        _getBytes(index, merged, length);
        return merged.flip();
    }

    @Override
    public int nioBufferCount() {
        return components.size();
    }

    /** @throws UnsupportedOperationException unless the composite has exactly one component */
    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex("nioBuffer", index, length);
        if (components.size() != 1) {
            throw new UnsupportedOperationException("nioBuffer on a composite of " + components.size()
                    + " components; use nioBuffers(index, length) for a gathering write");
        }
        return _nioBuffer(index, length);
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        checkIndex("nioBuffers", index, length);
        ArrayList<ByteBuffer> views = new ArrayList<>(components.size());
        while (length > 0) {
            Component c = components.get(find(index));
            int n = Math.min(length, c.end() - index);
            views.add(c.buffer.nioBuffer(c.srcOffset + index - c.start, n));
            index += n;
            length -= n;
        }
        return views.toArray(new ByteBuffer[0]);
    }

    @Override
    public String toString() {
        return super.toString() + "[" + components.size() + " components]";
    }
}
