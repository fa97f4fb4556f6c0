package io.conduit.handler.codec;

import static io.conduit.handler.codec.Inputs.ascii;
import static io.conduit.handler.codec.Inputs.strings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteOrder;
import java.util.List;

import io.conduit.buffer.Buffer;
import io.conduit.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LengthFieldBasedFrameDecoderTest {

    /** A frame: {@code offset} bytes of 0x7e, the field, {@code body}; the field holds body length - adjustment. */
    static byte[] frame(int offset, int fieldLength, ByteOrder order, int adjustment, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < offset; i++) {
            out.write(0x7e);
        }
        long value = body.length - adjustment;
        for (int i = 0; i < fieldLength; i++) {
            int shift = order == ByteOrder.BIG_ENDIAN ? 8 * (fieldLength - 1 - i) : 8 * i;
            out.write((int) (value >>> shift));
        }
        out.writeBytes(body);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void everyFieldSizeAndByteOrderDecodesFramesSplitAtEveryPosition() {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            for (int size = 1; size <= 8; size++) {
                int fieldLength = size;
                byte[] stream = concat(frame(2, size, order, 0, ascii("hello")), frame(2, size, order, 0, ascii("")),
                        frame(2, size, order, 0, ascii("x")));
                int header = 2 + size;
                Inputs.everySplit(() -> new LengthFieldBasedFrameDecoder(order, 64, 2, fieldLength, 0, header, true),
                        stream, (how, frames, errors) -> {
                            assertEquals(List.of("hello", "", "x"), strings(frames), order + " size " + fieldLength
                                    + ", " + how);
                            assertEquals(List.of(), errors, how);
                        });
            }
        }
    }

    @Test
    void lengthAdjustmentCountsTheHeaderAndNothingIsStripped() {
        // the field counts the whole frame (header of 3 + body): adjustment -3
        byte[] stream = concat(frame(1, 2, ByteOrder.BIG_ENDIAN, -3, ascii("abc")),
                frame(1, 2, ByteOrder.BIG_ENDIAN, -3, ascii("defg")));
        Inputs.everySplit(() -> new LengthFieldBasedFrameDecoder(ByteOrder.BIG_ENDIAN, 100, 1, 2, -3, 0, true),
                stream, (how, frames, errors) -> {
                    assertEquals(2, frames.size(), how);
                    assertArrayEquals(frame(1, 2, ByteOrder.BIG_ENDIAN, -3, ascii("abc")), frames.get(0), how);
                    assertArrayEquals(frame(1, 2, ByteOrder.BIG_ENDIAN, -3, ascii("defg")), frames.get(1), how);
                });
    }

    @Test
    void maximumIsInclusiveAndOneMoreIsDiscardedWithTheNextFrameIntact() {
        int max = 12; // header 4 + body 8
        byte[] atMax = frame(0, 4, ByteOrder.BIG_ENDIAN, 0, ascii("12345678"));
        byte[] overMax = frame(0, 4, ByteOrder.BIG_ENDIAN, 0, ascii("123456789"));
        byte[] underMax = frame(0, 4, ByteOrder.BIG_ENDIAN, 0, ascii("1234567"));
        byte[] stream = concat(atMax, overMax, underMax);
        for (boolean failFast : new boolean[] {true, false}) {
            Inputs.everySplit(() -> new LengthFieldBasedFrameDecoder(ByteOrder.BIG_ENDIAN, max, 0, 4, 0, 4, failFast),
                    stream, (how, frames, errors) -> {
                        assertEquals(List.of("12345678", "1234567"), strings(frames), how);
                        assertEquals(1, errors.size(), how);
                        TooLongFrameException e = assertInstanceOf(TooLongFrameException.class, errors.get(0));
                        assertEquals("frame of 13 bytes is longer than maxFrameLength 12; it was discarded",
                                e.getMessage());
                    });
        }
    }

    @Test
    void failFastReportsWhenTheLengthIsReadAndOtherwiseAfterTheFrame() {
        byte[] header = frame(0, 2, ByteOrder.BIG_ENDIAN, 0, new byte[0]);
        header[1] = 100; // announces 100 bytes, max is 10
        for (boolean failFast : new boolean[] {true, false}) {
            Inputs in = new Inputs();
            Inputs.Errors errors = new Inputs.Errors();
            EmbeddedChannel ch = new EmbeddedChannel(
                    new LengthFieldBasedFrameDecoder(ByteOrder.BIG_ENDIAN, 10, 0, 2, 0, 0, failFast), errors);
            in.write(ch, header);
            assertEquals(failFast ? 1 : 0, errors.seen.size(), "failFast " + failFast + " after the header");
            in.write(ch, new byte[99]);
            assertEquals(failFast ? 1 : 0, errors.seen.size(), "one byte of the frame is missing");
            in.write(ch, concat(new byte[1], frame(0, 2, ByteOrder.BIG_ENDIAN, 0, ascii("ok"))));
            assertEquals(1, errors.seen.size());
            assertEquals(List.of("\0\u0002ok"), strings(Inputs.drain(ch)));
            ch.finish();
            in.assertAllReleased();
        }
    }

    @Test
    void anEndlessFrameNeverMakesTheDecoderHoldMoreThanTheMaximum() {
        int max = 4096;
        int chunk = 1000;
        LengthFieldBasedFrameDecoder decoder = new LengthFieldBasedFrameDecoder(max, 0, 8);
        Inputs in = new Inputs();
        Inputs.Errors errors = new Inputs.Errors();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, errors);
        byte[] header = frame(0, 8, ByteOrder.BIG_ENDIAN, 0, new byte[0]);
        header[0] = 0x7f; // 2^62 and more: an endless frame
        in.write(ch, header);
        byte[] data = new byte[chunk];
        for (int i = 0; i < 10_000; i++) { // 10 MB
            in.write(ch, data);
            assertTrue(decoder.bufferedBytes() <= max + chunk, "holds " + decoder.bufferedBytes());
        }
        assertEquals(1, errors.seen.size());
        assertEquals(0, decoder.bufferedBytes());
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void aSlowFrameBelowTheMaximumIsHeldWhole() {
        LengthFieldBasedFrameDecoder decoder = new LengthFieldBasedFrameDecoder(1 << 20, 0, 4);
        Inputs in = new Inputs();
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        byte[] body = new byte[300_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31);
        }
        byte[] stream = frame(0, 4, ByteOrder.BIG_ENDIAN, 0, body);
        int[] cuts = new int[stream.length / 1500];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = (i + 1) * 1500;
        }
        in.write(ch, stream, cuts);
        List<byte[]> frames = Inputs.drain(ch);
        assertEquals(1, frames.size());
        assertArrayEquals(stream, frames.get(0));
        assertEquals(0, decoder.bufferedBytes());
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void endOfStreamInsideAFrameReleasesWhatWasHeldAndPassesNothingOn() {
        byte[] stream = frame(0, 2, ByteOrder.BIG_ENDIAN, 0, ascii("abcdef"));
        for (int cut = 1; cut < stream.length; cut++) {
            Inputs in = new Inputs();
            LengthFieldBasedFrameDecoder decoder = new LengthFieldBasedFrameDecoder(64, 0, 2);
            EmbeddedChannel ch = new EmbeddedChannel(decoder);
            in.write(ch, java.util.Arrays.copyOf(stream, cut));
            assertEquals(cut, decoder.bufferedBytes());
            ch.finish();
            assertEquals(List.of(), Inputs.drain(ch), "cut at " + cut);
            in.assertAllReleased();
        }
    }

    @Test
    void impossibleLengthsAreCorruptedFrames() {
        Inputs in = new Inputs();
        // 8-byte field with the top bit set: does not fit a long
        EmbeddedChannel ch = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(64, 0, 8));
        byte[] header = new byte[8];
        header[0] = (byte) 0x80;
        CorruptedFrameException e = assertThrows(CorruptedFrameException.class, () -> in.write(ch, header));
        assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
        ch.finish();
        // the adjusted length is shorter than the header
        EmbeddedChannel ch2 = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(ByteOrder.BIG_ENDIAN, 64, 0, 2,
                -5, 0, true));
        CorruptedFrameException e2 = assertThrows(CorruptedFrameException.class,
                () -> in.write(ch2, new byte[] {0, 1}));
        assertEquals("length field value 1 with lengthAdjustment -5 gives a frame of -2 bytes, shorter than its"
                + " 2-byte header", e2.getMessage());
        ch2.finish();
        in.assertAllReleased();
    }

    @Test
    void badParametersAreRefusedByName() {
        assertThrows(IllegalArgumentException.class, () -> new LengthFieldBasedFrameDecoder(64, 0, 9));
        assertThrows(IllegalArgumentException.class, () -> new LengthFieldBasedFrameDecoder(64, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new LengthFieldBasedFrameDecoder(0, 0, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new LengthFieldBasedFrameDecoder(4, 3, 2));
        assertEquals("maxFrameLength (4) must be at least lengthFieldOffset + lengthFieldLength (5)", e.getMessage());
    }

    @Test
    void prependerAndDecoderRoundTripEveryFieldSize() {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            for (int size = 1; size <= 8; size++) {
                EmbeddedChannel enc = new EmbeddedChannel(new LengthFieldPrepender(order, size, 0, false));
                Inputs in = new Inputs();
                Buffer msg = in.buffer(ascii("payload"), 0, 7);
                enc.writeOutbound(msg);
                Buffer one = enc.readOutbound();
                assertNull(enc.readOutbound(), "a small message goes out in the header's buffer");
                byte[] wire = one.toByteArray();
                one.release();
                assertArrayEquals(frame(0, size, order, 0, ascii("payload")), wire, order + " " + size);
                EmbeddedChannel dec = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(order, 64, 0, size, 0,
                        size, true));
                in.write(dec, wire);
                assertEquals(List.of("payload"), strings(Inputs.drain(dec)));
                enc.finish();
                dec.finish();
                in.assertAllReleased();
            }
        }
    }

    /**
     * Up to {@link LengthFieldPrepender#COPY_THRESHOLD} bytes the message is copied behind the header (one buffer,
     * one outbound entry); one byte more and it goes out as a second buffer, not copied. Either way the write's
     * promise completes once everything was written, and the message is released exactly once.
     */
    @Test
    void prependerCopiesSmallMessagesAndWritesLargeOnesAsASecondBuffer() {
        for (int size : new int[] {0, 1, LengthFieldPrepender.COPY_THRESHOLD, LengthFieldPrepender.COPY_THRESHOLD + 1,
                64 * 1024}) {
            EmbeddedChannel enc = new EmbeddedChannel(new LengthFieldPrepender(4));
            Inputs in = new Inputs();
            byte[] payload = new byte[size];
            for (int i = 0; i < size; i++) {
                payload[i] = (byte) i;
            }
            Buffer msg = in.buffer(payload, 0, size);
            var written = enc.writeAndFlush(msg);
            enc.runPendingTasks();
            assertTrue(written.isSuccess(), "promise of a " + size + "-byte message");
            List<Buffer> parts = new java.util.ArrayList<>();
            for (Buffer b = enc.readOutbound(); b != null; b = enc.readOutbound()) {
                parts.add(b);
            }
            assertEquals(size <= LengthFieldPrepender.COPY_THRESHOLD ? 1 : 2, parts.size(), size + " bytes");
            byte[] wire = new byte[0];
            for (Buffer b : parts) {
                wire = concat(wire, b.toByteArray());
                b.release();
            }
            assertArrayEquals(frame(0, 4, ByteOrder.BIG_ENDIAN, 0, payload), wire, size + " bytes");
            enc.finish();
            in.assertAllReleased();
        }
    }

    @Test
    void prependerFailsTheWriteWhenTheLengthDoesNotFit() {
        EmbeddedChannel enc = new EmbeddedChannel(new LengthFieldPrepender(1));
        Inputs in = new Inputs();
        Buffer big = in.buffer(new byte[256], 0, 256);
        EncoderException e = assertThrows(EncoderException.class, () -> enc.writeOutbound(big));
        assertEquals("length 256 does not fit a 1-byte length field (at most 255)", e.getMessage());
        enc.finish();
        in.assertAllReleased();
    }
}
