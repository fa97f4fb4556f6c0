package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code conduit-gateway --shell} with standard input on a pipe reads it as a script, like Karaf's {@code bin/client}
 * or {@code sh} reading a pipe: the lines run in order; {@code exit N} ends the gateway at once with status N, without
 * waiting for the end of the input and without running a later line; the end of the input ends it with status 0;
 * jline makes its dumb terminal without a WARNING.
 *
 * <p>The story: a first user's {@code printf 'conduit:status\nexit 3\n' | conduit-gateway --shell} exited with 0 and
 * printed {@code WARNING org.jline: Unable to create a system terminal, creating a dumb terminal}. The gateway's
 * {@code exit} waited for the shell to be back at its prompt before it handed the status to the launcher (right for a
 * terminal, where the prompt follows at once); on a pipe the shell read on instead: it ran the lines after
 * {@code exit}, and at the end of the input its session ended and stopped the framework before the status was handed
 * over. Each run here keeps the pipe open after the script, so a gateway that waited for the end of the input would
 * not exit at all.
 *
 * <p>A later trial found more: {@code printf 'exit 4'} (no line end) ended with 0; {@code exit 3; conduit:status}
 * ran {@code conduit:status}; {@code exit foo} printed an IllegalArgumentException and the script went on;
 * {@code -Dorg.jline.terminal.dumb=false} made the gateway hang; prompts padded with spaces and a clock came between
 * the outputs. The launcher now gives the shell a terminal of its own on a script ({@code ScriptTerminal}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ShellScriptIT {

    @TempDir
    Path home;
    private Path conf;

    @BeforeEach
    void home() throws IOException {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        conf = Files.createDirectories(home.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.echo-script.cfg"),
                "listen = tcp://127.0.0.1:" + Tools.freeTcpPort() + "\n");
    }

    @Test
    void exitAloneEndsTheGatewayAtOnceWithItsStatus() throws Exception {
        Run run = run("exit 3\necho after-exit\n", true);
        assertEquals(3, run.status(), run.output());
        assertFalse(run.output().contains("after-exit"), "no line after exit runs:\n" + run.output());
        assertNoWarning(run);
    }

    @Test
    void exitAfterAnotherCommandKeepsItsStatus() throws Exception {
        Run run = run("conduit:gateway\nexit 3\necho after-exit\n", true);
        assertEquals(3, run.status(), run.output());
        assertTrue(run.output().contains("1 configuration: 1 running"), "conduit:gateway ran first:\n" + run.output());
        assertFalse(run.output().contains("after-exit"), run.output());
        assertNoWarning(run);
    }

    @Test
    void exitAsTheLastLineBeforeTheEndOfTheInputKeepsItsStatus() throws Exception {
        Run run = run("conduit:gateway\nexit 3\n", false);
        assertEquals(3, run.status(), run.output());
        assertNoWarning(run);
    }

    @Test
    void theEndOfTheInputEndsTheGatewayWithStatus0() throws Exception {
        Run run = run("conduit:gateway\n", false);
        assertEquals(0, run.status(), run.output());
        assertTrue(run.output().contains("1 configuration: 1 running"), run.output());
        assertNoWarning(run);
    }

    /** {@code printf 'exit 4'}: a last line without a line end runs too (it ended with status 0). */
    @Test
    void aLastLineWithoutALineEndRuns() throws Exception {
        Run run = run("conduit:gateway\nexit 4", false);
        assertEquals(4, run.status(), run.output());
        assertNoWarning(run);
    }

    /** {@code exit 3; echo after-exit} on one line: exit ends the line too (the rest of it ran). */
    @Test
    void exitEndsTheRestOfItsLine() throws Exception {
        Run run = run("exit 3; echo after-exit\necho next-line\n", true);
        assertEquals(3, run.status(), run.output());
        // jline echoes the line read ("exit 3; echo after-exit"); no line is echo's output
        List<String> lines = run.output().lines().map(l -> l.replace("\r", "")).toList();
        assertFalse(lines.contains("after-exit"), "nothing after exit runs:\n" + run.output());
        assertFalse(run.output().contains("next-line"), run.output());
        assertFalse(run.output().contains("the script ends here"), "what ends the line is not shown:\n"
                + run.output());
        assertNoWarning(run);
    }

    /**
     * {@code exit foo}: one line, and the script ends with status 2 as a POSIX shell's does (it printed Gogo's
     * IllegalArgumentException, went on with the script and ended with 0).
     */
    @Test
    void aBadExitArgumentIsOneLineAndEndsTheScriptWithStatus2() throws Exception {
        Run run = run("exit foo\necho after-exit\n", true, "", true);
        assertEquals(2, run.status(), run.output() + run.errors());
        // on standard error, as a POSIX shell's script says why it ends (it went to standard output)
        assertEquals("exit: 'foo' is not a number from 0 to 255\n", run.errors(), run.output());
        assertFalse(run.output().contains("is not a number"), run.output());
        assertFalse(run.output().contains("Exception"), run.output());
        assertFalse(run.output().contains("after-exit"), run.output());
    }

    /** The Ready line of a script says nothing about stopping: the script's end or its exit stops the gateway. */
    @Test
    void theReadyLineOfAScriptSaysNothingAboutStopping() throws Exception {
        Run run = run("exit 0\n", true);
        assertEquals(0, run.status(), run.output());
        String ready = run.output().lines().filter(l -> l.startsWith("Ready:")).findFirst().orElseThrow();
        assertTrue(ready.endsWith("; configuration in " + conf), ready);
    }

    /** {@code -Dorg.jline.terminal.dumb=false}: the launcher chooses the script's terminal (the gateway hung). */
    @Test
    void jlinesDumbPropertyDoesNotDecideTheScriptsTerminal() throws Exception {
        Run run = run("conduit:gateway\nexit 5\n", true, "-Dorg.jline.terminal.dumb=false");
        assertEquals(5, run.status(), run.output());
        assertTrue(run.output().contains("1 configuration: 1 running"), run.output());
        assertNoWarning(run);
    }

    /**
     * A script prints no prompt and no greeting: after the banner come jline's echo of each line and the commands'
     * output (prompts padded with spaces, and Gogo's clock on the right, came between them).
     */
    @Test
    void aScriptPrintsNoPromptNorGreeting() throws Exception {
        Run run = run("echo one\necho two\n", false);
        assertEquals(0, run.status(), run.output());
        String out = run.output();
        List<String> after = out.substring(out.indexOf('\n', out.indexOf("Ready:")) + 1).lines()
                .map(l -> l.replace("\r", "")).toList();
        assertEquals(List.of("echo one", "one", "echo two", "two"), after, out);
    }

    private static void assertNoWarning(Run run) {
        List<String> bad = run.output().lines()
                .filter(l -> l.contains("WARNING") || l.toLowerCase(java.util.Locale.ROOT).contains("dumb terminal"))
                .toList();
        assertEquals(List.of(), bad, run.output());
    }

    /**
     * How a run ended: its exit status, everything it printed (standard output, and error unless kept apart), and
     * what it printed on standard error when kept apart (empty otherwise).
     */
    private record Run(int status, String output, String errors) {
    }

    /**
     * Runs {@code bin/conduit-gateway --shell} with {@code script} on its standard input (a pipe).
     *
     * @param keepOpen whether the pipe stays open after the script until the gateway has exited
     */
    private Run run(String script, boolean keepOpen) throws Exception {
        return run(script, keepOpen, "");
    }

    /** Like {@link #run(String, boolean)} with more {@code JAVA_OPTS}. */
    private Run run(String script, boolean keepOpen, String javaOpts) throws Exception {
        return run(script, keepOpen, javaOpts, false);
    }

    /** Like {@link #run(String, boolean, String)}; {@code separateErrors}: standard error kept apart. */
    private Run run(String script, boolean keepOpen, String javaOpts, boolean separateErrors) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(GatewayProcess.distribution().resolve("bin/conduit-gateway").toString(),
                "--shell", "--conf", conf.toString()).redirectErrorStream(!separateErrors);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JAVA_OPTS", "-Dconduit.gateway.home=" + home + " " + javaOpts);
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException gone) {
                // the process is gone
            }
        }, "gateway-output");
        reader.start();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread errorReader = new Thread(() -> {
            try {
                p.getErrorStream().transferTo(err);
            } catch (IOException gone) {
                // the process is gone
            }
        }, "gateway-errors");
        errorReader.start();
        OutputStream in = p.getOutputStream();
        try {
            in.write(script.getBytes(StandardCharsets.UTF_8));
            in.flush();
            if (!keepOpen) {
                in.close();
            }
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                reader.join(10_000);
                throw new AssertionError("the gateway did not exit within 90 s of its script " + script.strip()
                        .replace('\n', ';') + (keepOpen ? " (input left open)" : "") + "; output:\n" + text(out));
            }
        } finally {
            try {
                in.close();
            } catch (IOException alreadyGone) {
                // the gateway has exited
            }
        }
        reader.join(10_000);
        errorReader.join(10_000);
        return new Run(p.exitValue(), text(out), text(err));
    }

    private static String text(ByteArrayOutputStream out) {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
