package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelClosedException;
import io.conduit.concurrent.Promise;
import io.conduit.internal.concurrent.DefaultPromise;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class OutboundBufferTest {

    private static Buffer bytes(int n) {
        return BufferAllocator.unpooled().buffer(n).writeBytes(new byte[n]);
    }

    private static Promise<Void> promise() {
        return new DefaultPromise<>(null);
    }

    @Test
    void onlyFlushedMessagesAreOfferedForWriting() {
        OutboundBuffer out = new OutboundBuffer(10, 100);
        Buffer a = bytes(5);
        out.addMessage(a, promise());
        assertTrue(out.isFlushedEmpty());
        assertNull(out.current());
        out.addFlush();
        Buffer b = bytes(7);
        out.addMessage(b, promise()); // written after the flush: not part of it
        assertSame(a, out.current());
        out.nioBuffers(Long.MAX_VALUE);
        assertEquals(1, out.nioBufferCount(), "the unflushed buffer is not gathered");
        assertEquals(5, out.nioBufferSize());
        out.clearNioBuffers();
        out.removeBytes(5);
        assertTrue(out.isFlushedEmpty());
        assertFalse(out.isEmpty());
        out.addFlush();
        assertSame(b, out.current());
    }

    @Test
    void gatheringRespectsTheByteBudgetButTakesAtLeastOneBuffer() {
        OutboundBuffer out = new OutboundBuffer(0, 1 << 20);
        for (int i = 0; i < 4; i++) {
            out.addMessage(bytes(1000), promise());
        }
        out.addFlush();
        ByteBuffer[] iov = out.nioBuffers(2500);
        assertEquals(2, out.nioBufferCount());
        assertEquals(2000, out.nioBufferSize());
        assertEquals(1000, iov[0].remaining());
        out.clearNioBuffers();
        out.nioBuffers(10);
        assertEquals(1, out.nioBufferCount(), "one buffer even when it exceeds the budget");
        out.clearNioBuffers();
    }

    @Test
    void gatheringIsBoundedByIovMax() {
        OutboundBuffer out = new OutboundBuffer(0, Integer.MAX_VALUE);
        for (int i = 0; i < OutboundBuffer.IOV_MAX + 10; i++) {
            out.addMessage(bytes(1), promise());
        }
        out.addFlush();
        out.nioBuffers(Long.MAX_VALUE);
        assertEquals(OutboundBuffer.IOV_MAX, out.nioBufferCount());
        out.clearNioBuffers();
    }

    @Test
    void partialWritesAdvanceAndCompletePromisesInOrder() {
        OutboundBuffer out = new OutboundBuffer(0, 1 << 20);
        Buffer a = bytes(10);
        Buffer b = bytes(10);
        Promise<Void> pa = promise();
        Promise<Void> pb = promise();
        out.addMessage(a, pa);
        out.addMessage(b, pb);
        out.addFlush();
        out.removeBytes(15);
        assertTrue(pa.isSuccess());
        assertEquals(0, a.refCnt(), "a written buffer is released");
        assertFalse(pb.isDone());
        assertEquals(5, b.readableBytes());
        assertEquals(5, out.pendingBytes());
        out.removeBytes(5);
        assertTrue(pb.isSuccess());
        assertTrue(out.isEmpty());
    }

    @Test
    void waterMarksReportEachCrossingOnce() {
        OutboundBuffer out = new OutboundBuffer(10, 20);
        assertFalse(out.addMessage(bytes(15), promise()));
        assertTrue(out.isWritable());
        assertTrue(out.addMessage(bytes(10), promise()), "25 > high 20: unwritable");
        assertFalse(out.addMessage(bytes(1), promise()), "already unwritable");
        assertFalse(out.isWritable());
        assertEquals(17, out.bytesBeforeWritable(), "26 pending, writable below 10");
        out.addFlush();
        assertFalse(out.removeBytes(15), "11 pending is not below low 10");
        assertTrue(out.removeBytes(5), "6 < low 10: writable");
        assertTrue(out.isWritable());
    }

    @Test
    void failAllFailsFlushedAndUnflushedAndReleases() {
        OutboundBuffer out = new OutboundBuffer(0, 100);
        Buffer a = bytes(3);
        Buffer b = bytes(3);
        Promise<Void> pa = promise();
        Promise<Void> pb = promise();
        out.addMessage(a, pa);
        out.addFlush();
        out.addMessage(b, pb);
        out.failAll(() -> new ChannelClosedException("closed", null));
        assertInstanceOf(ChannelClosedException.class, pa.cause());
        assertInstanceOf(ChannelClosedException.class, pb.cause());
        assertEquals(0, a.refCnt());
        assertEquals(0, b.refCnt());
        assertTrue(out.isEmpty());
        assertEquals(0, out.pendingBytes());
    }

    @Test
    void failUnflushedKeepsTheFlushedPart() {
        OutboundBuffer out = new OutboundBuffer(0, 100);
        Promise<Void> pa = promise();
        Promise<Void> pb = promise();
        out.addMessage(bytes(3), pa);
        out.addFlush();
        out.addMessage(bytes(4), pb);
        out.failUnflushed(() -> new ChannelClosedException("output shut down", null));
        assertFalse(pa.isDone());
        assertInstanceOf(ChannelClosedException.class, pb.cause());
        assertEquals(3, out.pendingBytes());
        out.removeBytes(3);
        assertTrue(pa.isSuccess());
        assertTrue(out.isEmpty());
    }

    /** Flushes count the entries added since the last one; a cut of the unflushed part leaves nothing to count. */
    @Test
    void eachFlushCountsExactlyTheMessagesAddedSinceTheLastOne() {
        OutboundBuffer out = new OutboundBuffer(0, 1 << 20);
        Buffer[] first = {bytes(1), bytes(2), bytes(3)};
        for (Buffer b : first) {
            out.addMessage(b, promise());
        }
        out.addFlush();
        out.addFlush(); // nothing new: no change
        out.addMessage(bytes(4), promise());
        out.addMessage(bytes(5), promise());
        out.failUnflushed(() -> new ChannelClosedException("output shut down", null));
        Buffer last = bytes(6);
        out.addMessage(last, promise());
        Object[] flushed = new Object[8];
        assertEquals(3, out.flushedMessages(flushed), "only the first flush's messages are flushed");
        out.addFlush();
        assertEquals(4, out.flushedMessages(flushed));
        assertSame(first[0], flushed[0]);
        assertSame(last, flushed[3]);
        for (int i = 0; i < 4; i++) {
            out.removeHead(null);
        }
        assertTrue(out.isFlushedEmpty());
        assertTrue(out.isEmpty());
        out.addMessage(bytes(7), promise());
        out.addFlush();
        assertEquals(1, out.flushedMessages(flushed));
    }
}
