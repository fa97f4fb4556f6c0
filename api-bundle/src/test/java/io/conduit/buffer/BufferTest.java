package io.conduit.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.IntFunction;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Behaviour every buffer kind shares, run against pooled direct, unpooled direct and heap buffers. */
class BufferTest {

    static Stream<Arguments> kinds() {
        IntFunction<Buffer> pooled = capacity -> BufferAllocator.pooled().buffer(capacity);
        IntFunction<Buffer> unpooled = capacity -> BufferAllocator.unpooled().buffer(capacity);
        IntFunction<Buffer> heap = capacity -> BufferAllocator.unpooled().heapBuffer(capacity);
        IntFunction<Buffer> pooledHeap = capacity -> BufferAllocator.pooled().heapBuffer(capacity);
        return Stream.of(Arguments.of("pooled", pooled), Arguments.of("unpooled", unpooled),
                Arguments.of("heap", heap), Arguments.of("pooledHeap", pooledHeap));
    }

    private static void assertMessageContains(Throwable t, String... parts) {
        for (String part : parts) {
            assertTrue(t.getMessage().contains(part), "'" + part + "' missing in: " + t.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void indexesMoveWithReadsAndWritesAndBoundsErrorsNameIndexLengthAndCapacity(String kind, IntFunction<Buffer> alloc) {
        try (Buffer b = alloc.apply(16)) {
            assertEquals(16, b.capacity());
            assertEquals(0, b.readerIndex());
            assertEquals(0, b.writerIndex());
            assertFalse(b.isReadable());
            b.writeInt(7).writeByte(1);
            assertEquals(5, b.writerIndex());
            assertEquals(5, b.readableBytes());
            assertEquals(11, b.writableBytes());
            assertEquals(7, b.readInt());
            assertEquals(4, b.readerIndex());
            assertEquals(1, b.readableBytes());

            IndexOutOfBoundsException readPast = assertThrows(IndexOutOfBoundsException.class, b::readInt);
            assertMessageContains(readPast, "readInt", "readerIndex 4", "length 4", "writerIndex 5", "capacity 16");
            assertEquals(4, b.readerIndex(), "a failed read must not move the reader index");

            IndexOutOfBoundsException get = assertThrows(IndexOutOfBoundsException.class, () -> b.getLong(12));
            assertMessageContains(get, "getLong", "index 12", "length 8", "capacity 16");
            assertThrows(IndexOutOfBoundsException.class, () -> b.getByte(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> b.setInt(Integer.MAX_VALUE, 1));

            IndexOutOfBoundsException reader = assertThrows(IndexOutOfBoundsException.class, () -> b.readerIndex(6));
            assertMessageContains(reader, "readerIndex 6", "writerIndex 5", "capacity 16");
            IndexOutOfBoundsException writer = assertThrows(IndexOutOfBoundsException.class, () -> b.writerIndex(3));
            assertMessageContains(writer, "writerIndex 3", "readerIndex 4", "capacity 16");
            assertThrows(IndexOutOfBoundsException.class, () -> b.writerIndex(17));

            b.skipBytes(1);
            assertFalse(b.isReadable());
            b.clear();
            assertEquals(0, b.readerIndex());
            assertEquals(0, b.writerIndex());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void everyWidthRoundTripsInBigAndLittleEndian(String kind, IntFunction<Buffer> alloc) {
        try (Buffer b = alloc.apply(64)) {
            b.writeByte(0x81).writeShort(0x1234).writeShortLE(0x1234).writeInt(0x01020304).writeIntLE(0x01020304)
                    .writeLong(0x0102030405060708L).writeLongLE(0x0102030405060708L);
            assertEquals(1 + 2 + 2 + 4 + 4 + 8 + 8, b.writerIndex());
            // big-endian is network order: most significant byte first
            assertEquals(0x12, b.getByte(1));
            assertEquals(0x34, b.getByte(2));
            assertEquals(0x34, b.getByte(3));
            assertEquals(0x12, b.getByte(4));
            assertEquals(0x01, b.getByte(5));
            assertEquals(0x04, b.getByte(9));
            assertEquals(0x01, b.getByte(12));
            assertEquals(0x01, b.getByte(13));
            assertEquals(0x08, b.getByte(20));
            assertEquals(0x08, b.getByte(21));
            assertEquals(0x01, b.getByte(28));
            assertEquals((byte) 0x81, b.getByte(0));

            assertEquals((short) 0x81, b.readUnsignedByte());
            assertEquals(0x1234, b.readShort());
            assertEquals(0x1234, b.readShortLE());
            assertEquals(0x01020304, b.readInt());
            assertEquals(0x01020304, b.readIntLE());
            assertEquals(0x0102030405060708L, b.readLong());
            assertEquals(0x0102030405060708L, b.readLongLE());

            // each width read in the other order is byte-swapped; negative values survive
            b.setShort(0, -2).setInt(8, -3).setLong(16, -4L);
            assertEquals(Short.reverseBytes((short) -2), b.getShortLE(0));
            assertEquals(Integer.reverseBytes(-3), b.getIntLE(8));
            assertEquals(Long.reverseBytes(-4L), b.getLongLE(16));
            b.setShortLE(0, -5).setIntLE(8, -6).setLongLE(16, -7L);
            assertEquals((short) -5, b.getShortLE(0));
            assertEquals(Short.reverseBytes((short) -5), b.getShort(0));
            assertEquals(-6, b.getIntLE(8));
            assertEquals(-7L, b.getLongLE(16));
            assertEquals(Long.reverseBytes(-7L), b.getLong(16));
            // unaligned offsets work
            b.setLong(3, 0x1122334455667788L);
            assertEquals(0x1122334455667788L, b.getLong(3));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void bulkCopiesBetweenArraysByteBuffersAndBuffers(String kind, IntFunction<Buffer> alloc) {
        byte[] data = new byte[300];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) i;
        }
        try (Buffer a = alloc.apply(8); Buffer b = alloc.apply(8)) {
            a.writeBytes(data);
            assertTrue(a.capacity() >= 300, "grew to fit: " + a.capacity());
            assertArrayEquals(data, a.toByteArray());
            b.writeBytes(ByteBuffer.wrap(data, 10, 20));
            b.writeBytes(a);
            assertEquals(0, a.readableBytes(), "writeBytes(Buffer) consumes the source");
            assertEquals(320, b.readableBytes());
            byte[] head = new byte[20];
            b.readBytes(head);
            assertEquals(10, head[0]);
            ByteBuffer direct = ByteBuffer.allocateDirect(500);
            b.readBytes(direct);
            assertEquals(300, direct.position(), "readBytes(ByteBuffer) stops when the buffer is empty");
            direct.flip();
            for (int i = 0; i < 300; i++) {
                assertEquals((byte) i, direct.get(i));
            }
            byte[] out = new byte[4];
            a.setBytes(0, new byte[] {9, 8, 7, 6}, 0, 4).getBytes(0, out, 0, 4);
            assertArrayEquals(new byte[] {9, 8, 7, 6}, out);
            ByteBuffer into = ByteBuffer.allocate(2);
            a.getBytes(1, into);
            assertArrayEquals(new byte[] {8, 7}, into.array());
            IndexOutOfBoundsException arrayBounds = assertThrows(IndexOutOfBoundsException.class,
                    () -> a.getBytes(0, out, 2, 4));
            assertMessageContains(arrayBounds, "array index 2", "length 4", "array length 4");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void ensureWritableGrowsKeepingContentAndStopsAtMaxCapacity(String kind, IntFunction<Buffer> alloc) {
        try (Buffer b = alloc.apply(4)) {
            b.writeInt(42);
            b.ensureWritable(1000);
            assertTrue(b.writableBytes() >= 1000, "writable " + b.writableBytes());
            assertEquals(42, b.getInt(0));
            b.ensureWritable(0);
            assertThrows(IllegalArgumentException.class, () -> b.ensureWritable(-1));
        }
        BufferAllocator allocator = kind.startsWith("pooled") ? BufferAllocator.pooled() : BufferAllocator.unpooled();
        try (Buffer b = allocator.buffer(4, 10)) {
            assertEquals(10, b.maxCapacity());
            b.writeLong(1);
            b.writeShort(2);
            assertEquals(10, b.capacity(), "growth is clamped to maxCapacity");
            IndexOutOfBoundsException full = assertThrows(IndexOutOfBoundsException.class, () -> b.writeByte(3));
            assertMessageContains(full, "writeByte", "writerIndex 10", "maxCapacity 10");
            IndexOutOfBoundsException ensure = assertThrows(IndexOutOfBoundsException.class, () -> b.ensureWritable(5));
            assertMessageContains(ensure, "ensureWritable(5)", "maxCapacity 10");
            assertEquals(1, b.readLong());
            assertEquals(2, b.readShort());
        }
        assertThrows(IllegalArgumentException.class, () -> allocator.buffer(-1));
        assertThrows(IllegalArgumentException.class, () -> allocator.buffer(8, 4));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void referenceCountingAndMisuseMessages(String kind, IntFunction<Buffer> alloc) {
        Buffer b = alloc.apply(8);
        assertEquals(1, b.refCnt());
        assertTrue(b == b.retain());
        b.retain(2);
        assertEquals(4, b.refCnt());
        assertFalse(b.release());
        assertFalse(b.release(2));
        IllegalReferenceCountException tooMany = assertThrows(IllegalReferenceCountException.class, () -> b.release(2));
        assertMessageContains(tooMany, "release(2)", "refCnt 1");
        b.close();
        assertEquals(0, b.refCnt());

        IllegalReferenceCountException doubleRelease = assertThrows(IllegalReferenceCountException.class, b::release);
        assertMessageContains(doubleRelease, "release(1)", "already released", "refCnt 0");
        assertThrows(IllegalReferenceCountException.class, b::close);
        IllegalReferenceCountException retain = assertThrows(IllegalReferenceCountException.class, b::retain);
        assertMessageContains(retain, "retain(1)", "refCnt 0");
        IllegalReferenceCountException read = assertThrows(IllegalReferenceCountException.class, () -> b.getInt(0));
        assertMessageContains(read, "getInt", "refCnt 0");
        assertThrows(IllegalReferenceCountException.class, () -> b.writeByte(1));
        assertThrows(IllegalReferenceCountException.class, b::readByte);
        assertThrows(IllegalReferenceCountException.class, () -> b.nioBuffer(0, 1));
        assertThrows(IllegalReferenceCountException.class, () -> b.retainedSlice(0, 1));
        assertThrows(IllegalReferenceCountException.class, b::copy);
        assertThrows(IllegalArgumentException.class, () -> alloc.apply(1).release(0));
        assertFalse(ReferenceCounted.release("not counted"));
        ReferenceCounted.safeRelease(b); // already freed: quietly ignored
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void retainedSliceSharesMemoryAndKeepsTheParentAlive(String kind, IntFunction<Buffer> alloc) {
        Buffer parent = alloc.apply(16);
        parent.writeLong(0x0102030405060708L);
        Buffer slice = parent.retainedSlice(2, 4);
        assertEquals(2, parent.refCnt());
        assertEquals(4, slice.capacity());
        assertEquals(4, slice.maxCapacity());
        assertEquals(4, slice.readableBytes());
        assertEquals(0x03040506, slice.getInt(0));
        slice.setByte(0, 0x7F);
        assertEquals(0x7F, parent.getByte(2), "writes through the slice are seen by the parent");
        parent.setByte(5, 0x55);
        assertEquals(0x55, slice.getByte(3), "and the other way round");
        IndexOutOfBoundsException outside = assertThrows(IndexOutOfBoundsException.class, () -> slice.getInt(1));
        assertMessageContains(outside, "index 1", "length 4", "capacity 4");
        assertThrows(IndexOutOfBoundsException.class, () -> slice.writerIndex(0).writeBytes(new byte[5]));

        assertFalse(parent.release(), "the slice still holds a reference");
        assertEquals(0x7F, slice.getByte(0), "parent memory stays valid while the slice lives");
        Buffer inner = slice.readerIndex(0).writerIndex(4).readRetainedSlice(2);
        assertEquals(2, slice.readerIndex());
        assertEquals(0x7F04, inner.getShort(0));
        assertFalse(slice.release());
        assertEquals(1, parent.refCnt());
        assertTrue(inner.release(), "the last slice frees itself");
        assertEquals(0, slice.refCnt());
        assertEquals(0, parent.refCnt(), "and the parent with it");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void copyIsIndependentAndNioBufferSharesMemory(String kind, IntFunction<Buffer> alloc) {
        try (Buffer b = alloc.apply(16)) {
            b.writeInt(1).writeInt(2);
            b.readInt();
            try (Buffer copy = b.copy()) {
                assertNotSame(b, copy);
                assertEquals(4, copy.readableBytes());
                assertEquals(b.isDirect(), copy.isDirect());
                assertEquals(2, copy.getInt(0));
                copy.setInt(0, 99);
                assertEquals(2, b.getInt(4));
            }
            assertEquals(1, b.nioBufferCount());
            ByteBuffer view = b.nioBuffer(4, 4);
            assertEquals(0, view.position());
            assertEquals(4, view.remaining());
            assertEquals(ByteOrder.BIG_ENDIAN, view.order());
            assertEquals(2, view.getInt(0));
            view.putInt(0, 77);
            assertEquals(77, b.getInt(4));
            ByteBuffer[] views = b.nioBuffers(0, 8);
            assertEquals(1, views.length);
            assertEquals(8, views[0].remaining());
            assertEquals(kind.equals("pooled") || kind.equals("unpooled"), b.isDirect());
            assertEquals(b.isDirect(), view.isDirect());
        }
    }
}
