package io.conduit.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Talks to one {@link TlsLoadClient} JVM over its standard input and output. */
final class TlsClient {
    private final Process process;
    private final LineReader lines;
    private final OutputStream control;
    private final ChildProcesses children;
    private final Path log;

    private TlsClient(Process process, ChildProcesses children, Path log) {
        this.process = process;
        this.lines = new LineReader(process);
        this.control = process.getOutputStream();
        this.children = children;
        this.log = log;
    }

    /**
     * Starts a {@link TlsLoadClient} JVM of {@code javaHome} on {@code classpath}; its standard error goes to
     * {@code out/tls-client.log}.
     */
    static TlsClient start(ChildProcesses children, Path javaHome, String classpath, Path out) throws IOException {
        List<String> command = List.of(javaHome.resolve("bin/java").toString(), "-Xms512m", "-Xmx512m",
                "--enable-native-access=ALL-UNNAMED", "-cp", classpath, TlsLoadClient.class.getName());
        Path log = out.resolve("tls-client.log");
        Process p = children.start(new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())));
        return new TlsClient(p, children, log);
    }

    /**
     * The TLS servers' key store {@code out/tls-bench.p12}: an ECDSA P-256 key with a self-signed certificate, made
     * by the {@code keytool} of {@code javaHome}.
     */
    static Path makeKeyStore(ChildProcesses children, Path javaHome, Path out) throws Exception {
        Path store = out.resolve("tls-bench.p12");
        Files.deleteIfExists(store);
        Process p = children.start(new ProcessBuilder(javaHome.resolve("bin/keytool").toString(), "-genkeypair",
                "-alias", "bench", "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname",
                "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass",
                EchoServer.DEFAULT_TLS_PASSWORD).redirectErrorStream(true));
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool -genkeypair failed: " + output);
        }
        children.forget(p);
        return store;
    }

    /** Opens the step's connections (handshakes done); pins the client JVM to {@code cpus} (null: any CPU). */
    void prepare(String mode, int port, int n, int bytes, String cpus) throws Exception {
        ProcFacts.pin(process.pid(), cpus);
        send("prepare " + mode + " 127.0.0.1 " + port + " " + n + " " + bytes);
        String line = lines.next(120_000);
        if (!"PREPARED".equals(line)) {
            throw new IOException("TLS client answered " + line + " to prepare " + mode + " x" + n + " (see "
                    + log + ")");
        }
    }

    Map<String, String> go(int millis) throws Exception {
        send("go " + millis);
        String line = lines.next(millis + 60_000L);
        if (line == null || !line.startsWith("RESULT ")) {
            throw new IOException("TLS client answered " + line + " (see " + log + ")");
        }
        return ProcFacts.keyValues(line);
    }

    private void send(String command) throws IOException {
        control.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
        control.flush();
    }

    void close() throws InterruptedException {
        children.stop(process);
    }
}
