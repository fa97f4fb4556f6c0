package io.conduit.gateway.it;

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

/**
 * The distribution's gateway with its interactive Gogo shell on a real pseudo-terminal made by {@code script(1)}:
 * types into the pty and collects what the pty shows. The pty gets its size from {@code stty} before the gateway
 * starts; after the gateway ended, the shell that ran it writes the pty's size to a file of its own (not to the pty:
 * script(1) may end before the last output of its child has reached this process).
 * <p>
 * script(1) runs the command with {@code $SHELL -c}; this class sets {@code SHELL=/bin/sh}, so every machine runs the
 * same shell (dash on Debian; a CI runner may have no {@code SHELL} at all). A Ctrl-C typed into the pty sends
 * SIGINT to the whole foreground process group, that shell included, and a non-interactive dash that is waiting
 * for a command dies of it (exit 130) even though the gateway caught the signal; bash does not. The shell therefore
 * catches SIGINT with a no-op trap ({@code trap : INT}): a caught signal is reset to its default in the gateway by
 * exec(2), so the JVM and the shell's own Ctrl-C handling are unchanged. A signal that is ignored when a shell starts
 * cannot be trapped, and the gateway would inherit it ignored (a build started with {@code &} from a script ignores
 * SIGINT): script(1) therefore runs under {@code env --default-signal=INT}.
 */
final class PtyGateway implements AutoCloseable {

    /** The prompt of the Gogo shell. */
    static final String PROMPT = "g! ";
    final Process script;
    private final OutputStream keys;
    private final StringBuffer screen = new StringBuffer();
    private final Thread reader;
    /** Where the shell around the gateway writes {@code stty size} once the gateway ended. */
    private final Path sizeAfter;
    /** Where the shell around the gateway writes {@code stty -g} before the gateway starts and after it ended. */
    private final Path settings;

    /**
     * @param stty     {@code stty} arguments giving the pty its size, e.g. {@code rows 30 cols 100}
     * @param conf     the configuration directory
     * @param javaOpts {@code JAVA_OPTS}, or {@code null}
     */
    PtyGateway(String stty, Path conf, String javaOpts) throws IOException {
        this(stty, conf, javaOpts, "");
    }

    /**
     * @param stty     {@code stty} arguments giving the pty its size, e.g. {@code rows 30 cols 100}
     * @param conf     the configuration directory
     * @param javaOpts {@code JAVA_OPTS}, or {@code null}
     * @param redirect shell text after the gateway's command line, e.g. {@code 2>&1 | cat} (its output into a pipe,
     *                 standard input still the pty); the exit status is then that of the pipe's last command
     */
    PtyGateway(String stty, Path conf, String javaOpts, String redirect) throws IOException {
        Path scriptTool = Tools.require("script", "bsdutils");
        String gateway = GatewayProcess.distribution().resolve("bin/conduit-gateway").toString();
        sizeAfter = Files.createTempFile("conduit-pty-size", ".txt");
        Files.delete(sizeAfter); // written only once the gateway ended
        settings = Files.createTempFile("conduit-pty-settings", ".txt");
        ProcessBuilder pb = new ProcessBuilder("env", "--default-signal=INT", scriptTool.toString(), "-qfec",
                "trap : INT; stty " + stty + "; stty -g > '" + settings + "'; '" + gateway + "' --conf '" + conf
                        + "' " + redirect + "; rc=$?; stty -g >> '" + settings + "'; stty size > '" + sizeAfter
                        + ".part' && mv '" + sizeAfter + ".part' '" + sizeAfter + "'; exit $rc", "/dev/null")
                .redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("TERM", "xterm");
        pb.environment().put("SHELL", "/bin/sh");
        if (javaOpts != null) {
            pb.environment().put("JAVA_OPTS", javaOpts);
        }
        script = pb.start();
        keys = script.getOutputStream();
        reader = new Thread(() -> {
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

    /**
     * Waits at most 60 s for what the pty showed to meet {@code condition}; once script(1) ended, only until its
     * output is read to the end.
     */
    void awaitText(String what, Predicate<String> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.test(text())) {
            if (!script.isAlive()) {
                reader.join(TimeUnit.SECONDS.toMillis(10)); // what script wrote before it ended may still be unread
                if (condition.test(text())) {
                    return;
                }
            }
            if (System.nanoTime() - deadline > 0 || !script.isAlive()) {
                throw new AssertionError("not on the terminal within 60 s: " + what + "; it shows:\n" + text());
            }
            Thread.sleep(50);
        }
    }

    /** Waits for a prompt shown after position {@code from} of {@link #text()}. */
    void awaitPromptAfter(int from) throws InterruptedException {
        awaitText("a prompt", t -> t.indexOf(PROMPT, from) >= 0);
    }

    /** Waits for the banner's {@code Ready:} line and the first prompt, which follows it. */
    PtyGateway awaitFirstPrompt() throws InterruptedException {
        awaitText("the banner", t -> t.contains("Ready: "));
        awaitText("the first prompt after the banner", t -> t.indexOf(PROMPT, t.indexOf("Ready: ")) >= 0);
        return this;
    }

    void type(String s) throws IOException {
        keys.write(s.getBytes(StandardCharsets.UTF_8));
        keys.flush();
    }

    /**
     * Runs one shell command and waits for the next prompt.
     *
     * @return what the pty showed from the command's echo up to that prompt
     */
    String run(String command) throws IOException, InterruptedException {
        int from = text().length();
        type(command + "\r");
        awaitText("the echo of '" + command + "'", t -> t.indexOf('\n', from) >= 0);
        int output = text().indexOf('\n', from);
        awaitPromptAfter(output);
        String t = text();
        return t.substring(output, t.indexOf(PROMPT, output));
    }

    /** @return the JVM's CPU time over {@code window} (the java process below script) */
    Duration cpuOver(Duration window) throws InterruptedException {
        ProcessHandle jvm = jvm();
        Duration before = jvm.info().totalCpuDuration().orElseThrow();
        Thread.sleep(window.toMillis());
        return jvm.info().totalCpuDuration().orElseThrow().minus(before);
    }

    /** @return the exit status of the gateway, once it and the shell around it ended (at most 30 s) */
    int awaitExit() throws InterruptedException {
        assertTrue(script.waitFor(30, TimeUnit.SECONDS), "the gateway ends; it shows:\n" + text());
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return script.exitValue();
    }

    /**
     * @return the pty's size after the gateway ended, as {@code stty size} prints it ({@code ROWS COLS}), or
     *         {@code null} if the shell around the gateway did not write it
     */
    String sizeAfter() throws IOException {
        return Files.exists(sizeAfter) ? Files.readString(sizeAfter).strip() : null;
    }

    /**
     * @return the pty's settings ({@code stty -g}) before the gateway started and, once it ended, after it; one
     *         element while it runs
     */
    List<String> settings() throws IOException {
        return Files.readAllLines(settings).stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    /** @return the gateway's JVM (below script(1) and the shell around it) */
    ProcessHandle jvm() {
        Optional<ProcessHandle> jvm = script.toHandle().descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false)).findFirst();
        assertTrue(jvm.isPresent(), "the gateway JVM runs below script(1)");
        return jvm.get();
    }

    @Override
    public void close() throws InterruptedException, IOException {
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
        Files.deleteIfExists(sizeAfter);
        Files.deleteIfExists(Path.of(sizeAfter + ".part"));
        Files.deleteIfExists(settings);
    }
}
