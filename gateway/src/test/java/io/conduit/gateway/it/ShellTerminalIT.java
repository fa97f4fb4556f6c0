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
 * status N and prints nothing else, and so does Gogo's {@code system:exit N}; the first prompt follows the banner;
 * SIGTERM after typed commands ends the shell at once and gives the terminal its settings back.
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

    /**
     * The shell starts after the banner, which waits for an echo configuration to report: with nothing typed, the
     * last thing on the terminal is the prompt, and no prompt comes before the banner's {@code Ready:} line.
     */
    @Test
    void theFirstPromptFollowsTheBanner() throws Exception {
        Files.createDirectories(conf);
        int port = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-t.cfg"), "listen = tcp://127.0.0.1:" + port + "\n");
        try (PtyGateway g = new PtyGateway("rows 30 cols 100", conf, null).awaitFirstPrompt()) {
            assertTrue(g.text().contains("Ready: 1 endpoint(s) listening"), g.text());
            Thread.sleep(500); // anything printed after the prompt would show now
            String t = g.text();
            int ready = t.indexOf("Ready: ");
            assertFalse(t.substring(0, ready).contains(PtyGateway.PROMPT), "no prompt before the banner:\n" + t);
            String afterPrompt = t.substring(t.lastIndexOf(PtyGateway.PROMPT) + PtyGateway.PROMPT.length());
            // Gogo's right prompt, the time, is drawn on the prompt's line
            assertTrue(afterPrompt.strip().matches("(\\d\\d:\\d\\d:\\d\\d)?"), "the prompt comes last:\n" + t);
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
        }
    }

    /**
     * The shell needs standard input to be a terminal, not standard output: {@code conduit-gateway 2>&1 | tee log}
     * got no shell, because the launcher asked {@code System.console()}, which is {@code null} on JDK 17 unless both
     * are a terminal. Here standard output and error go through a pipe to {@code cat}: the prompt comes, a command
     * runs, and {@code exit 0} ends the gateway.
     */
    @Test
    void theShellRunsWhenOnlyStandardOutputIsAPipe() throws Exception {
        Files.createDirectories(conf);
        try (PtyGateway g = new PtyGateway("rows 30 cols 100", conf, null, "2>&1 | cat").awaitFirstPrompt()) {
            assertTrue(g.text().contains("stop with 'exit 0' or Ctrl-D"), g.text());
            assertTrue(g.run("conduit:gateway").contains("no echo or relay configuration"), g.text());
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
        }
    }

    /**
     * SIGTERM after commands typed in the shell: the gateway ends at once with status 143, the shell's session ends
     * without {@code FAILED TO STOP EXECUTOR}, and the terminal has its settings back.
     */
    @Test
    void sigtermAfterTypedCommandsEndsTheShellAtOnceAndGivesTheTerminalItsSettingsBack() throws Exception {
        Files.createDirectories(conf);
        // endpoints to close make the framework's stop take a while: jline's own shutdown hook ran long before it
        Files.writeString(conf.resolve("io.conduit.gateway.echo-t.cfg"), "listen = tcp://127.0.0.1:"
                + Tools.freeTcpPort() + ", udp://127.0.0.1:" + Tools.freeUdpPort() + "\n");
        try (PtyGateway g = new PtyGateway("rows 30 cols 100", conf, null).awaitFirstPrompt()) {
            assertTrue(g.run("conduit:transports").contains("nio"), g.text());
            assertTrue(g.run("echo typed").contains("typed"), g.text());
            g.run("lb");
            Thread.sleep(1_000); // a user's pause: the shell sits in its line reader
            int signalled = g.text().length();
            long start = System.nanoTime();
            assertTrue(g.jvm().destroy(), "SIGTERM sent");
            int status = g.awaitExit();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("gateway shell: SIGTERM after typed commands ended the gateway in " + millis + " ms");
            assertEquals(143, status, g.text());
            String after = g.text().substring(signalled);
            assertFalse(after.contains("FAILED TO STOP"), g.text());
            assertFalse(after.contains("Exception"), "no exception on the way out:\n" + after);
            assertTrue(millis < 4_000, "ended in " + millis + " ms:\n" + g.text());
            java.util.List<String> settings = g.settings();
            assertEquals(2, settings.size(), settings.toString());
            assertEquals(settings.get(0), settings.get(1), "the terminal's settings (stty -g) are back");
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
