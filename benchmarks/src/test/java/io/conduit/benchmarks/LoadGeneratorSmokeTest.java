package io.conduit.benchmarks;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seconds-long check that the native load generator and the driver's parsing work against an in-process Netty NIO
 * echo server: not a benchmark, nothing is measured.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoadGeneratorSmokeTest {

    private static NettyEchoServer server;
    private static int port;
    private static Path loadgen;

    @BeforeAll
    static void startServer() throws Exception {
        loadgen = Paths.get(System.getProperty("bench.loadgen", "target/loadgen"));
        assertTrue(Files.isExecutable(loadgen), "load generator not built at " + loadgen.toAbsolutePath());
        server = new NettyEchoServer("nio");
        port = server.start(1);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static Map<String, String> run(String... args) throws Exception {
        return run(loadgen, port, args);
    }

    /**
     * Runs the load generator {@code binary} against 127.0.0.1:{@code port} ({@code args[0]} the mode, the rest after
     * the port); asserts it ends within 20 s with status 0 and a RESULT line.
     *
     * @return the RESULT line's key=value pairs
     */
    static Map<String, String> run(Path binary, int port, String... args) throws Exception {
        String[] command = new String[args.length + 3];
        command[0] = binary.toString();
        command[1] = args[0];
        command[2] = "127.0.0.1";
        command[3] = Integer.toString(port);
        System.arraycopy(args, 1, command, 4, args.length - 1);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String result = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("RESULT ")) {
                    result = line;
                }
            }
        }
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "load generator did not finish");
        assertEquals(0, p.exitValue(), "load generator exit status");
        assertTrue(result != null, "no RESULT line");
        return ProcFacts.keyValues(result);
    }

    @Test
    void pingPongCountsRoundTripsAndOrderedPercentiles() throws Exception {
        Map<String, String> r = run("pingpong", "4", "300", "64");
        long ops = Long.parseLong(r.get("ops"));
        long p50 = Long.parseLong(r.get("p50_ns"));
        long p99 = Long.parseLong(r.get("p99_ns"));
        long max = Long.parseLong(r.get("max_ns"));
        assertTrue(ops > 10, "round trips: " + ops);
        assertTrue(0 < p50 && p50 <= p99 && p99 <= max, "p50 " + p50 + " p99 " + p99 + " max " + max);
        assertEquals("0", r.get("errors"));
    }

    @Test
    void streamingReadsBackEchoedBytes() throws Exception {
        Map<String, String> r = run("stream", "2", "300", "65536");
        assertTrue(Long.parseLong(r.get("bytes")) > 65536, "echoed bytes: " + r.get("bytes"));
    }

    @Test
    void idleConnectionsAreOpenUntilInputEnds() throws Exception {
        Process p = new ProcessBuilder(loadgen.toString(), "idle", "127.0.0.1", Integer.toString(port), "20")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("CONNECTED 20", r.readLine());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.activeConnections() < 20 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(20, server.activeConnections());
        p.getOutputStream().close();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.activeConnections() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, server.activeConnections());
    }

    @Test
    void driverParsesKeyValuesAndJdkVersions() {
        Map<String, String> kv = ProcFacts.keyValues("READY port=123 unsafe=false detail=netty nio a=b");
        assertEquals("123", kv.get("port"));
        assertEquals("netty nio a=b", kv.get("detail"));
        assertTrue(ProcFacts.jdkFeature(Paths.get(System.getProperty("java.home"))) >= 17);
    }

    @Test
    void ioThreadCpuTimeCountsTheServersNamedThreads() throws Exception {
        long pid = ProcessHandle.current().pid();
        long[] before = ProcFacts.ioThreadTicks(pid);
        long[] processBefore = ProcFacts.cpuTicks(pid);
        run("pingpong", "16", "1000", "64");
        long[] after = ProcFacts.ioThreadTicks(pid);
        long[] processAfter = ProcFacts.cpuTicks(pid);
        long io = (after[0] - before[0]) + (after[1] - before[1]);
        long process = (processAfter[0] - processBefore[0]) + (processAfter[1] - processBefore[1]);
        // a second of echoing costs the I/O thread far more than one 10 ms tick, and it is part of the process
        assertTrue(io > 0, "I/O thread ticks: " + io);
        assertTrue(io <= process + 2, "I/O thread ticks " + io + " > process ticks " + process);
    }

    @Test
    void placementsAreParsedAndBadOnesNamed() {
        var placements = Placement.parse(" free, shared ");
        assertEquals(2, placements.size());
        assertEquals("free", placements.get(0).name());
        assertEquals(null, placements.get(0).serverCpus());
        assertEquals("shared", placements.get(1).name());
        assertEquals(placements.get(1).serverCpus(), placements.get(1).clientCpus());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Placement.parse("free,pinned"));
        assertTrue(unknown.getMessage().contains("'pinned'") && unknown.getMessage().contains("free, shared or split"),
                unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Placement.parse("shared,shared"));
        assertThrows(IllegalArgumentException.class, () -> Placement.parse(" , "));
    }
}
