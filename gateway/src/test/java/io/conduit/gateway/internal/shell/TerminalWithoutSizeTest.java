package io.conduit.gateway.internal.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.felix.service.command.CommandSession;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dumb terminal (what jline falls back to when it cannot reach the system terminal, e.g. under qemu) reports 0x0;
 * the jline 3.21 line reader then never shows its prompt. After the profile's command the shell's terminal has a
 * size and the reader reads lines.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TerminalWithoutSizeTest {

    private static CommandSession sessionWith(LineReader reader) {
        return (CommandSession) Proxy.newProxyInstance(TerminalWithoutSizeTest.class.getClassLoader(),
                new Class<?>[] {CommandSession.class}, (p, m, a) -> switch (m.getName()) {
                    case "get" -> ".reader".equals(a[0]) ? reader : null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void aDumbTerminalGetsEightyByTwentyFourAndItsReaderAnswers() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Terminal dumb = new DumbTerminal(new ByteArrayInputStream("exit 0\n".getBytes(StandardCharsets.UTF_8)), out);
        assertEquals(0, dumb.getSize().getColumns(), "jline's dumb terminal reports no size");
        LineReader reader = LineReaderBuilder.builder().terminal(dumb).build();

        new TerminalWithoutSize().afterCommand(sessionWith(reader));

        assertEquals(new Size(80, 24), dumb.getSize());
        String line = CompletableFuture.supplyAsync(() -> reader.readLine("g! ")).get(30, TimeUnit.SECONDS);
        assertEquals("exit 0", line);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("g! "), "the prompt was shown");
        dumb.close();
    }

    @Test
    void aTerminalWithASizeKeepsItAndOneMissingDimensionIsFilledIn() throws Exception {
        try (Terminal terminal = new DumbTerminal(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream())) {
            terminal.setSize(new Size(132, 50));
            assertFalse(TerminalWithoutSize.fix(terminal));
            assertEquals(new Size(132, 50), terminal.getSize());
            terminal.setSize(new Size(132, 0));
            assertTrue(TerminalWithoutSize.fix(terminal));
            assertEquals(new Size(132, 24), terminal.getSize());
        }
    }

    @Test
    void aSessionWithoutALineReaderIsLeftAlone() {
        new TerminalWithoutSize().afterCommand(sessionWith(null));
    }
}
