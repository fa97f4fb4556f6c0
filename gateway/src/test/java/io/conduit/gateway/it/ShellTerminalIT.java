package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interactive Gogo shell of the distribution on a real pseudo-terminal ({@code script(1)} makes one; the test
 * sets its size with {@code stty} first), with an empty configuration directory so nothing listens: a 0x0 terminal
 * gets a usable size and the shell does not spin; a normal terminal is left alone; Ctrl-C at an empty prompt prints
 * how to stop the gateway, Ctrl-C after typing something does not; {@code exit 0} stops the gateway.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShellTerminalIT {

    private static final String RESIZED = "the terminal reports a size of 0x0; using 80x24 for the shell";
    private static final String HINT = "to stop the gateway type 'exit 0' or press Ctrl-D";

    @TempDir
    Path conf;

    /** The gateway under {@code script(1)}: types into the pty, collects what the pty shows. */
    private static final class PtyGateway implements AutoCloseable {
        final Process script;
        final OutputStream keys;
        final StringBuffer screen = new StringBuffer();

        PtyGateway(String stty, Path conf) throws IOException {
            Path scriptTool = Tools.require("script", "bsdutils");
            String gateway = GatewayProcess.distribution().resolve("bin/conduit-gateway").toString();
            ProcessBuilder pb = new ProcessBuilder(scriptTool.toString(), "-qfec",
                    "stty " + stty + "; exec '" + gateway + "' --conf '" + conf + "'", "/dev/null")
                    .redirectErrorStream(true);
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
            pb.environment().put("TERM", "xterm");
            script = pb.start();
            keys = script.getOutputStream();
            Thread reader = new Thread(() -> {
                byte[] b = new byte[4096];
                try (InputStream in = script.getInputStream()) {
                    int n;
                    while ((n = in.read(b)) > 0) {
                        screen.append(new String(b, 0, n, StandardCharsets.UTF_8));
                    }
                } catch (IOException ignored) {
                    // script ended
                }
            }, "pty-screen");
            reader.setDaemon(true);
            reader.start();
        }

        /** @return what the pty showed, without terminal control sequences */
        String text() {
            return screen.toString().replaceAll("\u001B\\[[0-9;?]*[a-zA-Z]", "").replaceAll("\u001B[=>]", "")
                    .replace("\r", "");
        }

        void awaitText(String what, Predicate<String> condition) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!condition.test(text())) {
                if (System.nanoTime() - deadline > 0 || !script.isAlive() && !condition.test(text())) {
                    throw new AssertionError("not on the terminal within 60 s: " + what + "; it shows:\n" + text());
                }
                Thread.sleep(50);
            }
        }

        /** Waits for a prompt shown after position {@code from} of {@link #text()}. */
        void awaitPromptAfter(int from) throws InterruptedException {
            awaitText("a prompt", t -> t.indexOf("g! ", from) >= 0);
        }

        /** Waits for the banner (nothing listens) and the first prompt. */
        PtyGateway awaitFirstPrompt() throws InterruptedException {
            awaitText("the banner", t -> t.contains("Ready: 0 endpoint(s) listening"));
            awaitText("the first prompt", t -> t.contains("g! "));
            return this;
        }

        void type(String s) throws IOException {
            keys.write(s.getBytes(StandardCharsets.UTF_8));
            keys.flush();
        }

        /** @return the JVM's CPU time over {@code window} (the java process below script) */
        Duration cpuOver(Duration window) throws InterruptedException {
            Optional<ProcessHandle> jvm = script.toHandle().descendants()
                    .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false)).findFirst();
            assertTrue(jvm.isPresent(), "the gateway JVM runs below script(1)");
            Duration before = jvm.get().info().totalCpuDuration().orElseThrow();
            Thread.sleep(window.toMillis());
            return jvm.get().info().totalCpuDuration().orElseThrow().minus(before);
        }

        int awaitExit() throws InterruptedException {
            assertTrue(script.waitFor(30, TimeUnit.SECONDS), "the gateway ends after 'exit 0'; it shows:\n" + text());
            return script.exitValue();
        }

        @Override
        public void close() throws InterruptedException {
            List<ProcessHandle> below = script.toHandle().descendants().toList();
            script.destroy();
            if (!script.waitFor(10, TimeUnit.SECONDS)) {
                script.destroyForcibly();
            }
            for (ProcessHandle p : below) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }
    }

    @Test
    void aZeroByZeroTerminalGetsAUsableSizeAndTheShellStaysIdle() throws Exception {
        Files.createDirectories(conf);
        try (PtyGateway g = new PtyGateway("rows 0 cols 0", conf).awaitFirstPrompt()) {
            Duration cpu = g.cpuOver(Duration.ofSeconds(3));
            System.out.println("gateway shell on a 0x0 pty: " + cpu.toMillis() + " ms of CPU in 3 s");
            assertTrue(cpu.toMillis() < 1500, "the shell does not spin: " + cpu.toMillis() + " ms of CPU in 3 s");
            assertTrue(g.text().contains(RESIZED), g.text());
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
        }
    }

    @Test
    void ctrlCAtAnEmptyPromptTellsHowToStopAndANormalTerminalIsLeftAlone() throws Exception {
        Files.createDirectories(conf);
        try (PtyGateway g = new PtyGateway("rows 30 cols 100", conf).awaitFirstPrompt()) {
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
            g.type("echo still-running\r");
            g.awaitText("the shell still runs commands", t -> t.contains("\nstill-running"));
            assertEquals(hints, count(g.text(), HINT), "a hint only after Ctrl-C at an empty prompt:\n" + g.text());
            assertFalse(g.text().contains("the terminal reports a size"), "a sized terminal is left alone");
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
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
