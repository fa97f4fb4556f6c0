package io.conduit.handler.codec;

import static io.conduit.handler.codec.Inputs.ascii;
import static io.conduit.handler.codec.Inputs.strings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.conduit.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Line-based, delimiter-based and fixed-length frame decoders on adversarial input. */
@Timeout(60)
class DelimiterFrameDecodersTest {

    @Test
    void linesEndInLfOrCrlfAndABareCrIsPartOfTheLine() {
        byte[] stream = ascii("one\r\ntwo\nthr\ree\n\nlast-without-end");
        Inputs.everySplit(() -> new LineBasedFrameDecoder(64), stream, (how, frames, errors) -> {
            assertEquals(List.of("one", "two", "thr\ree", ""), strings(frames), how);
            assertEquals(List.of(), errors, how);
        });
        Inputs.everySplit(() -> new LineBasedFrameDecoder(64, false, true), stream, (how, frames, errors) ->
                assertEquals(List.of("one\r\n", "two\n", "thr\ree\n", "\n"), strings(frames), how));
    }

    @Test
    void lineMaximumIsInclusiveEvenWhenTheCrArrivesBeforeTheLf() {
        // max 5: "12345\r\n" fits, "123456\n" does not; the next line is intact
        byte[] stream = ascii("12345\r\n123456\nabc\n123456\r\nz\n");
        for (boolean failFast : new boolean[] {true, false}) {
            Inputs.everySplit(() -> new LineBasedFrameDecoder(5, true, failFast), stream, (how, frames, errors) -> {
                assertEquals(List.of("12345", "abc", "z"), strings(frames), how + " failFast " + failFast);
                assertEquals(2, errors.size(), how);
                errors.forEach(e -> assertInstanceOf(TooLongFrameException.class, e));
            });
        }
    }

    @Test
    void failFastReportsWhenTheMaximumIsPassedAndOtherwiseAtTheDelimiter() {
        for (boolean failFast : new boolean[] {true, false}) {
            Inputs in = new Inputs();
            Inputs.Errors errors = new Inputs.Errors();
            EmbeddedChannel ch = new EmbeddedChannel(new LineBasedFrameDecoder(4, true, failFast), errors);
            in.write(ch, ascii("abcdef"));
            assertEquals(failFast ? 1 : 0, errors.seen.size());
            in.write(ch, ascii("gh\nok\n"));
            assertEquals(1, errors.seen.size());
            assertEquals(List.of("ok"), strings(Inputs.drain(ch)));
            String message = errors.seen.get(0).getMessage();
            assertEquals(failFast ? "frame of at least 5 bytes is longer than maxFrameLength 4; it was discarded"
                    : "frame of 9 bytes is longer than maxFrameLength 4; it was discarded", message);
            ch.finish();
            in.assertAllReleased();
        }
    }

    @Test
    void anEndlessLineNeverMakesTheDecoderHoldMoreThanTheMaximum() {
        int max = 2048;
        int chunk = 700;
        LineBasedFrameDecoder decoder = new LineBasedFrameDecoder(max);
        Inputs in = new Inputs();
        Inputs.Errors errors = new Inputs.Errors();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, errors);
        byte[] data = new byte[chunk];
        java.util.Arrays.fill(data, (byte) 'x');
        data[chunk - 1] = '\r'; // a CR at the end of every read: kept, since an LF may follow
        for (int i = 0; i < 10_000; i++) {
            in.write(ch, data);
            assertTrue(decoder.bufferedBytes() <= max + 1 + chunk, "holds " + decoder.bufferedBytes());
        }
        in.write(ch, ascii("\nnext\n"));
        assertEquals(List.of("next"), strings(Inputs.drain(ch)));
        assertEquals(1, errors.seen.size());
        ch.finish();
        in.assertAllReleased();
    }

    @Test
    void multiByteDelimitersSplitAcrossReadsAndTheShortestFrameWins() {
        byte[] stream = ascii("a<END>bb<E<END>||c||<END>");
        Inputs.everySplit(() -> new DelimiterBasedFrameDecoder(16, ascii("<END>"), ascii("||")), stream,
                (how, frames, errors) -> assertEquals(List.of("a", "bb<E", "", "c", ""), strings(frames), how));
    }

    @Test
    void delimiterMaximumPlusMinusOne() {
        // max 3 with delimiter "##": "abc" fits, "abcd" is discarded, "a#b" (a partial delimiter inside) fits
        byte[] stream = ascii("abc##abcd##a#b##x");
        Inputs.everySplit(() -> new DelimiterBasedFrameDecoder(3, ascii("##")), stream, (how, frames, errors) -> {
            assertEquals(List.of("abc", "a#b"), strings(frames), how);
            assertEquals(1, errors.size(), how);
        });
    }

    @Test
    void endOfStreamInsideALineReleasesItAndPassesNothingOn() {
        Inputs in = new Inputs();
        LineBasedFrameDecoder decoder = new LineBasedFrameDecoder(16);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        in.write(ch, ascii("partial\r"));
        assertEquals(8, decoder.bufferedBytes());
        ch.finish();
        assertEquals(List.of(), Inputs.drain(ch));
        in.assertAllReleased();
    }

    @Test
    void fixedLengthFramesAtEveryCut() {
        byte[] stream = ascii("abcdefghij12");
        Inputs.everySplit(() -> new FixedLengthFrameDecoder(5), stream, (how, frames, errors) ->
                assertEquals(List.of("abcde", "fghij"), strings(frames), how));
        assertThrows(IllegalArgumentException.class, () -> new FixedLengthFrameDecoder(0));
    }

    @Test
    void badDelimitersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new DelimiterBasedFrameDecoder(8));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DelimiterBasedFrameDecoder(8, ascii("x"), new byte[0]));
        assertEquals("delimiters[1] is empty", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LineBasedFrameDecoder(0));
    }
}
