package io.conduit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The load benchmark driver: starts one echo server JVM ({@link EchoServer}) per contender and round, drives it
 * with the native load generator ({@code src/main/c/loadgen.c}), samples the server's CPU time from
 * {@code /proc/<pid>/stat} around every measured step, and prints a table of medians over the rounds with
 * same-round ratios against Netty epoll (stock).
 *
 * <p>Settings are system properties (all optional): {@code bench.rounds} (3), {@code bench.durationMillis} per
 * measured step (4000), {@code bench.warmupMillis} (2000), {@code bench.connections} ("1,16,256"),
 * {@code bench.streamConnections} ("1,16"), {@code bench.messageBytes} (64), {@code bench.chunkBytes} (65536),
 * {@code bench.idleConnections} (10000; 0 skips the step), {@code bench.contenders} (comma list, default all),
 * {@code bench.serverThreads} (1), {@code bench.serverJvmArgs} (extra JVM options of every server, separated by
 * spaces, e.g. {@code -Dbench.conduit.backPressure=false}), {@code bench.jdk} (Java home for the servers, default the newest JDK under
 * {@code /usr/lib/jvm}), {@code bench.classpath} (the servers' class path, default this JVM's),
 * {@code bench.loadgen} (the load generator binary, default {@code benchmarks/target/loadgen}),
 * {@code bench.out} (where results and server logs go, default {@code benchmarks/target/bench-results}).
 *
 * <p>Every child process is bounded by a deadline and destroyed on exit (shutdown hook).
 */
public final class LoadBenchmark {

    static final String BASELINE = "netty-epoll";
    private static final double NO_VALUE = Double.NaN;

    /** One server configuration: a kind understood by {@link EchoServer} plus extra JVM flags. */
    record Contender(String name, String kind, List<String> jvmFlags, String note) {
    }

    private final int rounds = Integer.getInteger("bench.rounds", 3);
    private final int durationMillis = Integer.getInteger("bench.durationMillis", 4000);
    private final int warmupMillis = Integer.getInteger("bench.warmupMillis", 2000);
    private final int[] connections = ints(System.getProperty("bench.connections", "1,16,256"));
    private final int[] streamConnections = ints(System.getProperty("bench.streamConnections", "1,16"));
    private final int messageBytes = Integer.getInteger("bench.messageBytes", 64);
    private final int chunkBytes = Integer.getInteger("bench.chunkBytes", 65536);
    private final int idleConnections = Integer.getInteger("bench.idleConnections", 10000);
    private final int serverThreads = Integer.getInteger("bench.serverThreads", 1);
    private final Path javaHome;
    private final int javaFeature;
    private final String classpath = System.getProperty("bench.classpath", System.getProperty("java.class.path"));
    private final Path loadgen = Paths.get(System.getProperty("bench.loadgen", "benchmarks/target/loadgen"));
    private final Path out = Paths.get(System.getProperty("bench.out", "benchmarks/target/bench-results"));
    private final long clockTicksPerSecond = clockTicks();

    /** Live child processes, destroyed by the shutdown hook. */
    private final Map<Process, Boolean> children = new ConcurrentHashMap<>();
    /** results.get(contender).get(round) = metric -> value; written by the main thread only. */
    private final Map<String, List<Map<String, Double>>> results = new LinkedHashMap<>();
    /** Why a contender could not run, or what it reported about itself; main thread only. */
    private final Map<String, String> notes = new LinkedHashMap<>();
    private final Map<String, Boolean> unavailable = new HashMap<>();
    /** /proc/loadavg when the run started: other work on the machine skews every number; main thread only. */
    private String loadBefore = "";

    private LoadBenchmark() throws IOException {
        String jdk = System.getProperty("bench.jdk");
        javaHome = jdk != null && !jdk.isEmpty() ? Paths.get(jdk) : newestJdk();
        javaFeature = jdkFeature(javaHome);
    }

    public static void main(String[] args) throws Exception {
        LoadBenchmark benchmark = new LoadBenchmark();
        Runtime.getRuntime().addShutdownHook(new Thread(benchmark::destroyChildren, "bench-cleanup"));
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
        String wanted = System.getProperty("bench.contenders", "");
        if (wanted.isBlank()) {
            return all;
        }
        List<String> names = Arrays.stream(wanted.split(",")).map(String::trim).collect(Collectors.toList());
        for (String name : names) {
            if (all.stream().noneMatch(c -> c.name().equals(name))) {
                throw new IllegalArgumentException("bench.contenders: unknown contender '" + name + "'; known: "
                        + all.stream().map(Contender::name).collect(Collectors.joining(", ")));
            }
        }
        return all.stream().filter(c -> names.contains(c.name())).collect(Collectors.toList());
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
        }
        long started = System.nanoTime();
        loadBefore = loadAverage();
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
        Process server = start(builder);
        try {
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
            Map<String, String> info = keyValues(ready);
            notes.putIfAbsent(c.name(), "unsafe=" + info.get("unsafe") + ", " + info.get("detail")
                    + (c.note().isEmpty() ? "" : ", flags: " + c.note()));
            int port = Integer.parseInt(info.get("port"));
            long pid = server.pid();

            // Warm-up: JIT, pools and caches, not measured.
            runLoad("pingpong", port, 16, warmupMillis, messageBytes);
            runLoad("stream", port, 16, Math.max(warmupMillis / 2, 1), chunkBytes);

            for (int n : connections) {
                long[] before = cpuTicks(pid);
                Map<String, String> r = runLoad("pingpong", port, n, durationMillis, messageBytes);
                long[] after = cpuTicks(pid);
                double ops = Double.parseDouble(r.get("ops"));
                double seconds = Double.parseDouble(r.get("elapsed_ns")) / 1e9;
                String k = "pp" + n + ".";
                metrics.put(k + "rtps", ops / seconds);
                metrics.put(k + "p50us", Double.parseDouble(r.get("p50_ns")) / 1e3);
                metrics.put(k + "p99us", Double.parseDouble(r.get("p99_ns")) / 1e3);
                metrics.put(k + "p999us", Double.parseDouble(r.get("p999_ns")) / 1e3);
                metrics.put(k + "userUsPerRt", micros(after[0] - before[0]) / ops);
                metrics.put(k + "sysUsPerRt", micros(after[1] - before[1]) / ops);
                metrics.put(k + "clientCpuPct", Double.parseDouble(r.get("cpu_ns")) / 1e7 / seconds);
            }
            for (int n : streamConnections) {
                long[] before = cpuTicks(pid);
                Map<String, String> r = runLoad("stream", port, n, durationMillis, chunkBytes);
                long[] after = cpuTicks(pid);
                double megabytes = Double.parseDouble(r.get("bytes")) / 1e6;
                double seconds = Double.parseDouble(r.get("elapsed_ns")) / 1e9;
                String k = "st" + n + ".";
                metrics.put(k + "mbps", megabytes / seconds);
                metrics.put(k + "userUsPerMB", micros(after[0] - before[0]) / megabytes);
                metrics.put(k + "sysUsPerMB", micros(after[1] - before[1]) / megabytes);
                metrics.put(k + "clientCpuPct", Double.parseDouble(r.get("cpu_ns")) / 1e7 / seconds);
            }
            if (idleConnections > 0) {
                measureIdle(server, lines, port, metrics);
            }
            System.out.println("  " + summary(metrics));
        } finally {
            stop(server);
        }
    }

    /** Server memory with idle connections open: (heap after GC + direct memory) delta, and RSS delta, per connection. */
    private void measureIdle(Process server, LineReader lines, int port, Map<String, Double> metrics) throws Exception {
        OutputStream control = server.getOutputStream();
        long[] base = memory(server, lines, control, 0);
        ProcessBuilder builder = new ProcessBuilder(loadgen.toString(), "idle", "127.0.0.1", Integer.toString(port),
                Integer.toString(idleConnections))
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("loadgen.log").toFile()));
        Process client = start(builder);
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
            children.remove(client);
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
            Map<String, String> kv = keyValues(line);
            long open = Long.parseLong(kv.get("connections"));
            if (open == expectedConnections) {
                return new long[] {open, Long.parseLong(kv.get("heap")), Long.parseLong(kv.get("direct")),
                        rssBytes(server.pid())};
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("server reports " + open + " open connections, expected " + expectedConnections);
            }
            Thread.sleep(200);
        }
    }

    /** Runs the load generator to completion (bounded) and returns its RESULT key/values. */
    private Map<String, String> runLoad(String mode, int port, int n, int millis, int bytes) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(loadgen.toString(), mode, "127.0.0.1", Integer.toString(port),
                Integer.toString(n), Integer.toString(millis), Integer.toString(bytes))
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("loadgen.log").toFile()));
        Process client = start(builder);
        try {
            LineReader lines = new LineReader(client);
            String result = lines.next(millis + 60_000L);
            if (!client.waitFor(10, TimeUnit.SECONDS) || client.exitValue() != 0 || result == null
                    || !result.startsWith("RESULT ")) {
                throw new IOException("load generator " + mode + " x" + n + " failed (exit "
                        + (client.isAlive() ? "none" : client.exitValue()) + ", output " + result + "; see "
                        + out.resolve("loadgen.log") + ")");
            }
            return keyValues(result);
        } finally {
            client.destroyForcibly();
            children.remove(client);
        }
    }

    // ---------------------------------------------------------------------------------------------- report

    /** Rows of the table: {metric key, label} or {metric key, label, ""} for a row shown without ratios. */
    private List<String[]> rows() {
        List<String[]> rows = new ArrayList<>();
        for (int n : connections) {
            rows.add(new String[] {"pp" + n + ".rtps", "ping-pong " + n + " conn: round trips/s"});
            rows.add(new String[] {"pp" + n + ".p50us", "ping-pong " + n + " conn: p50 µs"});
            rows.add(new String[] {"pp" + n + ".p99us", "ping-pong " + n + " conn: p99 µs"});
            rows.add(new String[] {"pp" + n + ".p999us", "ping-pong " + n + " conn: p99.9 µs"});
            rows.add(new String[] {"pp" + n + ".userUsPerRt", "ping-pong " + n + " conn: server user CPU µs/round trip"});
            rows.add(new String[] {"pp" + n + ".sysUsPerRt", "ping-pong " + n + " conn: server kernel CPU µs/round trip"});
            rows.add(new String[] {"pp" + n + ".clientCpuPct", "ping-pong " + n + " conn: load generator CPU % of a core", ""});
        }
        for (int n : streamConnections) {
            rows.add(new String[] {"st" + n + ".mbps", "streaming " + n + " conn: MB/s echoed"});
            rows.add(new String[] {"st" + n + ".userUsPerMB", "streaming " + n + " conn: server user CPU µs/MB"});
            rows.add(new String[] {"st" + n + ".sysUsPerMB", "streaming " + n + " conn: server kernel CPU µs/MB"});
            rows.add(new String[] {"st" + n + ".clientCpuPct", "streaming " + n + " conn: load generator CPU % of a core", ""});
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
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME.withLocale(Locale.ROOT)), machine(),
                javaHome.getFileName(), javaFeature, serverThreads, rounds, durationMillis, warmupMillis, messageBytes,
                chunkBytes, elapsedSeconds);
        w.printf(Locale.ROOT, "Load average (1/5/15 min) at start: %s; at end: %s.%n%n", loadBefore, loadAverage());
        w.println("Cells: median over rounds (median of same-round ratios against " + BASELINE + ").");
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
                targets(w, c.name());
            }
        }
        w.flush();
        return text.toString();
    }

    private void targets(PrintWriter w, String name) {
        if (unavailable.getOrDefault(name, false) || median(name, "pp1.rtps").isEmpty()) {
            w.println("- " + name + ": not measured (" + notes.getOrDefault(name, "no result") + ")");
            return;
        }
        List<String> checks = new ArrayList<>();
        for (int n : connections) {
            checks.add(check("round trips/s " + n + " conn ≥ 1.0× " + BASELINE, ratio(name, "pp" + n + ".rtps"), 1.0,
                    true, "×"));
        }
        for (int n : streamConnections) {
            checks.add(check("streaming " + n + " conn ≥ 1.1× " + BASELINE, ratio(name, "st" + n + ".mbps"), 1.1, true,
                    "×"));
        }
        checks.add(check("p99.9 at 1 conn ≤ 150 µs", median(name, "pp1.p999us"), 150, false, " µs"));
        for (int n : streamConnections) {
            checks.add(check("user CPU ≤ 40 µs/MB streamed (" + n + " conn)", median(name, "st" + n + ".userUsPerMB"),
                    40, false, " µs/MB"));
        }
        if (idleConnections > 0) {
            checks.add(check("≤ 600 heap+direct bytes per idle conn", median(name, "idle.bytesPerConn"), 600, false,
                    " B"));
        }
        w.println("- " + name + ": " + String.join("; ", checks));
    }

    private static String check(String what, Optional<Double> value, double limit, boolean atLeast, String unit) {
        if (value.isEmpty()) {
            return what + ": no value";
        }
        double v = value.get();
        boolean ok = atLeast ? v >= limit : v <= limit;
        // Ratios with three decimals, so that a 0.9995 that misses a 1.0 target does not print as "1.00".
        String shown = unit.equals("×") ? String.format(Locale.ROOT, "%.3f", v) : format(v);
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
        if (name.equals(BASELINE) || !withRatio) {
            return format(m.get());
        }
        return ratio(name, metric).map(r -> format(m.get()) + String.format(Locale.ROOT, " (%.2f×)", r))
                .orElse(format(m.get()));
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
        List<Map<String, Double>> mine = results.getOrDefault(name, List.of());
        List<Map<String, Double>> base = results.getOrDefault(BASELINE, List.of());
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < Math.min(mine.size(), base.size()); round++) {
            double a = mine.get(round).getOrDefault(metric, NO_VALUE);
            double b = base.get(round).getOrDefault(metric, NO_VALUE);
            if (!Double.isNaN(a) && !Double.isNaN(b) && b != 0) {
                ratios.add(a / b);
            }
        }
        return median(ratios);
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

    private static String format(double v) {
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String summary(Map<String, Double> metrics) {
        return metrics.entrySet().stream().map(e -> e.getKey() + "=" + format(e.getValue()))
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

    // ---------------------------------------------------------------------------------------------- processes

    private Process start(ProcessBuilder builder) throws IOException {
        Process p = builder.start();
        children.put(p, Boolean.TRUE);
        return p;
    }

    /** Closes the server's standard input (it exits), then destroys it if it is still alive after 10 s. */
    private void stop(Process server) throws InterruptedException {
        try {
            server.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
        children.remove(server);
    }

    private void destroyChildren() {
        for (Process p : children.keySet()) {
            p.destroyForcibly();
        }
    }

    /** Reads a process's standard output lines on a daemon thread; {@link #next} waits with a deadline. */
    static final class LineReader {
        private static final String EOF = "\u0000eof";
        private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();

        LineReader(Process process) {
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        queue.add(line);
                    }
                } catch (IOException ignored) {
                    // the process is gone; EOF below
                }
                queue.add(EOF);
            }, "bench-stdout-" + process.pid());
            t.setDaemon(true);
            t.start();
        }

        /** The next line, or null at end of output or when none arrived within {@code timeoutMillis}. */
        String next(long timeoutMillis) throws InterruptedException {
            String line = queue.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            if (line == null || line.equals(EOF)) {
                if (line != null) {
                    queue.add(EOF);
                }
                return null;
            }
            return line;
        }
    }

    // ---------------------------------------------------------------------------------------------- /proc, JDKs

    /** {utime, stime} of the process in clock ticks (proc(5): fields 14 and 15 of /proc/PID/stat). */
    static long[] cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Paths.get("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
    }

    /** VmRSS of the process in bytes (proc(5), /proc/PID/status). */
    static long rssBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    private double micros(long ticks) {
        return ticks * 1e6 / clockTicksPerSecond;
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            p.waitFor(5, TimeUnit.SECONDS);
            return Long.parseLong(text);
        } catch (IOException | InterruptedException | NumberFormatException e) {
            return 100; // USER_HZ on Linux
        }
    }

    /** The JDK under /usr/lib/jvm with the highest feature version (from its {@code release} file). */
    static Path newestJdk() throws IOException {
        Path root = Paths.get("/usr/lib/jvm");
        Path best = null;
        int bestFeature = -1;
        if (Files.isDirectory(root)) {
            try (Stream<Path> dirs = Files.list(root)) {
                for (Path dir : dirs.sorted().collect(Collectors.toList())) {
                    if (Files.isSymbolicLink(dir) || !Files.isExecutable(dir.resolve("bin/java"))) {
                        continue;
                    }
                    int feature = jdkFeature(dir);
                    if (feature > bestFeature) {
                        best = dir;
                        bestFeature = feature;
                    }
                }
            }
        }
        if (best == null) {
            return Paths.get(System.getProperty("java.home"));
        }
        return best;
    }

    /** Feature version from the JDK's {@code release} file ({@code JAVA_VERSION="25.0.1"} gives 25); -1 if unknown. */
    static int jdkFeature(Path javaHome) {
        try {
            for (String line : Files.readAllLines(javaHome.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring(13).replace("\"", "");
                    String first = v.split("[.+-]")[0];
                    return Integer.parseInt(first.equals("1") ? v.split("\\.")[1] : first);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String machine() {
        String cpu = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException ignored) {
            // keep "unknown CPU"
        }
        String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version");
        return Runtime.getRuntime().availableProcessors() + " × " + cpu + ", " + kernel;
    }

    // ---------------------------------------------------------------------------------------------- parsing

    /** Parses "WORD k=v k=v ..." (the last key may hold spaces when it is "detail"). */
    static Map<String, String> keyValues(String line) {
        Map<String, String> map = new HashMap<>();
        String rest = line.substring(line.indexOf(' ') + 1);
        int detail = rest.indexOf("detail=");
        if (detail >= 0) {
            map.put("detail", rest.substring(detail + 7));
            rest = rest.substring(0, detail);
        }
        for (String token : rest.trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                map.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return map;
    }

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .mapToInt(Integer::parseInt).toArray();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
