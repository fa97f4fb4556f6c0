package io.conduit.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The load benchmark driver: starts one echo server JVM ({@link EchoServer}) per contender and round, drives it
 * with the native load generator ({@code src/main/c/loadgen.c}), samples the server's CPU time from
 * {@code /proc/<pid>/stat} around every measured step, and prints a table of medians over the rounds with
 * same-round ratios against each contender's baseline: Netty epoll (stock) for the plain echo servers,
 * {@code netty-epoll-framed} for the length-field framed ones, {@code netty-epoll-tls} (SslHandler, JDK provider) for
 * the TLS ones.
 *
 * <p>Optional contenders, run only when named in {@code bench.contenders}: {@code conduit-epoll-nometrics};
 * {@code conduit-epoll-framed} and {@code netty-epoll-framed} (the load generator then sends length-field frames,
 * each ping-pong message written in two parts, see {@code loadgen.c}); {@code conduit-epoll-tls},
 * {@code netty-epoll-tls} and {@code netty-epoll-tls-openssl} (TLS 1.3 with an ECDSA P-256 certificate made for the
 * run with the servers' {@code keytool}; the load comes from {@link TlsLoadClient} in its own JVM, and a further step
 * measures full handshakes per second with {@code bench.handshakeConnections} (default "16") concurrent
 * connect-handshake-close loops; the idle-connection step is skipped for them).
 *
 * <p>Settings are system properties (all optional): {@code bench.rounds} (3), {@code bench.durationMillis} per
 * measured step (4000), {@code bench.warmupMillis} (2000), {@code bench.connections} ("1,16,256"),
 * {@code bench.streamConnections} ("1,16"), {@code bench.messageBytes} (64), {@code bench.chunkBytes} (65536),
 * {@code bench.idleConnections} (10000; 0 skips the step), {@code bench.contenders} (comma list, default all but
 * the optional ones above),
 * {@code bench.serverThreads} (1), {@code bench.serverJvmArgs} (extra JVM options of every server, separated by
 * spaces, e.g. {@code -Dbench.conduit.backPressure=false}), {@code bench.jdk} (Java home for the servers, default the newest JDK under
 * {@code /usr/lib/jvm}), {@code bench.classpath} (the servers' class path, default this JVM's),
 * {@code bench.loadgen} (the load generator binary, default {@code benchmarks/target/loadgen}),
 * {@code bench.out} (where results and server logs go, default {@code benchmarks/target/bench-results}),
 * {@code bench.placements} (comma list of {@code free}, {@code shared}, {@code split}: where server and load
 * generator run during the measured steps, see {@link Placement}; default {@code free,shared}).
 *
 * <p>Every child process is bounded by a deadline and destroyed on exit (shutdown hook).
 */
public final class LoadBenchmark {

    static final String BASELINE = "netty-epoll";
    private static final double NO_VALUE = Double.NaN;

    static final String FRAMED_BASELINE = "netty-epoll-framed";
    static final String TLS_BASELINE = "netty-epoll-tls";

    private final int rounds = Integer.getInteger("bench.rounds", 3);
    private final int durationMillis = Integer.getInteger("bench.durationMillis", 4000);
    private final int warmupMillis = Integer.getInteger("bench.warmupMillis", 2000);
    private final int[] connections = ints(System.getProperty("bench.connections", "1,16,256"));
    private final int[] streamConnections = ints(System.getProperty("bench.streamConnections", "1,16"));
    private final int messageBytes = Integer.getInteger("bench.messageBytes", 64);
    private final int chunkBytes = Integer.getInteger("bench.chunkBytes", 65536);
    private final int idleConnections = Integer.getInteger("bench.idleConnections", 10000);
    private final int[] handshakeConnections = ints(System.getProperty("bench.handshakeConnections", "16"));
    private final int serverThreads = Integer.getInteger("bench.serverThreads", 1);
    private final List<Placement> placements = Placement.parse(System.getProperty("bench.placements", "free,shared"));
    private final Path javaHome;
    private final int javaFeature;
    private final String classpath = System.getProperty("bench.classpath", System.getProperty("java.class.path"));
    private final Path loadgen = Paths.get(System.getProperty("bench.loadgen", "benchmarks/target/loadgen"));
    private final Path out = Paths.get(System.getProperty("bench.out", "benchmarks/target/bench-results"));
    private final long clockTicksPerSecond = ProcFacts.clockTicks();

    /** Live child processes, destroyed by the shutdown hook. */
    private final ChildProcesses children = new ChildProcesses();
    /** results.get(contender).get(round) = metric -> value; written by the main thread only. */
    private final Map<String, List<Map<String, Double>>> results = new LinkedHashMap<>();
    /** Why a contender could not run, or what it reported about itself; main thread only. */
    private final Map<String, String> notes = new LinkedHashMap<>();
    private final Map<String, Boolean> unavailable = new HashMap<>();
    /** Name -> the contender its ratios are taken against; main thread only. */
    private final Map<String, String> baselines = new HashMap<>();
    /** Whether any contender of the run speaks TLS (the handshake rows); main thread only. */
    private boolean anyTls;
    /** The PKCS#12 key store of the TLS servers, made once per run; main thread only. */
    private Path tlsKeyStore;
    /** /proc/loadavg when the run started: other work on the machine skews every number; main thread only. */
    private String loadBefore = "";

    private LoadBenchmark() throws IOException {
        String jdk = System.getProperty("bench.jdk");
        javaHome = jdk != null && !jdk.isEmpty() ? Paths.get(jdk) : ProcFacts.newestJdk();
        javaFeature = ProcFacts.jdkFeature(javaHome);
    }

    public static void main(String[] args) throws Exception {
        LoadBenchmark benchmark = new LoadBenchmark();
        Runtime.getRuntime().addShutdownHook(new Thread(benchmark.children::destroyAll, "bench-cleanup"));
        benchmark.run();
    }

    // ---------------------------------------------------------------------------------------------- the run

    private List<Contender> contenders() {
        List<String> common = List.of("-Xms512m", "-Xmx512m", "--enable-native-access=ALL-UNNAMED");
        List<String> unsafe = new ArrayList<>(List.of("-Dio.netty.noUnsafe=false"));
        if (javaFeature >= 24) {
            unsafe.add("--sun-misc-unsafe-memory-access=allow");
        }
        List<Contender> all = List.of(
                new Contender("conduit-epoll", "conduit-epoll", common, ""),
                new Contender("conduit-nio", "conduit-nio", common, ""),
                new Contender(BASELINE, "netty-epoll", common, "stock"),
                new Contender("netty-epoll-unsafe", "netty-epoll", concat(common, unsafe), String.join(" ", unsafe)),
                new Contender("netty-nio", "netty-nio", common, "stock"),
                new Contender("netty-nio-unsafe", "netty-nio", concat(common, unsafe), String.join(" ", unsafe)));
        // Only when named in bench.contenders: conduit-epoll with the loops' counting off (docs/metrics.md), to
        // measure what the metrics cost against conduit-epoll in the same run.
        // The framed (issue 16) and TLS (issue 17) echo servers, each against its own Netty baseline.
        // conduit-iouring and netty-iouring: both io_uring transports (issue 20), against the same baseline.
        List<Contender> optional = List.of(new Contender("conduit-iouring", "conduit-iouring", common, ""),
                new Contender("netty-iouring", "netty-iouring", common, "stock"),
                new Contender("conduit-epoll-nometrics", "conduit-epoll",
                        concat(common, List.of("-Dconduit.metrics=false")), "-Dconduit.metrics=false"),
                new Contender("conduit-epoll-framed", "conduit-epoll-framed", common, "", FRAMED_BASELINE),
                new Contender(FRAMED_BASELINE, "netty-epoll-framed", common, "stock", FRAMED_BASELINE),
                new Contender("conduit-epoll-tls", "conduit-epoll-tls", common, "", TLS_BASELINE),
                new Contender(TLS_BASELINE, "netty-epoll-tls", common, "SslHandler, JDK provider", TLS_BASELINE),
                new Contender("netty-epoll-tls-openssl", "netty-epoll-tls-openssl", common,
                        "SslHandler, OpenSSL provider (netty-tcnative-boringssl-static)", TLS_BASELINE));
        String wanted = System.getProperty("bench.contenders", "");
        if (wanted.isBlank()) {
            return all;
        }
        List<Contender> known = concat(all, optional);
        List<String> names = Arrays.stream(wanted.split(",")).map(String::trim).collect(Collectors.toList());
        for (String name : names) {
            if (known.stream().noneMatch(c -> c.name().equals(name))) {
                throw new IllegalArgumentException("bench.contenders: unknown contender '" + name + "'; known: "
                        + known.stream().map(Contender::name).collect(Collectors.joining(", ")));
            }
        }
        return known.stream().filter(c -> names.contains(c.name())).collect(Collectors.toList());
    }

    private void run() throws Exception {
        Files.createDirectories(out);
        if (!Files.isExecutable(loadgen)) {
            throw new IllegalStateException("load generator " + loadgen.toAbsolutePath()
                    + " is missing or not executable: build it with 'mvn -pl benchmarks -am package -DskipTests'"
                    + " or run benchmarks/run.sh");
        }
        List<Contender> contenders = contenders();
        for (Contender c : contenders) {
            results.put(c.name(), new ArrayList<>());
            baselines.put(c.name(), c.baseline());
            anyTls |= c.tls();
        }
        if (anyTls) {
            tlsKeyStore = TlsClient.makeKeyStore(children, javaHome, out);
        }
        long started = System.nanoTime();
        loadBefore = ProcFacts.loadAverage();
        System.out.printf(Locale.ROOT, "Servers on %s (JDK %d), %d round(s) x %d contender(s), %d ms per step, "
                        + "%d ms warm-up, %d server I/O thread(s); logs in %s%n", javaHome, javaFeature, rounds,
                contenders.size(), durationMillis, warmupMillis, serverThreads, out.toAbsolutePath());
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < contenders.size(); i++) {
                // Rotate the order each round so that no contender always runs first or last.
                Contender c = contenders.get((i + round) % contenders.size());
                Map<String, Double> metrics = new LinkedHashMap<>();
                if (!unavailable.getOrDefault(c.name(), false)) {
                    System.out.printf(Locale.ROOT, "round %d/%d: %s ...%n", round + 1, rounds, c.name());
                    try {
                        runContender(c, round, metrics);
                    } catch (Exception e) {
                        String message = "round " + (round + 1) + " failed: " + e.getMessage();
                        System.out.println("  " + c.name() + ": " + message);
                        notes.merge(c.name(), message, (a, b) -> a + "; " + b);
                    }
                }
                results.get(c.name()).add(metrics);
            }
        }
        String report = report(contenders, (System.nanoTime() - started) / 1_000_000_000L);
        System.out.println();
        System.out.println(report);
        String stamp = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Files.writeString(out.resolve("results-" + stamp + ".md"), report);
        Files.writeString(out.resolve("results-" + stamp + ".csv"), csv());
        System.out.println("Written: " + out.resolve("results-" + stamp + ".md").toAbsolutePath());
    }

    private void runContender(Contender c, int round, Map<String, Double> metrics) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin/java").toString());
        command.addAll(c.jvmFlags());
        command.add("-Dbench.serverThreads=" + serverThreads);
        if (c.tls()) {
            command.add("-Dbench.tls.keyStore=" + tlsKeyStore.toAbsolutePath());
        }
        for (String flag : System.getProperty("bench.serverJvmArgs", "").trim().split("\\s+")) {
            if (!flag.isEmpty()) {
                command.add(flag);
            }
        }
        command.add("-cp");
        command.add(classpath);
        command.add(EchoServer.class.getName());
        command.add(c.kind());
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve(c.name() + ".log").toFile()));
        Process server = children.start(builder);
        framed = c.framed();
        try {
            if (c.tls()) {
                tlsClient = TlsClient.start(children, javaHome, classpath, out);
            }
            LineReader lines = new LineReader(server);
            String ready = lines.next(60_000);
            if (ready == null || !ready.startsWith("READY ")) {
                String cause = ready != null && ready.startsWith("UNAVAILABLE ") ? ready.substring(12)
                        : "server printed " + ready + " instead of READY (see " + out.resolve(c.name() + ".log") + ")";
                unavailable.put(c.name(), true);
                notes.put(c.name(), "not available: " + cause);
                System.out.println("  " + c.name() + " not available: " + cause);
                return;
            }
            Map<String, String> info = ProcFacts.keyValues(ready);
            notes.putIfAbsent(c.name(), "unsafe=" + info.get("unsafe") + ", " + info.get("detail")
                    + (c.note().isEmpty() ? "" : ", flags: " + c.note()));
            int port = Integer.parseInt(info.get("port"));
            long pid = server.pid();

            // Warm-up: JIT, pools and caches, not measured.
            warmUp("pingpong", port, 16, warmupMillis, messageBytes);
            warmUp("stream", port, 16, Math.max(warmupMillis / 2, 1), chunkBytes);
            if (tlsClient != null) {
                warmUp("handshake", port, 16, Math.max(warmupMillis / 2, 1), 0);
            }

            for (Placement placement : placements) {
                ProcFacts.pin(pid, placement.serverCpus());
                String p = placement.prefix();
                for (int n : connections) {
                    Step step = measure(pid, "pingpong", port, n, messageBytes, placement.clientCpus());
                    double ops = Double.parseDouble(step.result().get("ops"));
                    String k = p + "pp" + n + ".";
                    metrics.put(k + "rtps", ops / step.seconds());
                    metrics.put(k + "p50us", Double.parseDouble(step.result().get("p50_ns")) / 1e3);
                    metrics.put(k + "p99us", Double.parseDouble(step.result().get("p99_ns")) / 1e3);
                    metrics.put(k + "p999us", Double.parseDouble(step.result().get("p999_ns")) / 1e3);
                    step.putCpu(metrics, k, "Rt", ops);
                }
                for (int n : streamConnections) {
                    Step step = measure(pid, "stream", port, n, chunkBytes, placement.clientCpus());
                    double megabytes = Double.parseDouble(step.result().get("bytes")) / 1e6;
                    String k = p + "st" + n + ".";
                    metrics.put(k + "mbps", megabytes / step.seconds());
                    step.putCpu(metrics, k, "MB", megabytes);
                }
                for (int n : tlsClient != null ? handshakeConnections : new int[0]) {
                    Step step = measure(pid, "handshake", port, n, 0, placement.clientCpus());
                    double handshakes = Double.parseDouble(step.result().get("ops"));
                    String k = p + "hs" + n + ".";
                    metrics.put(k + "hsps", handshakes / step.seconds());
                    step.putCpu(metrics, k, "Hs", handshakes);
                }
            }
            ProcFacts.pin(pid, null);
            if (idleConnections > 0 && !c.tls()) { // plain connections to a TLS server end at its handshake timeout
                measureIdle(server, lines, port, metrics);
            }
            System.out.println("  " + summary(metrics));
        } finally {
            if (tlsClient != null) {
                tlsClient.close();
                tlsClient = null;
            }
            children.stop(server);
        }
    }

    /**
     * One measured load step: the load generator's result and the server's CPU time during it, in µs.
     *
     * @param ioUserMicros user CPU of the server's I/O threads alone
     */
    record Step(Map<String, String> result, double seconds, double userMicros, double sysMicros, double ioUserMicros,
            double clientCpuPct) {

        /** Puts {@code <k>userUsPer<unit>}, {@code sysUsPer…}, {@code ioUserUsPer…} and {@code clientCpuPct}. */
        void putCpu(Map<String, Double> metrics, String k, String unit, double per) {
            metrics.put(k + "userUsPer" + unit, userMicros / per);
            metrics.put(k + "ioUserUsPer" + unit, ioUserMicros / per);
            metrics.put(k + "sysUsPer" + unit, sysMicros / per);
            metrics.put(k + "clientCpuPct", clientCpuPct);
        }
    }

    /**
     * Runs one load step of {@code durationMillis} and reads the server's CPU time around it. With the TLS client
     * the connections are opened and their handshakes done before the first reading (except in the handshake step,
     * which measures them).
     */
    private Step measure(long pid, String mode, int port, int n, int bytes, String clientCpus) throws Exception {
        settle(pid);
        Map<String, String> r;
        long[] before;
        long[] ioBefore;
        if (tlsClient != null) {
            tlsClient.prepare(mode, port, n, bytes, clientCpus);
            before = ProcFacts.cpuTicks(pid);
            ioBefore = ProcFacts.ioThreadTicks(pid);
            r = tlsClient.go(durationMillis);
        } else {
            before = ProcFacts.cpuTicks(pid);
            ioBefore = ProcFacts.ioThreadTicks(pid);
            r = runLoad(mode, port, n, durationMillis, bytes, clientCpus);
        }
        long[] after = ProcFacts.cpuTicks(pid);
        long[] ioAfter = ProcFacts.ioThreadTicks(pid);
        double seconds = Double.parseDouble(r.get("elapsed_ns")) / 1e9;
        return new Step(r, seconds, micros(after[0] - before[0]), micros(after[1] - before[1]),
                micros(ioAfter[0] - ioBefore[0]), Double.parseDouble(r.get("cpu_ns")) / 1e7 / seconds);
    }

    /** Server memory with idle connections open: (heap after GC + direct memory) delta, and RSS delta, per connection. */
    private void measureIdle(Process server, LineReader lines, int port, Map<String, Double> metrics) throws Exception {
        OutputStream control = server.getOutputStream();
        long[] base = memory(server, lines, control, 0);
        ProcessBuilder builder = new ProcessBuilder(loadgen.toString(), "idle", "127.0.0.1", Integer.toString(port),
                Integer.toString(idleConnections))
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("loadgen.log").toFile()));
        Process client = children.start(builder);
        try {
            LineReader clientLines = new LineReader(client);
            String connected = clientLines.next(120_000);
            if (connected == null || !connected.startsWith("CONNECTED")) {
                throw new IOException("idle load generator printed " + connected + " instead of CONNECTED (see "
                        + out.resolve("loadgen.log") + ")");
            }
            long[] loaded = memory(server, lines, control, idleConnections);
            double n = idleConnections;
            metrics.put("idle.bytesPerConn", ((loaded[1] - base[1]) + (loaded[2] - base[2])) / n);
            metrics.put("idle.heapPerConn", (loaded[1] - base[1]) / n);
            metrics.put("idle.directPerConn", (loaded[2] - base[2]) / n);
            metrics.put("idle.rssPerConn", (loaded[3] - base[3]) / n);
        } finally {
            client.getOutputStream().close();
            if (!client.waitFor(30, TimeUnit.SECONDS)) {
                client.destroyForcibly();
            }
            children.forget(client);
        }
    }

    /**
     * Waits (at most 60 s) until the server reports {@code expectedConnections} open, then returns
     * {connections, heap, direct, rss} in bytes.
     */
    private long[] memory(Process server, LineReader lines, OutputStream control, int expectedConnections)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            control.write("mem\n".getBytes(StandardCharsets.US_ASCII));
            control.flush();
            String line = lines.next(30_000);
            if (line == null || !line.startsWith("MEM ")) {
                throw new IOException("server answered " + line + " to 'mem'");
            }
            Map<String, String> kv = ProcFacts.keyValues(line);
            long open = Long.parseLong(kv.get("connections"));
            if (open == expectedConnections) {
                return new long[] {open, Long.parseLong(kv.get("heap")), Long.parseLong(kv.get("direct")),
                        ProcFacts.rssBytes(server.pid())};
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("server reports " + open + " open connections, expected " + expectedConnections);
            }
            Thread.sleep(200);
        }
    }

    /**
     * Waits (at most {@value #SETTLE_MAX_MILLIS} ms) until the server used at most 2 clock ticks of CPU in
     * {@value #SETTLE_WINDOW_MILLIS} ms, so that work left over from the previous step (for example reading what
     * reset streaming connections had sent) is not counted in the next one.
     */
    private static void settle(long pid) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MAX_MILLIS);
        long[] last = ProcFacts.cpuTicks(pid);
        while (System.nanoTime() < deadline) {
            Thread.sleep(SETTLE_WINDOW_MILLIS);
            long[] now = ProcFacts.cpuTicks(pid);
            if ((now[0] + now[1]) - (last[0] + last[1]) <= 2) {
                return;
            }
            last = now;
        }
    }

    private static final int SETTLE_WINDOW_MILLIS = 200;
    private static final int SETTLE_MAX_MILLIS = 5000;

    /** An unmeasured step: with the TLS client when the server speaks TLS, else with the load generator. */
    private void warmUp(String mode, int port, int n, int millis, int bytes) throws Exception {
        if (tlsClient != null) {
            tlsClient.prepare(mode, port, n, bytes, null);
            tlsClient.go(millis);
        } else {
            runLoad(mode, port, n, millis, bytes, null);
        }
    }

    /** Like {@link #runLoad(String, int, int, int, int)}, the load generator pinned to {@code cpus} unless null. */
    private Map<String, String> runLoad(String mode, int port, int n, int millis, int bytes, String cpus)
            throws Exception {
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.addAll(List.of(loadgen.toString(), mode, "127.0.0.1", Integer.toString(port), Integer.toString(n),
                Integer.toString(millis), Integer.toString(bytes)));
        if (framed) {
            command.add("framed");
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("loadgen.log").toFile()));
        Process client = children.start(builder);
        try {
            LineReader lines = new LineReader(client);
            String result = lines.next(millis + 60_000L);
            if (!client.waitFor(10, TimeUnit.SECONDS) || client.exitValue() != 0 || result == null
                    || !result.startsWith("RESULT ")) {
                throw new IOException("load generator " + mode + " x" + n + " failed (exit "
                        + (client.isAlive() ? "none" : client.exitValue()) + ", output " + result + "; see "
                        + out.resolve("loadgen.log") + ")");
            }
            return ProcFacts.keyValues(result);
        } finally {
            client.destroyForcibly();
            children.forget(client);
        }
    }

    /** The current contender's TLS load client JVM, or null; main thread only. */
    private TlsClient tlsClient;
    /** Whether the current contender gets length-field frames; main thread only. */
    private boolean framed;

    // ---------------------------------------------------------------------------------------------- report

    /** Rows of the table: {metric key, label} or {metric key, label, ""} for a row shown without ratios. */
    private List<String[]> rows() {
        List<String[]> rows = new ArrayList<>();
        for (Placement placement : placements) {
            String p = placement.prefix();
            String l = placement.label();
            for (int n : connections) {
                String k = p + "pp" + n + ".";
                String label = l + "ping-pong " + n + " conn: ";
                rows.add(new String[] {k + "rtps", label + "round trips/s"});
                rows.add(new String[] {k + "p50us", label + "p50 µs"});
                rows.add(new String[] {k + "p99us", label + "p99 µs"});
                rows.add(new String[] {k + "p999us", label + "p99.9 µs"});
                rows.add(new String[] {k + "userUsPerRt", label + "server user CPU µs/round trip"});
                rows.add(new String[] {k + "ioUserUsPerRt", label + "of which I/O thread(s)", ""});
                rows.add(new String[] {k + "sysUsPerRt", label + "server kernel CPU µs/round trip"});
                rows.add(new String[] {k + "clientCpuPct", label + "load generator CPU % of a core", ""});
            }
            for (int n : streamConnections) {
                String k = p + "st" + n + ".";
                String label = l + "streaming " + n + " conn: ";
                rows.add(new String[] {k + "mbps", label + "MB/s echoed"});
                rows.add(new String[] {k + "userUsPerMB", label + "server user CPU µs/MB"});
                rows.add(new String[] {k + "ioUserUsPerMB", label + "of which I/O thread(s)", ""});
                rows.add(new String[] {k + "sysUsPerMB", label + "server kernel CPU µs/MB"});
                rows.add(new String[] {k + "clientCpuPct", label + "load generator CPU % of a core", ""});
            }
            for (int n : anyTls ? handshakeConnections : new int[0]) {
                String k = p + "hs" + n + ".";
                String label = l + "TLS handshakes, " + n + " conn loops: ";
                rows.add(new String[] {k + "hsps", label + "full handshakes/s"});
                rows.add(new String[] {k + "userUsPerHs", label + "server user CPU µs/handshake"});
                rows.add(new String[] {k + "ioUserUsPerHs", label + "of which I/O thread(s)", ""});
                rows.add(new String[] {k + "sysUsPerHs", label + "server kernel CPU µs/handshake"});
                rows.add(new String[] {k + "clientCpuPct", label + "load client CPU % of a core", ""});
            }
        }
        if (idleConnections > 0) {
            rows.add(new String[] {"idle.bytesPerConn", idleConnections + " idle conns: heap+direct bytes/conn"});
            // Parts of the row above, without ratios: a part can be 0 or, with GC churn, slightly negative.
            rows.add(new String[] {"idle.heapPerConn", idleConnections + " idle conns: of which heap (after GC)", ""});
            rows.add(new String[] {"idle.directPerConn", idleConnections + " idle conns: of which direct", ""});
            rows.add(new String[] {"idle.rssPerConn", idleConnections + " idle conns: RSS bytes/conn"});
        }
        return rows;
    }

    private String report(List<Contender> contenders, long elapsedSeconds) {
        StringWriter text = new StringWriter();
        PrintWriter w = new PrintWriter(text);
        w.printf(Locale.ROOT, "Measured %s on %s; servers on %s (JDK %d) with %d I/O thread(s); %d round(s), "
                        + "%d ms per step, %d ms warm-up, %d-byte ping-pong messages, %d-byte stream writes; "
                        + "run took %d s.%n%n",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME.withLocale(Locale.ROOT)), ProcFacts.machine(),
                javaHome.getFileName(), javaFeature, serverThreads, rounds, durationMillis, warmupMillis, messageBytes,
                chunkBytes, elapsedSeconds);
        w.printf(Locale.ROOT, "Load average (1/5/15 min) at start: %s; at end: %s.%n%n", loadBefore, ProcFacts.loadAverage());
        w.println("Placements: " + placements.stream().map(LoadBenchmark::describe).collect(Collectors.joining("; "))
                + ".");
        w.println();
        String pairs = contenders.stream()
                .filter(c -> !c.baseline().equals(c.name()) && results.containsKey(c.baseline()))
                .map(c -> c.name() + " against " + c.baseline()).collect(Collectors.joining(", "));
        w.println("Cells: median over rounds (median of same-round ratios against the contender's baseline: "
                + (pairs.isEmpty() ? "none in this run" : pairs) + "). \"of which I/O thread(s)\": the user CPU of the server's threads named " + EchoServer.IO_THREAD_PREFIX
                + "-… alone (the rest is the JVM's JIT compiler, GC and other threads).");
        w.println();
        StringBuilder header = new StringBuilder("| metric |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Contender c : contenders) {
            header.append(' ').append(c.name()).append(" |");
            rule.append("---:|");
        }
        w.println(header);
        w.println(rule);
        for (String[] row : rows()) {
            StringBuilder line = new StringBuilder("| ").append(row[1]).append(" |");
            for (Contender c : contenders) {
                line.append(' ').append(cell(c.name(), row[0], row.length == 2)).append(" |");
            }
            w.println(line);
        }
        w.println();
        for (Contender c : contenders) {
            w.println("- " + c.name() + ": " + notes.getOrDefault(c.name(), "no note"));
        }
        w.println();
        w.println("Targets (Conduit contenders):");
        for (Contender c : contenders) {
            if (c.kind().startsWith("conduit")) {
                if (c.framed()) {
                    framedTargets(w, c);
                } else if (c.tls()) {
                    tlsTargets(w, c);
                } else {
                    targets(w, c.name());
                }
            }
        }
        w.flush();
        return text.toString();
    }

    private void targets(PrintWriter w, String name) {
        if (unavailable.getOrDefault(name, false) || results.getOrDefault(name, List.of()).stream()
                .allMatch(Map::isEmpty)) {
            w.println("- " + name + ": not measured (" + notes.getOrDefault(name, "no result") + ")");
            return;
        }
        for (Placement placement : placements) {
            String p = placement.prefix();
            List<String> checks = new ArrayList<>();
            for (int n : connections) {
                checks.add(ratioCheck("round trips/s " + n + " conn ≥ 1.0× " + BASELINE, name, p + "pp" + n + ".rtps",
                        1.0));
            }
            for (int n : streamConnections) {
                checks.add(ratioCheck("streaming " + n + " conn ≥ 1.1× " + BASELINE, name, p + "st" + n + ".mbps",
                        1.1));
            }
            if (Arrays.stream(connections).anyMatch(n -> n == 1)) {
                checks.add(check("p99.9 at 1 conn ≤ 150 µs", median(name, p + "pp1.p999us"), 150, false, " µs"));
            }
            for (int n : streamConnections) {
                checks.add(check("user CPU ≤ 40 µs/MB streamed (" + n + " conn)",
                        median(name, p + "st" + n + ".userUsPerMB"), 40, false, " µs/MB"));
            }
            if (idleConnections > 0 && placement == placements.get(0)) {
                checks.add(check("≤ 600 heap+direct bytes per idle conn", median(name, "idle.bytesPerConn"), 600,
                        false, " B"));
            }
            w.println("- " + name + " (placement " + placement.name() + "): " + String.join("; ", checks));
        }
    }

    /** Issue 16: round trips/s ≥ 1.0× and server user CPU per round trip ≤ 0.8× Netty's framed echo. */
    private void framedTargets(PrintWriter w, Contender c) {
        ratioTargets(w, c, (p, checks) -> {
            for (int n : connections) {
                checks.add(ratioCheck("round trips/s " + n + " conn ≥ 1.0× " + c.baseline(), c.name(),
                        p + "pp" + n + ".rtps", 1.0, true));
                checks.add(ratioCheck("user CPU/round trip " + n + " conn ≤ 0.8× " + c.baseline(), c.name(),
                        p + "pp" + n + ".userUsPerRt", 0.8, false));
            }
        });
    }

    /**
     * Issue 17: ping-pong and streaming ≥ 1.0× Netty's SslHandler (JDK provider), server user CPU per MB ≤ 1.0×,
     * full handshakes per second ≥ 1.0×.
     */
    private void tlsTargets(PrintWriter w, Contender c) {
        String name = c.name();
        ratioTargets(w, c, (p, checks) -> {
            for (int n : connections) {
                checks.add(ratioCheck("round trips/s " + n + " conn ≥ 1.0× " + c.baseline(), name,
                        p + "pp" + n + ".rtps", 1.0, true));
            }
            for (int n : streamConnections) {
                checks.add(ratioCheck("streaming " + n + " conn ≥ 1.0× " + c.baseline(), name, p + "st" + n + ".mbps",
                        1.0, true));
                checks.add(ratioCheck("user CPU/MB " + n + " conn ≤ 1.0× " + c.baseline(), name,
                        p + "st" + n + ".userUsPerMB", 1.0, false));
            }
            for (int n : handshakeConnections) {
                checks.add(ratioCheck("handshakes/s " + n + " loops ≥ 1.0× " + c.baseline(), name,
                        p + "hs" + n + ".hsps", 1.0, true));
            }
        });
    }

    /**
     * Prints one line per placement with the checks {@code addChecks} makes for {@code c} against its baseline, given
     * the placement's metric prefix; one "not measured" line instead when {@code c} has no result.
     */
    private void ratioTargets(PrintWriter w, Contender c,
            java.util.function.BiConsumer<String, List<String>> addChecks) {
        if (!measured(w, c.name())) {
            return;
        }
        for (Placement placement : placements) {
            List<String> checks = new ArrayList<>();
            addChecks.accept(placement.prefix(), checks);
            w.println("- " + c.name() + " (placement " + placement.name() + "): " + String.join("; ", checks));
        }
    }

    private boolean measured(PrintWriter w, String name) {
        if (unavailable.getOrDefault(name, false) || results.getOrDefault(name, List.of()).stream()
                .allMatch(Map::isEmpty)) {
            w.println("- " + name + ": not measured (" + notes.getOrDefault(name, "no result") + ")");
            return false;
        }
        return true;
    }

    private static String describe(Placement placement) {
        switch (placement.name()) {
            case "shared":
                return "shared = server and load generator pinned to CPU " + placement.serverCpus()
                        + " (throughput shows the CPU work per operation; no cross-CPU wake-ups)";
            case "split":
                return "split = server on CPU " + placement.serverCpus() + ", load generator on CPU "
                        + placement.clientCpus();
            default:
                return "free = not pinned (the scheduler places both)";
        }
    }

    /** A ratio target, with the range of the same-round ratios so that a tie within the noise shows as one. */
    private String ratioCheck(String what, String name, String metric, double limit) {
        return ratioCheck(what, name, metric, limit, true);
    }

    /** Like {@link #ratioCheck(String, String, String, double)}; {@code atLeast} false for an upper limit. */
    private String ratioCheck(String what, String name, String metric, double limit, boolean atLeast) {
        String verdict = check(what, ratio(name, metric), limit, atLeast, "×");
        List<Double> all = ratios(name, metric);
        if (all.size() < 2) {
            return verdict;
        }
        return verdict + String.format(Locale.ROOT, " (rounds %.2f–%.2f×)", Collections.min(all),
                Collections.max(all));
    }

    private static String check(String what, Optional<Double> value, double limit, boolean atLeast, String unit) {
        if (value.isEmpty()) {
            return what + ": no value";
        }
        double v = value.get();
        boolean ok = atLeast ? v >= limit : v <= limit;
        // Ratios with three decimals, so that a 0.9995 that misses a 1.0 target does not print as "1.00".
        String shown = unit.equals("×") ? String.format(Locale.ROOT, "%.3f", v) : Figures.format(v);
        return what + ": " + shown + unit + (ok ? " MET" : " MISSED");
    }

    private String cell(String name, String metric, boolean withRatio) {
        if (unavailable.getOrDefault(name, false)) {
            return "n/a";
        }
        Optional<Double> m = median(name, metric);
        if (m.isEmpty()) {
            return "–";
        }
        if (name.equals(baselineOf(name)) || !withRatio) {
            return Figures.format(m.get());
        }
        return ratio(name, metric).map(r -> Figures.format(m.get()) + String.format(Locale.ROOT, " (%.2f×)", r))
                .orElse(Figures.format(m.get()));
    }

    private Optional<Double> median(String name, String metric) {
        List<Double> values = new ArrayList<>();
        for (Map<String, Double> round : results.getOrDefault(name, List.of())) {
            Double v = round.get(metric);
            if (v != null && !v.isNaN() && !v.isInfinite()) {
                values.add(v);
            }
        }
        return median(values);
    }

    /** Median over rounds of value(name, round) / value(baseline, same round). */
    private Optional<Double> ratio(String name, String metric) {
        return median(ratios(name, metric));
    }

    /** value(name, round) / value(baseline, same round) for every round where both were measured. */
    private List<Double> ratios(String name, String metric) {
        List<Map<String, Double>> mine = results.getOrDefault(name, List.of());
        List<Map<String, Double>> base = results.getOrDefault(baselineOf(name), List.of());
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < Math.min(mine.size(), base.size()); round++) {
            double a = mine.get(round).getOrDefault(metric, NO_VALUE);
            double b = base.get(round).getOrDefault(metric, NO_VALUE);
            if (!Double.isNaN(a) && !Double.isNaN(b) && b != 0) {
                ratios.add(a / b);
            }
        }
        return ratios;
    }

    private String baselineOf(String name) {
        return baselines.getOrDefault(name, BASELINE);
    }

    private static Optional<Double> median(List<Double> values) {
        if (values.isEmpty()) {
            return Optional.empty();
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int mid = sorted.size() / 2;
        return Optional.of(sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2);
    }


    private static String summary(Map<String, Double> metrics) {
        return metrics.entrySet().stream().map(e -> e.getKey() + "=" + Figures.format(e.getValue()))
                .collect(Collectors.joining(" "));
    }

    private String csv() {
        StringBuilder b = new StringBuilder("contender,round,metric,value\n");
        results.forEach((name, perRound) -> {
            for (int round = 0; round < perRound.size(); round++) {
                for (Map.Entry<String, Double> e : perRound.get(round).entrySet()) {
                    b.append(name).append(',').append(round + 1).append(',').append(e.getKey()).append(',')
                            .append(e.getValue()).append('\n');
                }
            }
        });
        return b.toString();
    }

    // ---------------------------------------------------------------------------------------------- parsing

    private double micros(long ticks) {
        return ticks * 1e6 / clockTicksPerSecond;
    }

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .mapToInt(Integer::parseInt).toArray();
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
