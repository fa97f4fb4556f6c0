package io.conduit.handler.codec;

import static io.conduit.handler.codec.Inputs.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.CompositeBuffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ByteToMessageDecoderTest {

    /** Decodes big-endian ints; records decodeLast calls and what it saw. */
    static class IntDecoder extends ByteToMessageDecoder {
        final List<Integer> lastCalls = new ArrayList<>();

        @Override
        protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) {
            if (in.readableBytes() >= 4) {
                out.add(in.readInt());
            }
        }

        @Override
        protected void decodeLast(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
            lastCalls.add(in.readableBytes());
            super.decodeLast(ctx, in, out);
        }
    }

    static byte[] ints(int... values) {
        byte[] b = new byte[values.length * 4];
        for (int i = 0; i < values.length; i++) {
            b[4 * i] = (byte) (values[i] >>> 24);
            b[4 * i + 1] = (byte) (values[i] >>> 16);
            b[4 * i + 2] = (byte) (values[i] >>> 8);
            b[4 * i + 3] = (byte) values[i];
        }
        return b;
    }

    static List<Object> inbound(EmbeddedChannel ch) {
        List<Object> out = new ArrayList<>();
        for (Object m; (m = ch.readInbound()) != null;) {
            out.add(m);
        }
        return out;
    }

    @Test
    void everyCumulatorDecodesGluedAndSplitInputAndReleasesEveryRead() {
        byte[] stream = ints(1, 2, 3, 0x01020304, -1);
        for (ByteToMessageDecoder.Cumulator c : List.of(ByteToMessageDecoder.MERGE_CUMULATOR,
                ByteToMessageDecoder.COMPOSITE_CUMULATOR, ByteToMessageDecoder.ADAPTIVE_CUMULATOR)) {
            for (int cut = 0; cut <= stream.length; cut++) {
                for (int cut2 = cut; cut2 <= stream.length; cut2 += 3) {
                    IntDecoder d = new IntDecoder();
                    d.setCumulator(c);
                    Inputs in = new Inputs();
                    EmbeddedChannel ch = new EmbeddedChannel(d);
                    in.write(ch, stream, cut, cut2);
                    assertEquals(List.of(1, 2, 3, 0x01020304, -1), inbound(ch), "cuts " + cut + ", " + cut2);
                    assertEquals(0, d.bufferedBytes());
                    ch.finish();
                    in.assertAllReleased();
                }
            }
        }
    }

    @Test
    void decodeLastRunsOnceAtEndOfInputWithWhatIsLeft() {
        IntDecoder d = new IntDecoder();
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(d);
        in.write(ch, new byte[] {0, 0, 0, 7, 1, 2});
        assertEquals(List.of(7), inbound(ch));
        ch.pipeline().fireUserEventTriggered(InputShutdownEvent.INSTANCE);
        assertEquals(List.of(2), d.lastCalls);
        assertEquals(0, d.bufferedBytes());
        in.assertAllReleased(); // the two bytes left were released
        ch.finish(); // channelInactive: not called again
        assertEquals(List.of(2), d.lastCalls);
        // reads after the end of input are released, not decoded
        assertEquals(List.of(), inbound(ch));
    }

    @Test
    void decodeLastSeesAnEmptyBufferWhenNothingIsLeft() {
        IntDecoder d = new IntDecoder();
        EmbeddedChannel ch = new EmbeddedChannel(d);
        ch.finish();
        assertEquals(List.of(0), d.lastCalls);
    }

    @Test
    void removalPassesTheHeldBytesOn() {
        IntDecoder d = new IntDecoder();
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(d);
        in.write(ch, new byte[] {0, 0, 0, 9, 'a', 'b'}, 4, 5);
        assertEquals(List.of(9), inbound(ch));
        ch.pipeline().remove(d);
        Buffer rest = ch.readInbound();
        assertEquals("ab", new String(rest.toByteArray()));
        rest.release();
        ch.finish();
        in.assertAllReleased();
    }

    /** Decodes one int, then replaces itself: what follows in the same read goes on as bytes, in order. */
    @Test
    void removalFromInsideDecodePassesTheRestOnAfterTheMessage() {
        ByteToMessageDecoder once = new ByteToMessageDecoder() {
            @Override
            protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) {
                if (in.readableBytes() >= 4) {
                    out.add(in.readInt());
                    ctx.pipeline().remove(this);
                }
            }
        };
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(once);
        in.write(ch, new byte[] {0, 0, 0, 5, 'x', 'y', 'z'});
        List<Object> got = inbound(ch);
        assertEquals(2, got.size());
        assertEquals(5, got.get(0));
        Buffer rest = (Buffer) got.get(1);
        assertEquals("xyz", new String(rest.toByteArray()));
        rest.release();
        assertNull(ch.pipeline().get(ByteToMessageDecoder.class));
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void aMessageWithoutProgressIsAnErrorNotALoop() {
        ByteToMessageDecoder stuck = new ByteToMessageDecoder() {
            @Override
            protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) {
                out.add("again");
            }
        };
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(stuck);
        DecoderException e = assertThrows(DecoderException.class, () -> in.write(ch, new byte[] {1}));
        assertTrue(e.getMessage().endsWith(".decode() produced 1 message(s) without reading a byte; it would be"
                + " called forever"), e.getMessage());
        assertEquals(List.of("again"), inbound(ch));
        // the byte is still held: end of input tries once more, fails the same way, then releases it
        assertThrows(DecoderException.class, ch::finish);
        assertEquals(0, stuck.bufferedBytes());
        ch.releaseInbound();
        in.assertAllReleased();
    }

    @Test
    void aFailureIsWrappedAfterTheMessagesDecodedBeforeItWereFired() {
        ByteToMessageDecoder failing = new ByteToMessageDecoder() {
            @Override
            protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) {
                byte b = in.readByte();
                if (b == 0) {
                    throw new IllegalStateException("zero byte");
                }
                out.add((int) b);
            }
        };
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(failing);
        DecoderException e = assertThrows(DecoderException.class, () -> in.write(ch, new byte[] {1, 2, 0, 3}));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(List.of(1, 2), inbound(ch));
        in.write(ch, new byte[] {4}); // the byte after the failure was kept
        assertEquals(List.of(3, 4), inbound(ch));
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void withAutoReadOffAReadThatDecodedNothingAsksForMore() {
        IntDecoder d = new IntDecoder();
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(d);
        ch.config().setAutoRead(false);
        long before = ch.readRequests();
        in.write(ch, new byte[] {0, 0});
        assertEquals(before + 1, ch.readRequests(), "half an int: the decoder asks for the rest");
        in.write(ch, new byte[] {0, 1});
        assertEquals(before + 1, ch.readRequests(), "an int was passed on: the application decides");
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void otherMessagesPassThrough() {
        EmbeddedChannel ch = new EmbeddedChannel(new IntDecoder());
        ch.writeInbound("text");
        assertEquals("text", ch.readInbound());
        ch.finish();
    }

    @Test
    void compositeCumulationDropsConsumedComponentsSoMemoryFollowsWhatIsUnread() {
        // 6-byte ints-with-padding split 4 + 2 + ...: the cumulation always holds a partial frame
        IntDecoder d = new IntDecoder();
        d.setCumulator(ByteToMessageDecoder.COMPOSITE_CUMULATOR);
        Inputs in = new Inputs(BufferAllocator.unpooled());
        EmbeddedChannel ch = new EmbeddedChannel(d);
        for (int i = 0; i < 2000; i++) {
            in.write(ch, new byte[] {0, 0, 0});
            assertTrue(d.bufferedBytes() < 8, "holds " + d.bufferedBytes());
        }
        assertEquals(1500, inbound(ch).size());
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void adaptiveCumulatorSwitchesToACompositeForLargeHeldFrames() {
        List<Boolean> composite = new ArrayList<>();
        ByteToMessageDecoder waitAll = new ByteToMessageDecoder() {
            @Override
            protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) {
                composite.add(in instanceof CompositeBuffer);
                if (in.readableBytes() >= 200_000) {
                    out.add(in.readRetainedSlice(200_000));
                }
            }
        };
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(waitAll);
        for (int i = 0; i < 20; i++) {
            in.write(ch, new byte[10_000]);
        }
        assertEquals(Boolean.FALSE, composite.get(0));
        assertEquals(Boolean.TRUE, composite.get(composite.size() - 1));
        Buffer frame = ch.readInbound();
        assertEquals(200_000, frame.readableBytes());
        frame.release();
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void messageToMessageCodecsReleaseTheirInput() {
        MessageToMessageDecoder<Buffer> toString = new MessageToMessageDecoder<>(Buffer.class) {
            @Override
            protected void decode(ChannelHandlerContext ctx, Buffer msg, List<Object> out) {
                out.add(new String(msg.toByteArray()));
            }
        };
        MessageToMessageEncoder<String> fromString = new MessageToMessageEncoder<>(String.class) {
            @Override
            protected void encode(ChannelHandlerContext ctx, String msg, List<Object> out) {
                for (char c : msg.toCharArray()) {
                    out.add(ctx.alloc().buffer(1).writeByte(c));
                }
            }
        };
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(toString, fromString);
        ch.writeInbound(in.buffer(ascii("hi"), 0, 2));
        assertEquals("hi", ch.readInbound());
        assertTrue(ch.writeOutbound("ab"));
        assertTrue(ch.writeOutbound("c"));
        StringBuilder sb = new StringBuilder();
        for (Object m; (m = ch.readOutbound()) != null;) {
            Buffer b = (Buffer) m;
            sb.append((char) b.readByte());
            b.release();
        }
        assertEquals("abc", sb.toString());
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void messageToByteEncoderFailureFailsThePromiseAndReleases() {
        MessageToByteEncoder<Buffer> enc = new MessageToByteEncoder<>(Buffer.class) {
            @Override
            protected void encode(ChannelHandlerContext ctx, Buffer msg, Buffer out) {
                if (msg.readableBytes() == 0) {
                    throw new IllegalArgumentException("empty");
                }
                out.writeByte(msg.readableBytes()).writeBytes(msg);
            }
        };
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(enc);
        ch.writeOutbound(in.buffer(ascii("abc"), 0, 3));
        Buffer out = ch.readOutbound();
        assertEquals("\u0003abc", new String(out.toByteArray()));
        out.release();
        Buffer empty = BufferAllocator.pooled().buffer(1);
        EncoderException e = assertThrows(EncoderException.class, () -> ch.writeOutbound(empty));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertEquals(0, empty.refCnt());
        ch.finish();
        in.assertAllReleased();
    }

    /** A handler that is not a decoder still sees a decoder's messages in order with other events. */
    @Test
    void singleDecodeStopsAfterOneMessagePerRead() {
        IntDecoder d = new IntDecoder();
        d.setSingleDecode(true);
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(d, new ChannelHandler() { });
        in.write(ch, ints(1, 2, 3));
        assertEquals(List.of(1), inbound(ch));
        assertEquals(8, d.bufferedBytes());
        ch.finish(); // decodeLast decodes the rest once
        assertEquals(List.of(2), inbound(ch).subList(0, 1));
        in.assertAllReleased();
    }
}
