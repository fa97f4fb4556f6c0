package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The distribution's gateway with its interactive Gogo shell on a real pseudo-terminal made by {@code script(1)}:
 * types into the pty and collects what the pty shows. The pty gets its size from {@code stty} before the gateway
 * starts; after the gateway ended, the shell that ran it prints the pty's size again on a line
 * {@code size after: ROWS COLS}.
 */
final class PtyGateway implements AutoCloseable {

    /** The prompt of the Gogo shell. */
    static final String PROMPT = "g! ";
    /** Starts the line the pty's size is printed on after the gateway ended. */
    static final String SIZE_AFTER = "size after: ";

    final Process script;
    private final OutputStream keys;
    private final StringBuffer screen = new StringBuffer();

    /**
     * @param stty     {@code stty} arguments giving the pty its size, e.g. {@code rows 30 cols 100}
     * @param conf     the configuration directory
     * @param javaOpts {@code JAVA_OPTS}, or {@code null}
     */
    PtyGateway(String stty, Path conf, String javaOpts) throws IOException {
        Path scriptTool = Tools.require("script", "bsdutils");
        String gateway = GatewayProcess.distribution().resolve("bin/conduit-gateway").toString();
        ProcessBuilder pb = new ProcessBuilder(scriptTool.toString(), "-qfec",
                "stty " + stty + "; '" + gateway + "' --conf '" + conf + "'; rc=$?; echo \"" + SIZE_AFTER
                        + "$(stty size)\"; exit $rc", "/dev/null")
                .redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("TERM", "xterm");
        if (javaOpts != null) {
            pb.environment().put("JAVA_OPTS", javaOpts);
        }
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
        awaitText("a prompt", t -> t.indexOf(PROMPT, from) >= 0);
    }

    /**
     * Waits for the banner's {@code Ready:} line and the first prompt. The shell may show its prompt before the
     * launcher prints the banner (the banner waits for the configurations); then an empty line asks for a prompt
     * after the banner, so that what follows starts at a prompt.
     */
    PtyGateway awaitFirstPrompt() throws IOException, InterruptedException {
        awaitText("the banner", t -> t.contains("Ready: "));
        awaitText("the first prompt", t -> t.contains(PROMPT));
        String t = text();
        int ready = t.indexOf("Ready: ");
        if (t.indexOf(PROMPT, ready) < 0) {
            type("\r");
            awaitPromptAfter(ready);
        }
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
        Optional<ProcessHandle> jvm = script.toHandle().descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false)).findFirst();
        assertTrue(jvm.isPresent(), "the gateway JVM runs below script(1)");
        Duration before = jvm.get().info().totalCpuDuration().orElseThrow();
        Thread.sleep(window.toMillis());
        return jvm.get().info().totalCpuDuration().orElseThrow().minus(before);
    }

    /** @return the exit status of the gateway, once it and the shell around it ended (at most 30 s) */
    int awaitExit() throws InterruptedException {
        assertTrue(script.waitFor(30, TimeUnit.SECONDS), "the gateway ends; it shows:\n" + text());
        awaitText("the size after the gateway ended", t -> t.contains(SIZE_AFTER));
        return script.exitValue();
    }

    /** @return the pty's size after the gateway ended, as {@code stty size} prints it ({@code ROWS COLS}) */
    String sizeAfter() {
        String t = text();
        int at = t.lastIndexOf(SIZE_AFTER);
        if (at < 0) {
            return null;
        }
        int end = t.indexOf('\n', at);
        return t.substring(at + SIZE_AFTER.length(), end < 0 ? t.length() : end).strip();
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
