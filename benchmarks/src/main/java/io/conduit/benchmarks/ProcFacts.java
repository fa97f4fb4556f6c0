package io.conduit.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What the benchmark driver reads from Linux and the JDKs: CPU time and resident size of a process and its I/O
 * threads (proc(5)), CPU affinity ({@code taskset}), clock ticks, load average, the machine's CPU and kernel, the
 * newest JDK under {@code /usr/lib/jvm}; and the {@code WORD k=v ...} lines the servers and clients print. Static and
 * thread-safe.
 */
final class ProcFacts {

    private ProcFacts() {
    }

    /** {utime, stime} of the process in clock ticks (proc(5): fields 14 and 15 of /proc/PID/stat). */
    static long[] cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Paths.get("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
    }

    /**
     * {utime, stime} in clock ticks summed over the process's threads named {@link EchoServer#IO_THREAD_PREFIX}
     * (proc(5): {@code /proc/PID/task/TID/comm} and {@code stat}); threads that ended meanwhile are not counted.
     */
    static long[] ioThreadTicks(long pid) throws IOException {
        long[] sum = new long[2];
        try (Stream<Path> tasks = Files.list(Paths.get("/proc/" + pid + "/task"))) {
            for (Path task : tasks.collect(Collectors.toList())) {
                try {
                    if (!Files.readString(task.resolve("comm")).startsWith(EchoServer.IO_THREAD_PREFIX)) {
                        continue;
                    }
                    String stat = Files.readString(task.resolve("stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                    sum[0] += Long.parseLong(fields[11]);
                    sum[1] += Long.parseLong(fields[12]);
                } catch (java.nio.file.NoSuchFileException gone) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return sum;
    }

    /**
     * Sets the CPU affinity of every thread of process {@code pid} ({@code taskset -a -p -c}); {@code null} allows
     * every CPU again. Threads the process starts later inherit it.
     *
     * @throws IOException when {@code taskset} (util-linux) is missing or refuses
     */
    static void pin(long pid, String cpus) throws IOException, InterruptedException {
        String list = cpus != null ? cpus : "0-" + (Runtime.getRuntime().availableProcessors() - 1);
        Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", list, Long.toString(pid)).redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("taskset -a -p -c " + list + " " + pid + " failed: " + output);
        }
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

    static long clockTicks() {
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

    static String loadAverage() {
        try {
            String[] f = Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    static String machine() {
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
}
