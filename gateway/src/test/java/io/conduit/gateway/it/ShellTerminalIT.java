package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interactive Gogo shell of the distribution on a real pseudo-terminal ({@link PtyGateway}), with an empty
 * configuration directory so nothing listens: a 0x0 terminal gets a usable size, the shell does not spin, and
 * {@code exit 0} gives the terminal its old size back; a normal terminal is left alone; Ctrl-C at an empty prompt
 * prints how to stop the gateway, Ctrl-C after typing something does not; {@code exit N} stops the gateway with
 * status N and prints nothing else, and so does Gogo's {@code system:exit N}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShellTerminalIT {

    private static final String RESIZED = "the terminal reports a size of 0x0; using 80x24 for the shell";
    private static final String HINT = "to stop the gateway type 'exit 0' or press Ctrl-D";

    @TempDir
    Path conf;

    @Test
    void aZeroByZeroTerminalGetsAUsableSizeTheShellStaysIdleAndExitGivesTheSizeBack() throws Exception {
        Files.createDirectories(conf);
        try (PtyGateway g = new PtyGateway("rows 0 cols 0", conf, null).awaitFirstPrompt()) {
            assertTrue(g.text().contains("Ready: 0 endpoint(s) listening"), g.text());
            Duration cpu = g.cpuOver(Duration.ofSeconds(3));
            System.out.println("gateway shell on a 0x0 pty: " + cpu.toMillis() + " ms of CPU in 3 s");
            assertTrue(cpu.toMillis() < 1500, "the shell does not spin: " + cpu.toMillis() + " ms of CPU in 3 s");
            assertTrue(g.text().contains(RESIZED), g.text());
            int typed = g.text().length();
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
            String after = g.text().substring(typed);
            assertFalse(after.contains("Exception"), "exit 0 prints no exception:\n" + after);
            assertEquals("0 0", g.sizeAfter(), "exit 0 gives the terminal its size of 0x0 back:\n" + g.text());
        }
    }

    @Test
    void ctrlCAtAnEmptyPromptTellsHowToStopAndANormalTerminalIsLeftAlone() throws Exception {
        Files.createDirectories(conf);
        try (PtyGateway g = new PtyGateway("rows 30 cols 100", conf, null).awaitFirstPrompt()) {
            assertFalse(g.text().contains(HINT), "no hint before any Ctrl-C:\n" + g.text());
            g.type("\u0003"); // Ctrl-C at the empty prompt
            g.awaitText("the hint", t -> t.contains(HINT));
            g.awaitPromptAfter(g.text().indexOf(HINT)); // the hint comes first, then a new prompt
            int hints = count(g.text(), HINT);
            int typed = g.text().length();
            g.type("conduit:tr");
            g.awaitText("the typed text", t -> t.indexOf("tr", typed) >= 0); // read by the shell, not just queued
            int interrupted = g.text().length();
            g.type("\u0003"); // Ctrl-C with something typed: the line is dropped, no hint
            g.awaitPromptAfter(interrupted);
            assertTrue(g.run("echo still-running").contains("\nstill-running"), g.text());
            assertEquals(hints, count(g.text(), HINT), "a hint only after Ctrl-C at an empty prompt:\n" + g.text());
            assertFalse(g.text().contains("the terminal reports a size"), "a sized terminal is left alone");
            int exit = g.text().length();
            g.type("exit 3\r");
            assertEquals(3, g.awaitExit(), "exit N ends the gateway with status N:\n" + g.text());
            assertFalse(g.text().substring(exit).contains("Exception"), g.text());
            assertEquals("30 100", g.sizeAfter(), g.text());
        }
    }

    @Test
    void gogosSystemExitStopsTheGatewayAsExitDoes() throws Exception {
        Files.createDirectories(conf);
        try (PtyGateway g = new PtyGateway("rows 30 cols 100", conf, null).awaitFirstPrompt()) {
            int typed = g.text().length();
            g.type("system:exit 4\r"); // the name 'help' lists for Gogo's System.exit
            assertEquals(4, g.awaitExit(), "system:exit N ends the gateway with status N:\n" + g.text());
            String after = g.text().substring(typed);
            assertFalse(after.contains("Exception"), "no InterruptedException:\n" + after);
            assertEquals("30 100", g.sizeAfter(), g.text());
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
