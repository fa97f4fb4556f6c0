package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.conduit.testsuite.RequiredTools;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics endpoint of a running distribution, scraped with curl and read with the Prometheus project's own text
 * parser ({@code prometheus_client.parser} of Debian's {@code python3-prometheus-client}, run by
 * {@code /usr/bin/python3}). One gateway with an echo (TCP and UDP), a TCP relay to that echo, an echo on a port the test
 * holds, and the metrics endpoint, each on a free loopback port of its own.
 *
 * <ul>
 *   <li>the counters of each endpoint grow by exactly the bytes socat sent and got back, and by the datagrams sent;</li>
 *   <li>{@code /health} is 503 naming the endpoint whose port the test holds, and 200 once the port is free and the
 *       gateway's retry bound it;</li>
 *   <li>the scrape is well formed for the parser: every family has a type and help, counters end in {@code _total},
 *       histogram buckets are cumulative;</li>
 *   <li>HTTP: curl reuses one connection for two requests, an unknown path is 404, garbage is 400 and a close;</li>
 *   <li>removing the file closes the endpoint; a metrics port taken at start is one problem, the rest runs, and the
 *       endpoint listens once the port is free (a second gateway, on a home of its own).</li>
 * </ul>
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetricsDistributionIT {

    /** The Python whose {@code prometheus_client} is Debian's package (a PATH python may be another one). */
    private static final Path SYSTEM_PYTHON = Path.of("/usr/bin/python3");
    private static final String ECHO = "io.conduit.gateway.echo-metrics.cfg";
    private static final String RELAY = "io.conduit.gateway.relay-metrics.cfg";
    private static final String HELD = "io.conduit.gateway.echo-held.cfg";

    @TempDir
    static Path dir;

    private static GatewayProcess gateway;
    private static ServerSocket holder;
    private static int echoPort;
    private static int udpPort;
    private static int relayPort;
    private static int heldPort;
    private static int metricsPort;

    @BeforeAll
    static void start() throws Exception {
        parserMissing();
        echoPort = Tools.freeTcpPort();
        udpPort = Tools.freeUdpPort();
        relayPort = Tools.freeTcpPort();
        metricsPort = Tools.freeTcpPort();
        holder = new ServerSocket();
        holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        heldPort = holder.getLocalPort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve(ECHO), "listen = tcp://127.0.0.1:" + echoPort + ", udp://127.0.0.1:" + udpPort
                + "\n");
        Files.writeString(conf.resolve(RELAY), "listen = tcp://127.0.0.1:" + relayPort + "\nupstream = tcp://127.0.0.1:"
                + echoPort + "\n");
        Files.writeString(conf.resolve(HELD), "listen = tcp://127.0.0.1:" + heldPort + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.metrics.cfg"), "listen = tcp://127.0.0.1:" + metricsPort
                + "\n");
        gateway = GatewayProcess.start(conf);
        System.out.println(gateway.output());
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (holder != null) {
            holder.close();
        }
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + metricsPort + path;
    }

    /** One HTTP response as curl got it. */
    private record Response(int status, String headers, String body) {
    }

    private static Response curl(String path) throws IOException, InterruptedException {
        Path curl = Tools.require("curl", "curl");
        Path body = Files.createTempFile(dir, "body-", ".txt");
        Path headers = Files.createTempFile(dir, "headers-", ".txt");
        String result = Tools.run(List.of(curl.toString(), "-sS", "--max-time", "20", "-o", body.toString(), "-D",
                headers.toString(), "-w", "%{http_code}", url(path)), 30);
        assertTrue(result.startsWith("exit 0\n"), result);
        return new Response(Integer.parseInt(result.substring("exit 0\n".length()).strip()),
                Files.readString(headers, StandardCharsets.ISO_8859_1), Files.readString(body, StandardCharsets.UTF_8));
    }

    /** A metric family as {@code prometheus_client.parser} read it. */
    private record Family(String name, String type, String help, List<Sample> samples) {
    }

    /** A sample as the parser read it. */
    private record Sample(String name, Map<String, String> labels, double value) {
    }

    /** Prints each family and sample on one tab-separated line (label values hold no tab). */
    private static final String PARSE = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            for f in text_string_to_metric_families(sys.stdin.read()):
                print("F\\t%s\\t%s\\t%s" % (f.name, f.type, f.documentation))
                for s in f.samples:
                    labels = "".join("\\t%s\\t%s" % (k, v) for k, v in s.labels.items())
                    print("S\\t%s\\t%r%s" % (s.name, s.value, labels))
            """;

    /** @return {@code /usr/bin/python3} when it imports {@code prometheus_client}; else the test is skipped (CI: fails) */
    private static Path parser() throws IOException, InterruptedException {
        String missing = parserMissing();
        if (missing != null) {
            Assumptions.assumeTrue(false, missing);
        }
        return SYSTEM_PYTHON;
    }

    /**
     * Checks the parser once per JVM and reports it missing at once, so its line is printed even when an earlier
     * missing program (curl, socat) skips every test that would ask for it.
     *
     * @return the skip reason, or {@code null} when the parser is there
     */
    private static synchronized String parserMissing() throws IOException, InterruptedException {
        if (parserChecked) {
            return parserMissing;
        }
        parserChecked = true;
        boolean ok = Files.isExecutable(SYSTEM_PYTHON) && Tools.run(List.of(SYSTEM_PYTHON.toString(), "-c",
                "import prometheus_client.parser"), 30).startsWith("exit 0\n");
        if (!ok) {
            parserMissing = RequiredTools.missing("'python3' with the Prometheus text parser is missing ("
                    + SYSTEM_PYTHON + " -c 'import prometheus_client.parser' failed)", "install it with 'apt-get "
                    + "install -y python3 python3-prometheus-client'");
        }
        return parserMissing;
    }

    private static boolean parserChecked;
    private static String parserMissing;

    /** @return the families of a scrape made now, as the Prometheus text parser reads them */
    private static Map<String, Family> scrape() throws IOException, InterruptedException {
        Path python = parser();
        Response r = curl("/metrics");
        assertEquals(200, r.status(), r.toString());
        Path text = Files.createTempFile(dir, "scrape-", ".txt");
        Files.writeString(text, r.body());
        Path script = dir.resolve("parse.py");
        Files.writeString(script, PARSE);
        String out = Tools.run(List.of("sh", "-c", "'" + python + "' '" + script + "' < '" + text + "'"), 30);
        assertTrue(out.startsWith("exit 0\n"), out + "\nscrape:\n" + r.body());
        Map<String, Family> families = new LinkedHashMap<>();
        Family current = null;
        for (String line : out.substring("exit 0\n".length()).split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f[0].equals("F")) {
                current = new Family(f[1], f[2], f[3], new ArrayList<>());
                assertFalse(families.containsKey(f[1]), "family " + f[1] + " twice:\n" + r.body());
                families.put(f[1], current);
            } else {
                Map<String, String> labels = new LinkedHashMap<>();
                for (int i = 3; i + 1 < f.length; i += 2) {
                    labels.put(f[i], f[i + 1]);
                }
                current.samples().add(new Sample(f[1], labels, Double.parseDouble(f[2])));
            }
        }
        return families;
    }

    /**
     * @return the value of the one sample named {@code sample} (the parser names a counter's family without
     *         {@code _total}, its samples with it) whose labels include {@code labels}
     */
    private static double value(Map<String, Family> families, String sample, String... labels) {
        List<Double> found = new ArrayList<>();
        for (Family f : families.values()) {
            for (Sample s : f.samples()) {
                boolean match = s.name().equals(sample);
                for (int i = 0; match && i < labels.length; i += 2) {
                    match = labels[i + 1].equals(s.labels().get(labels[i]));
                }
                if (match) {
                    found.add(s.value());
                }
            }
        }
        assertEquals(1, found.size(), sample + " " + List.of(labels) + ": " + found);
        return found.get(0);
    }

    private static String[] echoTcp() {
        return new String[] {"kind", "echo", "config", ECHO, "listen", "tcp://127.0.0.1:" + echoPort};
    }

    private static String[] echoUdp() {
        return new String[] {"kind", "echo", "config", ECHO, "listen", "udp://127.0.0.1:" + udpPort};
    }

    private static String[] relay() {
        return new String[] {"kind", "relay", "config", RELAY, "listen", "tcp://127.0.0.1:" + relayPort};
    }

    @Test
    @Order(1)
    void theBannerShowsTheMetricsUrl() {
        String banner = gateway.output();
        assertTrue(banner.contains("listening metrics tcp://127.0.0.1:" + metricsPort + " (http://127.0.0.1:"
                + metricsPort + "/metrics, /health)  (io.conduit.gateway.metrics.cfg)"), banner);
        assertTrue(banner.contains("Ready: 4 endpoint(s) listening, 1 problem(s)"), banner);
    }

    /** The echo whose port the test holds makes /health 503 with its reason; freed, it binds and /health is 200. */
    @Test
    @Order(2)
    void healthIs503WhileAConfiguredPortIsTakenAnd200OnceItListens() throws Exception {
        Response down = curl("/health");
        assertEquals(503, down.status(), down.toString());
        assertTrue(down.body().startsWith("io.conduit.gateway.echo~held (" + HELD + "): cannot listen on tcp://127.0.0.1:"
                + heldPort + ": BindException: "), down.body());
        assertTrue(down.body().contains("address already in use") && down.body().endsWith("it is tried again every 5 s\n"),
                down.body());
        assertEquals(1, down.body().lines().count(), "one line: every other endpoint listens\n" + down.body());
        assertTrue(down.headers().contains("\r\nContent-Type: text/plain; charset=utf-8\r\n"), down.headers());
        String[] held = {"config", HELD, "listen", "tcp://127.0.0.1:" + heldPort};
        assertEquals(0, value(scrape(), "conduit_gateway_endpoint_listening", held));

        holder.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Response up = curl("/health");
        while (up.status() != 200) {
            assertTrue(System.nanoTime() - deadline < 0, "not 200 within 30 s of freeing the port: " + up);
            Thread.sleep(200);
            up = curl("/health");
        }
        assertEquals("ok\n", up.body());
        assertEquals(1, value(scrape(), "conduit_gateway_endpoint_listening", held));
    }

    /**
     * socat sends known files to the echo and through the relay (whose upstream is that echo), a Java client sends
     * datagrams: each endpoint's counters grow by exactly those bytes.
     */
    @Test
    @Order(3)
    void countersGrowByExactlyTheBytesTheClientsSent() throws Exception {
        Path socat = Tools.require("socat", "socat");
        Map<String, Family> before = scrape();
        int echoBytes = 300_000;
        int relayBytes = 200_000;
        socatRoundTrip(socat, echoPort, echoBytes, 11);
        socatRoundTrip(socat, relayPort, relayBytes, 12);
        int[] datagrams = {10, 100, 1000};
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.setSoTimeout(2000);
            InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), udpPort);
            for (int size : datagrams) {
                byte[] payload = EchoDistributionIT.random(size, size);
                assertArrayEquals(payload, EchoDistributionIT.exchange(s, payload, to));
            }
        }

        // the gateway counts a close when it sees it: wait until every connection is closed there too
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Map<String, Family> after = scrape();
        while (value(after, "conduit_gateway_connections_open", echoTcp()) != 0
                || value(after, "conduit_gateway_connections_open", relay()) != 0) {
            assertTrue(System.nanoTime() - deadline < 0, "connections still open after 20 s");
            Thread.sleep(100);
            after = scrape();
        }

        // the echo's clients: socat, and the relay's upstream connection carrying the relayed bytes
        assertGrew(before, after, "conduit_gateway_client_received_bytes_total", echoBytes + relayBytes, echoTcp());
        assertGrew(before, after, "conduit_gateway_client_sent_bytes_total", echoBytes + relayBytes, echoTcp());
        assertGrew(before, after, "conduit_gateway_connections_total", 2, echoTcp());
        assertGrew(before, after, "conduit_gateway_client_received_bytes_total", relayBytes, relay());
        assertGrew(before, after, "conduit_gateway_client_sent_bytes_total", relayBytes, relay());
        assertGrew(before, after, "conduit_gateway_connections_total", 1, relay());
        String[] upstream = {"config", RELAY, "upstream", "tcp://127.0.0.1:" + echoPort};
        assertGrew(before, after, "conduit_gateway_upstream_sent_bytes_total", relayBytes, upstream);
        assertGrew(before, after, "conduit_gateway_upstream_received_bytes_total", relayBytes, upstream);
        assertGrew(before, after, "conduit_gateway_upstream_connect_duration_seconds_count", 1, upstream);
        assertGrew(before, after, "conduit_gateway_upstream_connect_failures_total", 0, upstream);
        assertGrew(before, after, "conduit_gateway_client_received_datagrams_total", datagrams.length, echoUdp());
        assertGrew(before, after, "conduit_gateway_client_sent_datagrams_total", datagrams.length, echoUdp());
        assertGrew(before, after, "conduit_gateway_client_received_bytes_total", 1110, echoUdp());
        assertGrew(before, after, "conduit_gateway_client_sent_bytes_total", 1110, echoUdp());
        for (String[] endpoint : List.of(echoTcp(), echoUdp(), relay())) {
            assertEquals(1, value(after, "conduit_gateway_endpoint_listening", endpoint));
        }
        Family info = after.get("conduit_gateway_endpoint_transport_info");
        for (Sample s : info.samples()) {
            assertTrue(Set.of("epoll", "nio").contains(s.labels().get("transport")), s.toString());
            assertEquals(1, s.value());
        }

        // The platform's own families (PlatformMetrics): the transport under every endpoint read what the clients
        // sent, what the relay forwarded and got back, and only the scrapes' small HTTP requests besides.
        String transport = info.samples().get(0).labels().get("transport");
        double read = value(after, "conduit_transport_read_bytes_total", "transport", transport)
                - value(before, "conduit_transport_read_bytes_total", "transport", transport);
        long relayed = echoBytes + 3L * relayBytes; // socat -> echo, socat -> relay, relay -> echo, echo -> relay
        assertTrue(read >= relayed + 1110 && read < relayed + 1110 + 50_000, transport + " read " + read
                + " bytes; the clients' traffic was " + (relayed + 1110));
        assertGrew(before, after, "conduit_transport_read_datagrams_total", datagrams.length, "transport", transport);
        assertGrew(before, after, "conduit_transport_written_datagrams_total", datagrams.length, "transport",
                transport);
        assertTrue(value(after, "conduit_transport_event_loops", "transport", transport) >= 1);
        for (String sample : List.of("conduit_managed_swaps_total", "conduit_allocator_direct_pooled_bytes",
                "conduit_allocator_leak_reports_total", "conduit_transport_loop_busy_seconds_total")) {
            assertTrue(after.values().stream().anyMatch(f -> f.samples().stream().anyMatch(x -> x.name()
                    .equals(sample))), sample + " in " + after.keySet());
        }
    }

    private static void socatRoundTrip(Path socat, int port, int size, long seed) throws Exception {
        Path input = dir.resolve("in-" + port + ".bin");
        Path output = dir.resolve("out-" + port + ".bin");
        byte[] data = EchoDistributionIT.random(size, seed);
        Files.write(input, data);
        // socat sends the file, half-closes, and waits (-t 20) for the echo to end
        String result = Tools.run(List.of("sh", "-c", "'" + socat + "' -t 20 -T 30 - TCP:127.0.0.1:" + port + " < '"
                + input + "' > '" + output + "'"), 60);
        assertTrue(result.startsWith("exit 0"), result);
        assertArrayEquals(data, Files.readAllBytes(output), "echoed through port " + port);
    }

    private static void assertGrew(Map<String, Family> before, Map<String, Family> after, String sample, long by,
            String... labels) {
        assertEquals(by, value(after, sample, labels) - value(before, sample, labels), sample + " " + List.of(labels));
    }

    /** What Prometheus requires of a scrape, checked on the parser's reading of it. */
    @Test
    @Order(4)
    void theScrapeIsWellFormedForThePrometheusParser() throws Exception {
        Response r = curl("/metrics");
        assertTrue(r.headers().startsWith("HTTP/1.1 200 OK\r\n"), r.headers());
        assertTrue(r.headers().contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), r.headers());
        Map<String, Family> families = scrape();
        for (String name : List.of("conduit_gateway_endpoint_listening", "conduit_gateway_endpoint_transport_info",
                "conduit_gateway_connections_open", "conduit_gateway_connections",
                "conduit_gateway_client_received_bytes", "conduit_gateway_client_sent_bytes",
                "conduit_gateway_client_received_datagrams", "conduit_gateway_client_sent_datagrams",
                "conduit_gateway_upstream_received_bytes", "conduit_gateway_upstream_sent_bytes",
                "conduit_gateway_upstream_connect_failures", "conduit_gateway_upstream_connect_duration_seconds")) {
            assertTrue(families.containsKey(name), name + " in " + families.keySet());
        }
        for (Family f : families.values()) {
            assertTrue(Set.of("counter", "gauge", "histogram").contains(f.type()), f.toString());
            assertFalse(f.help().isBlank(), f.name());
            assertFalse(f.samples().isEmpty(), f.name());
            for (Sample s : f.samples()) {
                if (f.type().equals("counter")) {
                    assertEquals(f.name() + "_total", s.name());
                }
                assertFalse(s.labels().containsKey("client") || s.labels().containsKey("peer"), s.toString());
            }
            if (f.type().equals("histogram")) {
                double last = 0;
                for (Sample s : f.samples()) {
                    if (s.name().endsWith("_bucket")) {
                        assertTrue(s.value() >= last, "cumulative buckets: " + f);
                        last = s.value();
                    }
                }
                double count = f.samples().stream().filter(s -> s.name().endsWith("_count")).findFirst().orElseThrow()
                        .value();
                assertEquals(count, last, "the +Inf bucket is the count");
            }
        }
    }

    /** Keep-alive, 404, and a request that is not HTTP. */
    @Test
    @Order(5)
    void itSpeaksHttp11() throws Exception {
        Path curl = Tools.require("curl", "curl");
        String two = Tools.run(List.of(curl.toString(), "-sS", "-v", "--max-time", "20", "-o", "/dev/null", "-o",
                "/dev/null", url("/metrics"), url("/health")), 30);
        assertTrue(two.startsWith("exit 0\n"), two);
        assertTrue(two.contains("Re-using existing connection"), "one connection for both requests:\n" + two);
        assertEquals(404, curl("/nothing-here").status());

        Path socat = Tools.require("socat", "socat");
        String garbage = Tools.run(List.of("sh", "-c", "printf 'hello there\\r\\n\\r\\n' | '" + socat + "' -t 5 -T 10 - "
                + "TCP:127.0.0.1:" + metricsPort), 30);
        assertTrue(garbage.startsWith("exit 0\nHTTP/1.1 400 Bad Request\r\n"), garbage);
        assertTrue(garbage.contains("\r\nConnection: close\r\n"), garbage);
        assertTrue(garbage.endsWith("malformed request line (expected e.g. 'GET /metrics HTTP/1.1')\n"), garbage);
    }

    /** Removing the file closes the metrics endpoint; the echo and relay keep running. */
    @Test
    @Order(6)
    void removingTheFileTurnsTheEndpointOff() throws Exception {
        Files.delete(dir.resolve("conf/io.conduit.gateway.metrics.cfg"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (listens(metricsPort)) {
            assertTrue(System.nanoTime() - deadline < 0, "the metrics endpoint still listens 30 s after its file went");
            Thread.sleep(200);
        }
        assertTrue(listens(echoPort) && listens(relayPort), "the other endpoints run on");
    }

    private static boolean listens(int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    /**
     * A metrics port in use at start is one WARNING line and one banner problem, and the gateway runs without it; once
     * the port is free the endpoint listens (the retry every 5 s) and answers.
     */
    @Test
    @Order(7)
    void aTakenMetricsPortIsOneProblemAndTheRestRuns() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home-taken")); // the first gateway locks the distribution
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        int echo = Tools.freeTcpPort();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();
            Files.writeString(conf.resolve("io.conduit.gateway.echo-e.cfg"), "listen = tcp://127.0.0.1:" + echo + "\n");
            Files.writeString(conf.resolve("io.conduit.gateway.metrics.cfg"), "listen = tcp://127.0.0.1:" + port + "\n");
            try (GatewayProcess g = GatewayProcess.start(conf, "-Dconduit.gateway.home=" + home)) {
                String out = g.output();
                assertTrue(out.contains("  FAILED    metrics cannot listen on tcp://127.0.0.1:" + port + ": BindException: ")
                        && out.contains("; it is tried again every 5 s  (io.conduit.gateway.metrics.cfg)"), out);
                assertTrue(out.contains("Ready: 1 endpoint(s) listening, 1 problem(s)"), out);
                assertEquals(1, out.lines().filter(l -> l.contains("WARNING") && l.contains("tcp://127.0.0.1:" + port))
                        .count(), out);
                assertTrue(listens(echo), "the echo runs");
                taken.close();
                String now = "metrics io.conduit.gateway.metrics.cfg: listening on tcp://127.0.0.1:" + port + " now";
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!g.output().contains(now)) {
                    assertTrue(System.nanoTime() - deadline < 0, "not listening 30 s after the port was freed\n"
                            + g.output());
                    Thread.sleep(100);
                }
                Path curl = Tools.require("curl", "curl");
                String health = Tools.run(List.of(curl.toString(), "-sS", "--max-time", "10",
                        "http://127.0.0.1:" + port + "/health"), 20);
                assertEquals("exit 0\nok\n", health);
            }
        }
    }
}
