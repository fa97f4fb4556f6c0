package io.conduit.gateway.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The gateway distribution ({@code bin/conduit-gateway --no-shell}) run as a child process, for the real-client tests:
 * waits for the banner's {@code Ready:} line, keeps the output for failure messages, stops the process (SIGTERM,
 * then forcibly after 10 s) on {@link #close()}.
 */
final class GatewayProcess implements AutoCloseable {

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CountDownLatch ready = new CountDownLatch(1);
    private final Thread reader;

    private GatewayProcess(Process process) {
        this.process = process;
        reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.append(line).append('\n');
                    if (line.startsWith("Ready:")) {
                        ready.countDown();
                    }
                }
            } catch (IOException ignored) {
                // process gone
            } finally {
                ready.countDown();
            }
        }, "gateway-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** The assembled distribution directory (set by the build; {@code target/conduit-gateway-<version>}). */
    static Path distribution() {
        String d = System.getProperty("conduit.gateway.dist");
        if (d == null) {
            throw new IllegalStateException("system property conduit.gateway.dist is not set: run through Maven "
                    + "(mvn -pl gateway verify), which assembles the distribution first");
        }
        Path p = Path.of(d);
        if (!Files.isExecutable(p.resolve("bin/conduit-gateway"))) {
            throw new IllegalStateException(p + "/bin/conduit-gateway is missing: the distribution was not assembled");
        }
        return p;
    }

    /**
     * Starts the gateway and waits (at most 60 s) for its banner.
     *
     * @param conf configuration directory, or {@code null} for the distribution's default {@code conf/}
     */
    static GatewayProcess start(Path conf) throws IOException, InterruptedException {
        return start(conf, null);
    }

    /**
     * Like {@link #start(Path)} with {@code JAVA_OPTS}.
     *
     * @param javaOpts the value of {@code JAVA_OPTS}, or {@code null}
     */
    static GatewayProcess start(Path conf, String javaOpts) throws IOException, InterruptedException {
        Path dist = distribution();
        if (conf == null) {
            requireDefaultPortFree();
        }
        List<String> cmd = new ArrayList<>(List.of(dist.resolve("bin/conduit-gateway").toString(), "--no-shell"));
        if (conf != null) {
            cmd.add("--conf");
            cmd.add(conf.toString());
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        if (javaOpts != null) {
            pb.environment().put("JAVA_OPTS", javaOpts);
        }
        GatewayProcess g = new GatewayProcess(pb.start());
        if (!g.ready.await(60, TimeUnit.SECONDS) || !g.process.isAlive()) {
            String out = g.output();
            g.close();
            throw new IllegalStateException("gateway did not print its banner within 60 s; output:\n" + out);
        }
        return g;
    }

    /**
     * Starts {@code home/bin/conduit-gateway --no-shell} with another JVM and waits for its banner.
     *
     * @param home a distribution directory (a copy of {@link #distribution()}, say)
     * @param javaHome the {@code JAVA_HOME} the script runs {@code bin/java} of
     * @param bannerSeconds how long to wait for the banner, in seconds
     */
    static GatewayProcess start(Path home, Path javaHome, long bannerSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/conduit-gateway").toString(), "--no-shell")
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().remove("JAVA_OPTS");
        GatewayProcess g = new GatewayProcess(pb.start());
        if (!g.ready.await(bannerSeconds, TimeUnit.SECONDS) || !g.process.isAlive()) {
            String out = g.output();
            g.close();
            throw new IllegalStateException("gateway in " + home + " on " + javaHome + " did not print its banner "
                    + "within " + bannerSeconds + " s; output:\n" + out);
        }
        return g;
    }

    /** The port of the distribution's default configuration ({@code conf/io.conduit.gateway.echo-default.cfg}). */
    static final int DEFAULT_PORT = 7007;
    /** The port of the default metrics endpoint ({@code conf/io.conduit.gateway.metrics.cfg}). */
    static final int DEFAULT_METRICS_PORT = 9464;

    /**
     * Fails at once, saying what to do, when another process (e.g. a gateway started by hand) listens on a TCP port of
     * the distribution's default configuration: the tests of the default configuration need them.
     */
    static void requireDefaultPortFree() throws IOException {
        for (int port : new int[] {DEFAULT_PORT, DEFAULT_METRICS_PORT}) {
            try (ServerSocket probe = new ServerSocket()) {
                probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (BindException inUse) {
                throw new IllegalStateException("127.0.0.1:" + port + ", a port of the distribution's default "
                        + "configuration, is in use by another process (a gateway started by hand?): stop it (see "
                        + "`ss -ltnp 'sport = :" + port + "'`) and run the tests again", inUse);
            }
        }
    }

    /**
     * Runs the gateway with {@code JAVA_OPTS} until it exits by itself (at most 60 s, then it is killed).
     *
     * @param javaOpts the value of {@code JAVA_OPTS}, e.g. {@code -Dconduit.transport=bogus}
     * @return the exit status and everything it printed (standard output and error)
     */
    static Exit runToExit(String javaOpts) throws IOException, InterruptedException {
        Path dist = distribution();
        ProcessBuilder pb = new ProcessBuilder(dist.resolve("bin/conduit-gateway").toString(), "--no-shell")
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JAVA_OPTS", javaOpts);
        GatewayProcess g = new GatewayProcess(pb.start());
        if (!g.process.waitFor(60, TimeUnit.SECONDS)) {
            g.close();
            throw new IllegalStateException("gateway with JAVA_OPTS=" + javaOpts + " did not exit within 60 s; "
                    + "output:\n" + g.output());
        }
        g.ready.await(10, TimeUnit.SECONDS); // the output reader has seen the end of the stream
        return new Exit(g.process.exitValue(), g.output());
    }

    /**
     * Stops the gateway with SIGTERM (as a service manager does) and waits at most 30 s for it to exit.
     *
     * @return its exit status (143 for SIGTERM) and everything it printed, to the end
     */
    Exit terminate() throws InterruptedException {
        // SIGTERM through the handle: Process.destroy() also closes this side's pipes, which would lose what the
        // gateway prints while it stops
        process.toHandle().destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            close();
            throw new IllegalStateException("gateway did not stop within 30 s of SIGTERM; output:\n" + output());
        }
        reader.join(10_000);
        return new Exit(process.exitValue(), output());
    }

    /** How a gateway run ended: its exit status and output. */
    record Exit(int status, String output) {
    }

    String output() {
        return output.toString();
    }

    /** @return the process id of the gateway's JVM (the script {@code exec}s it) */
    long pid() {
        return process.pid();
    }

    /** Kills the gateway with SIGKILL, as a crash would end it, and waits at most 30 s for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gateway " + process.pid() + " still runs 30 s after SIGKILL");
        }
        reader.join(10_000);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
