package io.conduit.handler.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.handler.LogCapture;
import org.junit.jupiter.api.Test;

class LoggingHandlerTest {

    @Test
    void logsEventsAndHexDumpsAtTheChosenLevelAndPassesEverythingOn() {
        try (LogCapture captured = new LogCapture("test.logging.handler")) {
            EmbeddedChannel ch = new EmbeddedChannel(new LoggingHandler(System.getLogger("test.logging.handler"),
                    System.Logger.Level.INFO, 20));
            Buffer in = BufferAllocator.unpooled().buffer(32);
            in.writeBytes("Hello, world!\r\n\0\u007fabcdefghijklm".getBytes(StandardCharsets.ISO_8859_1));
            ch.writeInbound(in);
            Buffer passed = ch.readInbound();
            assertEquals(in, passed, "the same buffer, untouched");
            assertEquals(0, passed.readerIndex());
            passed.release();
            ch.writeOutbound("text");
            ch.readOutbound();
            ch.finish();
            List<String> lines = new ArrayList<>();
            for (LogRecord r : captured.records()) {
                assertEquals(Level.INFO, r.getLevel());
                if (!r.getMessage().endsWith("READ REQUEST")) { // auto-read asks after ACTIVE and READ COMPLETE
                    lines.add(r.getMessage());
                }
            }
            String prefix = "[" + ch.id() + ", L:embedded - R:embedded] ";
            assertEquals(List.of(prefix + "REGISTERED", prefix + "ACTIVE"), lines.subList(0, 2));
            assertEquals(prefix + "READ: 30B" + System.lineSeparator()
                    + "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0d 0a 00  |Hello, world!...|"
                    + System.lineSeparator()
                    + "00000010  7f 61 62 63                                       |.abc|" + System.lineSeparator()
                    + "… 10 more bytes", lines.get(2));
            assertEquals(List.of(prefix + "READ COMPLETE", prefix + "WRITE: text", prefix + "FLUSH", prefix + "CLOSE",
                    prefix + "INACTIVE", prefix + "UNREGISTERED"), lines.subList(3, lines.size()));
        }
    }

    @Test
    void belowTheLevelNothingIsFormatted() {
        try (LogCapture captured = new LogCapture("test.logging.quiet")) {
            java.util.logging.Logger.getLogger("test.logging.quiet").setLevel(Level.WARNING); // restored on close
            EmbeddedChannel ch = new EmbeddedChannel(new LoggingHandler(System.getLogger("test.logging.quiet"),
                    System.Logger.Level.DEBUG, 64));
            ch.writeInbound("x");
            assertEquals("x", ch.readInbound());
            ch.finish();
            assertTrue(captured.records().isEmpty());
        }
    }
}
