package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.conduit.testsuite.RequiredTools;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reconnecting real clients across transport swaps: {@code redis-benchmark -k 0} (a new connection for every request)
 * through a gateway TCP relay to redis-server, while {@code conf/io.conduit.transport.cfg} flips the preference
 * between nio and epoll every 2.5 s (FileInstall applies a file once it is unchanged across two polls), at least
 * {@link #MIN_FLIPS} times. redis-benchmark stops at the first connection error, so its clean exit with every
 * request answered means no connection was refused or reset.
 *
 * <p>The gateway, redis-server and redis-benchmark run in a child JVM's network namespace of its own
 * ({@code unshare -n}, loopback up, {@code net.ipv4.tcp_migrate_req=1}): there a connection still in a closing
 * listener's accept backlog moves to the new listener instead of being reset, as docs/runtime-swap.md promises.
 * Without {@code unshare} (not root, or no util-linux) the test is skipped with one line; under
 * {@code CONDUIT_REQUIRE_TOOLS=true} it fails instead.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class RedisReconnectSwapIT {

    private static final int MIN_FLIPS = 6;
    private static final int REQUESTS = 100_000;
    private static final int FLIP_MILLIS = 2500;

    @TempDir
    Path dir;

    @Test
    void redisBenchmarkReconnectingPerRequestSeesNoErrorWhileTheTransportFlips() throws Exception {
        // both looked up before skipping, so one run names every redis tool that is missing
        Path server = Tools.optional("redis-server", "redis-server");
        Path benchmark = Tools.optional("redis-benchmark", "redis-tools");
        Path unshare = Tools.optional("unshare", "util-linux");
        List<String> absent = new ArrayList<>();
        for (Object[] tool : new Object[][] {{"redis-server", server}, {"redis-benchmark", benchmark},
                {"unshare", unshare}}) {
            if (tool[1] == null) {
                absent.add((String) tool[0]);
            }
        }
        Assumptions.assumeTrue(absent.isEmpty(), "not on the PATH: " + String.join(", ", absent));
        List<String> java = new ArrayList<>();
        java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        java.add("-Dconduit.gateway.dist=" + GatewayProcess.distribution());
        java.addAll(List.of("-cp", System.getProperty("java.class.path"), RedisReconnectSwapIT.class.getName(),
                dir.toString(), server.toString(), benchmark.toString()));
        List<String> command = new ArrayList<>(List.of(unshare.toString(), "-n", "sh", "-c",
                "ip link set lo up && sysctl -q -w net.ipv4.tcp_migrate_req=1 && exec \"$@\"", "sh"));
        command.addAll(java);
        Path output = dir.resolve("child.log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the child JVM did not finish within 300 s:\n"
                    + Files.readString(output));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String out = Files.readString(output);
        if (p.exitValue() != 0 && out.startsWith("unshare: ")) {
            Assumptions.assumeTrue(false, RequiredTools.missing("a private network namespace (" + out.lines()
                    .findFirst().orElse("") + ")", "run the tests as root"));
        }
        String result = out.lines().filter(l -> l.startsWith("REDIS-RECONNECT-SWAP ")).findFirst().orElse(null);
        assertNotNull(result, "the child JVM printed no result (exit " + p.exitValue() + "):\n" + out);
        System.out.println(result);
        assertEquals(0, p.exitValue(), out);
        assertTrue(result.contains(" benchmarkExit=0 "), "redis-benchmark stops at the first connection error:\n"
                + out);
        assertTrue(result.contains(" errorLines=0 "), "redis-benchmark printed errors:\n" + out);
        assertTrue(result.contains(" answered=true "), "every request answered:\n" + out);
        int flips = Integer.parseInt(result.replaceAll(".* flips=(\\d+) .*", "$1"));
        assertTrue(flips >= MIN_FLIPS, "at least " + MIN_FLIPS + " swaps under the benchmark:\n" + out);
    }

    /** Child JVM, in its own network namespace: {@code <dir> <redis-server> <redis-benchmark>}. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int redisPort = Tools.freeTcpPort();
        int relayPort = Tools.freeTcpPort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.relay-redis.cfg"), "listen = tcp://127.0.0.1:" + relayPort
                + "\nupstream = tcp://127.0.0.1:" + redisPort + "\nconnect.timeout.ms = 3000\n");
        Process redis = new ProcessBuilder(args[1], "--port", String.valueOf(redisPort), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        GatewayProcess gateway = null;
        try {
            awaitTcp(redisPort);
            gateway = GatewayProcess.start(conf);
            Path transportCfg = conf.resolve("io.conduit.transport.cfg");
            Tools.Background bench = Tools.start(List.of(args[2], "-h", "127.0.0.1", "-p", String.valueOf(relayPort),
                    "-k", "0", "-c", "8", "-n", String.valueOf(REQUESTS), "-t", "set", "-q"));
            String to = "nio";
            long startNanos = System.nanoTime();
            for (int round = 0; bench.isRunning() && round < 60; round++) {
                Files.writeString(transportCfg, "transport = " + to + "\n");
                Thread.sleep(FLIP_MILLIS);
                to = to.equals("nio") ? "epoll" : "nio";
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
            int flips = count(gateway.output(), ":" + relayPort + " from '"); // the relay listener's swap lines
            if (bench.isRunning()) {
                // 150 s of flips did not end a 20 s benchmark: show where it waits before the last minute
                System.out.println("redis-benchmark still runs after " + seconds + " s and " + flips + " swaps; "
                        + "its output so far:\n" + bench.outputSoFar().replace('\r', '\n').lines()
                        .reduce((a, b) -> b).orElse("") + "\nsockets (ss -tnpo):\n" + Tools.run(List.of("ss",
                        "-tnpo"), 10) + "\ngateway:\n" + gateway.output());
            }
            String out = bench.await(60);
            String clean = out.replace('\r', '\n');
            long errorLines = clean.lines().filter(l -> l.toLowerCase(Locale.ROOT).contains("error")).count();
            java.util.regex.Pattern summary = java.util.regex.Pattern.compile("^SET: [0-9.]+ requests per second");
            boolean answered = clean.lines().anyMatch(l -> summary.matcher(l.strip()).find());
            String gatewayOut = gateway.output();
            System.out.println("REDIS-RECONNECT-SWAP requests=" + REQUESTS + " flips=" + flips + " benchmarkExit="
                    + (out.startsWith("exit 0") ? 0 : 1) + " errorLines=" + errorLines + " answered=" + answered
                    + " seconds=" + seconds + " unreachableLines=" + count(gatewayOut, "unreachable")
                    + " cannotConnectLines=" + count(gatewayOut, "cannot connect") + " result=" + clean.lines()
                    .filter(l -> summary.matcher(l.strip()).find()).findFirst().orElse("none").strip() + " ");
            if (errorLines > 0 || !out.startsWith("exit 0")) {
                System.out.println("redis-benchmark:\n" + clean.lines().filter(l -> !l.contains("rps="))
                        .collect(java.util.stream.Collectors.joining("\n")) + "\ngateway:\n" + gatewayOut);
            }
        } finally {
            if (gateway != null) {
                gateway.close();
            }
            redis.destroy();
            if (!redis.waitFor(10, TimeUnit.SECONDS)) {
                redis.destroyForcibly();
            }
        }
        System.exit(0);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static void awaitTcp(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("nothing listens on 127.0.0.1:" + port + " after 30 s", e);
                }
                Thread.sleep(50);
            }
        }
    }
}
