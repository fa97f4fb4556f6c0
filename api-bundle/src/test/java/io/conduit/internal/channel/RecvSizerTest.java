package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RecvSizerTest {

    @Test
    void growsWhenAReadFillsTheBufferAndShrinksAfterTwoSmallOperations() {
        RecvSizer s = new RecvSizer();
        assertEquals(RecvSizer.INITIAL_BYTES, s.guess());
        s.record(2048, 2048);
        assertEquals(4096, s.guess());
        for (int i = 0; i < 10; i++) {
            s.record(s.guess(), s.guess());
        }
        assertEquals(RecvSizer.MAX_BYTES, s.guess(), "capped");
        s.readComplete(100);
        assertEquals(RecvSizer.MAX_BYTES, s.guess(), "one small operation is not enough");
        s.readComplete(100);
        assertEquals(RecvSizer.MAX_BYTES / 2, s.guess());
        for (int i = 0; i < 40; i++) {
            s.readComplete(0);
        }
        assertEquals(RecvSizer.MIN_BYTES, s.guess(), "floored");
    }

    @Test
    void aOneByteBufferDoesNotInflateTheGuess() {
        RecvSizer s = new RecvSizer();
        s.record(1, 1); // an allocator that hands out tiny buffers
        assertEquals(RecvSizer.INITIAL_BYTES, s.guess());
    }
}
