package io.conduit.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class CompositeBufferTest {

    private static Buffer bytes(BufferAllocator allocator, int... values) {
        Buffer b = allocator.buffer(values.length);
        for (int v : values) {
            b.writeByte(v);
        }
        return b;
    }

    @Test
    void componentsAreReadAsOneBufferWithValuesStraddlingBoundaries() {
        BufferAllocator allocator = BufferAllocator.pooled();
        Buffer a = bytes(allocator, 1, 2, 3);
        Buffer b = bytes(allocator, 4, 5);
        Buffer c = bytes(allocator, 0, 6, 7, 8, 9, 10, 11, 12, 13);
        c.readByte(); // only readable bytes become part of the composite
        try (CompositeBuffer composite = allocator.compositeBuffer()) {
            assertEquals(0, composite.capacity());
            composite.addComponent(a).addComponent(b).addComponent(c);
            assertEquals(3, composite.numComponents());
            assertEquals(13, composite.readableBytes());
            assertEquals(13, composite.capacity());
            assertEquals(0x01020304, composite.getInt(0));
            assertEquals(0x04030201, composite.getIntLE(0));
            assertEquals(0x0405, composite.getShort(3));
            assertEquals(0x0506, composite.getShort(4));
            assertEquals(0x0605, composite.getShortLE(4));
            assertEquals(0x0203040506070809L, composite.getLong(1));
            assertEquals(Long.reverseBytes(0x0203040506070809L), composite.getLongLE(1));
            composite.setInt(1, 0xA0B0C0D0);
            assertEquals((byte) 0xB0, a.getByte(2), "writes go through to the component's memory");
            assertEquals((byte) 0xC0, b.getByte(0));
            composite.setLongLE(2, 0x1122334455667788L);
            assertEquals(0x1122334455667788L, composite.getLongLE(2));
            composite.setShortLE(2, 0x3344);
            assertEquals(0x3344, composite.getShortLE(2));
            composite.setIntLE(4, 7);
            assertEquals(7, composite.getIntLE(4));

            byte[] all = composite.toByteArray();
            assertEquals(13, all.length);
            ByteBuffer[] views = composite.nioBuffers(1, 10);
            assertEquals(3, views.length, "one view per component touched: a gathering write");
            assertEquals(2, views[0].remaining());
            assertEquals(2, views[1].remaining());
            assertEquals(6, views[2].remaining());
            assertEquals(3, composite.nioBufferCount());
            UnsupportedOperationException single = assertThrows(UnsupportedOperationException.class,
                    () -> composite.nioBuffer(0, 4));
            assertTrue(single.getMessage().contains("nioBuffers"), single.getMessage());
            try (Buffer copy = composite.copy()) {
                assertArrayEquals(all, copy.toByteArray());
            }
            byte[] middle = new byte[6];
            composite.getBytes(2, middle, 0, 6);
            assertArrayEquals(new byte[] {all[2], all[3], all[4], all[5], all[6], all[7]}, middle);
        }
        assertEquals(0, a.refCnt(), "releasing the composite releases its components");
        assertEquals(0, b.refCnt());
        assertEquals(0, c.refCnt());
    }

    @Test
    void writingPastTheCapacityAddsComponentsAndAddComponentFollowsTheWrittenBytes() {
        BufferAllocator allocator = BufferAllocator.unpooled();
        CompositeBuffer composite = allocator.compositeBuffer();
        composite.writeInt(0x01020304); // grows by a new component
        assertEquals(1, composite.numComponents());
        assertTrue(composite.capacity() >= 4);
        composite.addComponent(bytes(allocator, 5, 6));
        assertEquals(2, composite.numComponents());
        assertEquals(6, composite.capacity(), "the unwritten room was dropped before appending");
        assertEquals(0x01020304, composite.readInt());
        assertEquals(0x0506, composite.readShort());
        composite.writeBytes(new byte[100]);
        composite.writeBytes(ByteBuffer.wrap(new byte[] {9, 9}));
        assertEquals(102, composite.readableBytes());
        Buffer slice = composite.retainedSlice(6, 4);
        assertEquals(2, composite.refCnt());
        assertFalse(composite.release());
        assertEquals(0, slice.getInt(0));
        assertTrue(slice.release());
        assertEquals(0, composite.refCnt());
        assertThrows(IllegalReferenceCountException.class, () -> composite.getByte(0));
    }

    @Test
    void addComponentRejectsFreedBuffersAndItself() {
        BufferAllocator allocator = BufferAllocator.unpooled();
        try (CompositeBuffer composite = allocator.compositeBuffer()) {
            Buffer freed = allocator.buffer(1);
            freed.release();
            IllegalReferenceCountException e = assertThrows(IllegalReferenceCountException.class,
                    () -> composite.addComponent(freed));
            assertTrue(e.getMessage().contains("refCnt 0"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> composite.addComponent(composite));
            Buffer heap = allocator.heapBuffer(2).writeShort(1);
            composite.addComponent(heap);
            assertFalse(composite.isDirect());
            assertEquals(1, composite.readShort());
        }
    }
}
