package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS in the gateway with real clients and servers, certificates made by the test with {@code openssl}: a TLS echo
 * ({@code openssl s_client} with SNI and ALPN), a terminating relay in front of {@code python3 -m http.server}
 * ({@code curl --cacert}, 50 MiB) and one in front of {@code redis-server} ({@code redis-benchmark --tls}, while the
 * certificate is renewed on disk), an originating relay to {@code openssl s_server} (mutual TLS with the upstream),
 * SNI routing to two {@code s_server}s, mutual TLS required on a listener, bad input on a TLS port, a certificate
 * replaced on disk (broken, then renewed), and each bad TLS configuration as one line while the other endpoints start.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TlsGatewayIT {

    @TempDir
    static Path dir;

    private static Path openssl;
    private static Path pki;
    private static GatewayProcess gateway;
    private static final List<Process> PROCESSES = new ArrayList<>();

    private static int toOwnEchoPort;
    private static int echoPort;
    private static int mutualPort;
    private static int badInputPort;
    private static int httpsRelayPort;
    private static int httpPort;
    private static int originatingPort;
    private static int sServerPort;
    private static int untrustedRelayPort;
    private static int untrustedServerPort;
    private static int wrongNameRelayPort;
    private static int sniRelayPort;
    private static int aServerPort;
    private static Path bServerSocket;
    private static int reloadPort;
    private static int redisPort;
    private static int redisRelayPort;
    private static Path conf;
    private static int metricsPort;

    @BeforeAll
    static void start() throws Exception {
        openssl = Tools.require("openssl", "openssl");
        pki = Files.createDirectories(dir.resolve("pki"));
        makePki();
        echoPort = Tools.freeTcpPort();
        mutualPort = Tools.freeTcpPort();
        badInputPort = Tools.freeTcpPort();
        httpsRelayPort = Tools.freeTcpPort();
        httpPort = Tools.freeTcpPort();
        originatingPort = Tools.freeTcpPort();
        sServerPort = Tools.freeTcpPort();
        untrustedRelayPort = Tools.freeTcpPort();
        untrustedServerPort = Tools.freeTcpPort();
        wrongNameRelayPort = Tools.freeTcpPort();
        sniRelayPort = Tools.freeTcpPort();
        reloadPort = Tools.freeTcpPort();
        redisPort = Tools.freeTcpPort();
        redisRelayPort = Tools.freeTcpPort();
        aServerPort = Tools.freeTcpPort();
        metricsPort = Tools.freeTcpPort();
        toOwnEchoPort = Tools.freeTcpPort();
        // short: openssl 3.0 s_server fails on a Unix socket path of more than about 30 bytes (bio_addr.c)
        bServerSocket = Path.of("/tmp", "cdt-sni-" + ProcessHandle.current().pid() + ".sock");
        Files.deleteIfExists(bServerSocket);

        // the upstreams of the originating relays: one that requires the gateway's client certificate, one whose
        // certificate comes from a CA the gateway does not trust
        PROCESSES.add(sServer(sServerPort, "server", "-Verify", "1", "-CAfile", pki.resolve("ca.pem").toString()));
        PROCESSES.add(sServer(untrustedServerPort, "other-server"));
        // the upstreams of SNI routing: a.example on TCP, b.example on a Unix socket
        PROCESSES.add(sServer(aServerPort, "a"));
        PROCESSES.add(sServerOnUnixSocket(bServerSocket, "b"));
        awaitTcp(sServerPort);
        awaitTcp(untrustedServerPort);
        awaitTcp(aServerPort);
        awaitFile(bServerSocket, dir.resolve("s_server-b.log"));

        conf = Files.createDirectories(dir.resolve("conf"));
        for (String f : List.of("server.pem", "server.key", "server-enc.key", "ca.pem")) {
            Files.copy(pki.resolve(f), conf.resolve(f)); // relative paths: taken relative to conf/
        }
        Files.copy(pki.resolve("server.pem"), conf.resolve("live.pem"));
        Files.copy(pki.resolve("server.key"), conf.resolve("live.key"));
        write(conf, "echo-reload", "listen = tls://127.0.0.1:" + reloadPort, "tls.cert = live.pem",
                "tls.key = live.key");
        Files.copy(pki.resolve("server.pem"), conf.resolve("redis.pem"));
        Files.copy(pki.resolve("server.key"), conf.resolve("redis.key"));
        write(conf, "relay-redis", "listen = tls://127.0.0.1:" + redisRelayPort,
                "upstream = tcp://127.0.0.1:" + redisPort, "tls.cert = redis.pem", "tls.key = redis.key");
        write(conf, "echo-tls", "listen = tls://127.0.0.1:" + echoPort, "tls.cert = server.pem",
                "tls.key = server-enc.key", "tls.key.password = s3cret", "tls.alpn = echo, h2");
        write(conf, "echo-mutual", "listen = tls://127.0.0.1:" + mutualPort, "tls.cert = server.pem",
                "tls.key = server.key", "tls.ca = ca.pem", "tls.clientAuth = required");
        write(conf, "echo-badinput", "listen = tls://127.0.0.1:" + badInputPort, "tls.cert = server.pem",
                "tls.key = server.key");
        write(conf, "metrics", "listen = tcp://127.0.0.1:" + metricsPort);
        write(conf, "relay-https", "listen = tls://127.0.0.1:" + httpsRelayPort,
                "upstream = tcp://127.0.0.1:" + httpPort, "tls.cert = " + conf.resolve("server.pem"),
                "tls.key = server.key");
        write(conf, "relay-originating", "listen = tcp://127.0.0.1:" + originatingPort,
                "upstream = tls://127.0.0.1:" + sServerPort, "tls.upstream.ca = ca.pem",
                "tls.upstream.serverName = gw.example", "tls.upstream.cert = " + pki.resolve("client.pem"),
                "tls.upstream.key = " + pki.resolve("client.key"));
        write(conf, "relay-to-own-echo", "listen = tcp://127.0.0.1:" + toOwnEchoPort,
                "upstream = tls://127.0.0.1:" + echoPort, "tls.upstream.ca = ca.pem",
                "tls.upstream.serverName = gw.example");
        write(conf, "relay-untrusted", "listen = tcp://127.0.0.1:" + untrustedRelayPort,
                "upstream = tls://127.0.0.1:" + untrustedServerPort, "tls.upstream.ca = ca.pem",
                "tls.upstream.serverName = gw.example");
        write(conf, "relay-wrong-name", "listen = tcp://127.0.0.1:" + wrongNameRelayPort,
                "upstream = tls://127.0.0.1:" + echoPort, "tls.upstream.ca = ca.pem",
                "tls.upstream.serverName = wrong.example");
        write(conf, "relay-sni", "listen = tcp://127.0.0.1:" + sniRelayPort,
                "upstream = tcp://127.0.0.1:" + untrustedServerPort,
                "sni.routes = a.example=tcp://127.0.0.1:" + aServerPort + ", b.example=unix:" + bServerSocket);
        // bad configurations: one line each, and the endpoints above start
        write(conf, "echo-missing", "listen = tls://127.0.0.1:" + Tools.freeTcpPort(), "tls.cert = nowhere.pem",
                "tls.key = server.key");
        write(conf, "echo-mismatch", "listen = tls://127.0.0.1:" + Tools.freeTcpPort(), "tls.cert = server.pem",
                "tls.key = " + pki.resolve("other-server.key"));
        write(conf, "echo-password", "listen = tls://127.0.0.1:" + Tools.freeTcpPort(), "tls.cert = server.pem",
                "tls.key = server-enc.key", "tls.key.password = wrong");
        write(conf, "echo-expired", "listen = tls://127.0.0.1:" + Tools.freeTcpPort(),
                "tls.cert = " + pki.resolve("expired.pem"), "tls.key = server.key");
        gateway = GatewayProcess.start(conf);
        System.out.println(gateway.output());
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        for (Process p : PROCESSES) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (bServerSocket != null) {
            Files.deleteIfExists(bServerSocket);
        }
    }

    @Test
    void eachBadTlsConfigurationIsOneLineAndTheOtherEndpointsStart() {
        String out = gateway.output();
        assertTrue(out.contains("Ready: 12 endpoint(s) listening, 4 problem(s)"), out); // the metrics endpoint is one
        assertTrue(out.contains("tls://127.0.0.1:" + echoPort + " (certificate CN=gw.example, expires "), out);
        assertTrue(out.contains("tls://127.0.0.1:" + httpsRelayPort + " -> tcp://127.0.0.1:" + httpPort
                + " (certificate CN=gw.example, expires "), out);
        assertTrue(out.contains("tcp://127.0.0.1:" + originatingPort + " -> tls://127.0.0.1:" + sServerPort), out);
        assertProblem(out, "echo-missing", dir.resolve("conf/nowhere.pem") + " does not exist; check the path");
        assertProblem(out, "echo-mismatch", "does not match the certificate 'CN=gw.example'");
        assertProblem(out, "echo-password", "wrong password");
        assertProblem(out, "echo-expired", "expired on");
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
    }

    /**
     * Clients that send everything and their end of stream at once through a relay whose upstream is a TLS listener
     * of Conduit's own: the relay asks for the upstream's half-closure while its handshake still runs. The handler
     * used to close then, with an alert in the clear the listener could not decrypt ("Insufficient buffer remaining
     * for AEAD cipher fragment (2)"), and 44 of 50 such clients of a user's trial got nothing back.
     */
    @Test
    void clientsThatSendAndHalfCloseAtOnceGetTheirBytesBackThroughATlsUpstream() throws Exception {
        int clients = 20;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
        try {
            List<java.util.concurrent.Future<String>> results = new java.util.ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int seed = i;
                results.add(pool.submit(() -> {
                    byte[] sent = new byte[50_000 + seed];
                    new java.util.Random(seed).nextBytes(sent);
                    try (java.net.Socket s = new java.net.Socket("127.0.0.1", toOwnEchoPort)) {
                        s.setSoTimeout(20_000);
                        s.getOutputStream().write(sent);
                        s.shutdownOutput();
                        byte[] got = s.getInputStream().readAllBytes();
                        return java.util.Arrays.equals(sent, got) ? "ok" : "client " + seed + ": " + got.length
                                + " of " + sent.length + " bytes back";
                    }
                }));
            }
            List<String> failures = new java.util.ArrayList<>();
            for (java.util.concurrent.Future<String> r : results) {
                String outcome = r.get(60, java.util.concurrent.TimeUnit.SECONDS);
                if (!outcome.equals("ok")) {
                    failures.add(outcome);
                }
            }
            assertTrue(failures.isEmpty(), failures + "\n" + gateway.output());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void opensslClientSeesTheCertificateAndAlpnAndItsBytesAreEchoed() throws Exception {
        String out = sClient(echoPort, "hello through TLS", "-servername", "gw.example", "-alpn", "echo");
        assertTrue(out.contains("hello through TLS"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("subject=") && l.contains("gw.example")), out);
        assertTrue(out.contains("ALPN protocol: echo"), out);
        assertTrue(out.contains("Verify return code: 0 (ok)"), out);
    }

    @Test
    void curlDownloadsOverHttpsThroughATerminatingRelayByteExact() throws Exception {
        Path curl = Tools.require("curl", "curl");
        Path python = Tools.require("python3", "python3");
        Path www = Files.createDirectories(dir.resolve("www"));
        Path file = www.resolve("big.bin");
        byte[] chunk = new byte[1 << 20];
        Random random = new Random(50);
        try (OutputStream o = Files.newOutputStream(file)) {
            for (int i = 0; i < 50; i++) {
                random.nextBytes(chunk);
                o.write(chunk);
            }
        }
        Process http = new ProcessBuilder(python.toString(), "-m", "http.server", String.valueOf(httpPort), "--bind",
                "127.0.0.1", "--directory", www.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("http.log").toFile()).start();
        PROCESSES.add(http);
        awaitTcp(httpPort);
        Path downloaded = dir.resolve("downloaded.bin");
        String result = Tools.run(List.of(curl.toString(), "-sS", "--fail", "--max-time", "60", "--cacert",
                pki.resolve("ca.pem").toString(), "--resolve", "gw.example:" + httpsRelayPort + ":127.0.0.1", "-o",
                downloaded.toString(), "https://gw.example:" + httpsRelayPort + "/big.bin"), 90);
        assertTrue(result.startsWith("exit 0"), result + "\ngateway:\n" + gateway.output());
        assertEquals(RelayDistributionIT.sha256(file), RelayDistributionIT.sha256(downloaded),
                "SHA-256 of the file downloaded over HTTPS through the relay");
    }

    @Test
    void anOriginatingRelayReachesOpensslSServerWithItsClientCertificate() throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), originatingPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("abcdef\n".getBytes(StandardCharsets.US_ASCII));
            // s_server -rev answers each line reversed, over the TLS connection the relay originated
            assertEquals("fedcba", readLine(s.getInputStream()), gateway.output());
        }
    }

    /**
     * A burst of clients through a relay whose upstream's certificate it does not trust: each client is closed, and
     * the failed upstream handshakes are one line naming the upstream and the cause, the rest counted (one line per
     * burst, not one per client).
     */
    /**
     * The line names the relay's file, the upstream, what failed in plain words and the key to set (it was the JDK's
     * {@code PKIX path building failed: sun.security...}, from the TLS handler, naming neither); one line for the
     * burst, without a stack trace.
     */
    @Test
    void anUpstreamCertificateOfAnUnknownCaClosesTheClientWithOneLineNamingThePeer() throws Exception {
        closeFiveClientsThrough(untrustedRelayPort);
        String peer = "TLS handshake failed with upstream tls://127.0.0.1:" + untrustedServerPort;
        String line = awaitLine(peer);
        assertTrue(line.contains("relay io.conduit.gateway.relay-untrusted.cfg: ")
                && line.contains("its certificate is not trusted") && line.contains("does not chain to a trusted CA")
                && line.contains("set 'tls.upstream.ca' to the CA certificate that signed it"), line);
        Thread.sleep(500);
        String upstream = "127.0.0.1:" + untrustedServerPort;
        assertEquals(1, gateway.output().lines().filter(l -> l.contains(upstream) && l.contains("TLS")
                && !l.contains(" -> ")).count(), "one line per burst:\n" + gateway.output());
        assertFalse(gateway.output().contains("PKIX path building failed"), gateway.output());
        assertFalse(gateway.output().contains("\tat io.conduit"), "no stack trace:\n" + gateway.output());
    }

    @Test
    void anUpstreamCertificateForAnotherNameIsOneLineNamingTheServerNameKey() throws Exception {
        closeFiveClientsThrough(wrongNameRelayPort);
        String line = awaitLine("relay io.conduit.gateway.relay-wrong-name.cfg: TLS handshake failed with upstream"
                + " tls://127.0.0.1:" + echoPort);
        assertTrue(line.contains("does not name the host name 'wrong.example'")
                && line.contains("set 'tls.upstream.serverName' to a name in the certificate"), line);
        Thread.sleep(500);
        assertEquals(1, gateway.output().lines().filter(l -> l.contains("relay-wrong-name.cfg: TLS")).count(),
                "one line per burst:\n" + gateway.output());
        // the upstream (the gateway's own TLS echo) learns why from the relay's alert, instead of an end of stream
        String upstreamSide = awaitLine("TLS handshake failed on /127.0.0.1:" + echoPort);
        assertTrue(upstreamSide.contains("certificate_unknown") || upstreamSide.contains("bad_certificate"),
                upstreamSide);
    }

    /**
     * Five clients that send a line and end their input at once, as {@code socat} does with a short input: the relay
     * asks for the upstream's half-closure while its handshake runs, and closes the upstream when that fails.
     */
    private static void closeFiveClientsThrough(int relayPort) throws IOException {
        for (int i = 0; i < 5; i++) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), relayPort)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write("abcdef\n".getBytes(StandardCharsets.US_ASCII));
                s.shutdownOutput();
                assertEquals(-1, s.getInputStream().read(), "the client is closed");
            }
        }
    }

    @Test
    void mutualTlsRequiredClosesAClientWithoutCertificateAndEchoesOneWithIt() throws Exception {
        String without = sClient(mutualPort, "no certificate here", "-servername", "gw.example");
        assertFalse(without.contains("no certificate here"), "nothing echoed:\n" + without);
        String line = awaitLine("TLS handshake failed on /127.0.0.1:" + mutualPort);
        assertTrue(line.contains("closed the connection"), line);
        String with = sClient(mutualPort, "with a certificate", "-servername", "gw.example", "-cert",
                pki.resolve("client.pem").toString(), "-key", pki.resolve("client.key").toString());
        assertTrue(with.contains("with a certificate"), with);
    }

    @Test
    void plainTextAndAGarbageClientHelloAreClosedWithOneRateLimitedLine() throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), badInputPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            drainToEnd(s.getInputStream());
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), badInputPort)) {
            s.setSoTimeout(10_000);
            // a handshake record whose body is no ClientHello
            byte[] garbage = {0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0x00, 0x00, 0x04, 'j', 'u', 'n', 'k'};
            s.getOutputStream().write(garbage);
            drainToEnd(s.getInputStream());
        }
        String line = awaitLine("TLS handshake failed on /127.0.0.1:" + badInputPort);
        assertTrue(line.contains("not TLS: the first byte is no TLS record type"), line);
        Thread.sleep(500);
        String out = gateway.output();
        assertEquals(1, count(out, "TLS handshake failed on /127.0.0.1:" + badInputPort),
                "the second failure is counted, not logged at once:\n" + out);
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
        // both failures are counted for that listener in the metrics endpoint's scrape
        String scrape = scrape();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^conduit_gateway_tls_handshake_failures_total"
                + "\\{[^}]*listen=\"tls://127\\.0\\.0\\.1:" + badInputPort + "\",side=\"client\"} (\\S+)$")
                .matcher(scrape);
        assertTrue(m.find(), scrape);
        assertEquals(2, (int) Double.parseDouble(m.group(1)), scrape);
    }

    /** @return the text of {@code GET /metrics} on the gateway's metrics endpoint */
    private static String scrape() throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), metricsPort)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void sniRoutingForwardsEachConnectionUntouchedToTheUpstreamOfItsServerName() throws Exception {
        assertTrue(gateway.output().contains("tcp://127.0.0.1:" + sniRelayPort + " -> tcp://127.0.0.1:"
                + untrustedServerPort + " (by SNI: a.example -> tcp://127.0.0.1:" + aServerPort + ", b.example -> unix:"
                + bServerSocket + ")"), gateway.output());
        // the TLS session is between s_client and s_server: the certificate is the upstream's, the line comes back
        // reversed by s_server
        String a = sClientAnswered(sniRelayPort, "route me", "em etuor", "-servername", "a.example");
        assertTrue(a.contains("em etuor"), a);
        assertTrue(a.lines().anyMatch(l -> l.startsWith("subject=") && l.contains("a.example")), a);
        assertTrue(a.contains("Verify return code: 0 (ok)"), a);
        String b = sClientAnswered(sniRelayPort, "route me", "em etuor", "-servername", "b.example");
        assertTrue(b.contains("em etuor"), b);
        assertTrue(b.lines().anyMatch(l -> l.startsWith("subject=") && l.contains("b.example")), b);
        String other = sClientAnswered(sniRelayPort, "route me", "em etuor", "-servername", "c.example");
        assertTrue(other.lines().anyMatch(l -> l.startsWith("issuer=") && l.contains("Unknown CA")),
                "an unlisted name goes to 'upstream':\n" + other);
    }

    @Test
    void certificateFilesReplacedOnDiskAreUsedByNewHandshakesAndABrokenOneKeepsTheOld() throws Exception {
        String before = sClient(reloadPort, "before", "-servername", "gw.example");
        assertTrue(before.lines().anyMatch(l -> l.startsWith("subject=") && l.contains("gw.example")), before);
        Path chain = conf.resolve("live.pem");
        replace(chain, "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n");
        Thread.sleep(TimeUnit.SECONDS.toMillis(5) + 500); // the gateway looks at the files at most every 5 s
        // (not a word starting with k, Q or R: s_client takes such a line as a command)
        String kept = sClient(reloadPort, "still served", "-servername", "gw.example");
        assertTrue(kept.contains("still served") && kept.lines().anyMatch(l -> l.startsWith("subject=")
                && l.contains("gw.example")), "the broken file is not used:\n" + kept);
        String line = awaitLine("TLS files changed but cannot be used");
        assertTrue(line.contains(chain.toString()) && line.contains("keep the certificate loaded before"), line);

        replace(conf.resolve("live.key"), Files.readString(pki.resolve("renewed.key")));
        replace(chain, Files.readString(pki.resolve("renewed.pem")));
        Thread.sleep(TimeUnit.SECONDS.toMillis(5) + 500);
        String after = sClient(reloadPort, "after", "-servername", "gw.example");
        assertTrue(after.contains("after") && after.lines().anyMatch(l -> l.startsWith("subject=")
                && l.contains("renewed.example")), "a new handshake shows the new certificate:\n" + after);
        assertTrue(awaitLine("TLS files changed, new handshakes use them").contains("CN=renewed.example"));
    }

    @Test
    void redisBenchmarkOverTlsThroughATerminatingRelayHasNoErrorsWhileTheCertificateIsRenewed() throws Exception {
        // both looked up before skipping, so one run names every redis tool that is missing
        Path server = Tools.optional("redis-server", "redis-server");
        Path benchmark = Tools.optional("redis-benchmark", "redis-tools");
        org.junit.jupiter.api.Assumptions.assumeTrue(server != null && benchmark != null,
                "redis-server and redis-benchmark are needed");
        Process redis = new ProcessBuilder(server.toString(), "--port", String.valueOf(redisPort), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        PROCESSES.add(redis);
        awaitTcp(redisPort);
        Tools.Background bench = Tools.start(List.of(benchmark.toString(), "--tls", "--cacert",
                pki.resolve("ca.pem").toString(), "--sni", "gw.example", "-h", "127.0.0.1", "-p",
                String.valueOf(redisRelayPort), "-n", "400000", "-c", "20", "-P", "4", "-t", "set,get", "-q"));
        Thread.sleep(1000);
        replace(conf.resolve("redis.key"), Files.readString(pki.resolve("renewed.key")));
        replace(conf.resolve("redis.pem"), Files.readString(pki.resolve("renewed.pem")));
        boolean runningDuringTheRenewal = bench.isRunning();
        Thread.sleep(TimeUnit.SECONDS.toMillis(5) + 500);
        String after = sClientAnswered(redisRelayPort, "PING", "+PONG", "-servername", "gw.example");
        assertTrue(after.lines().anyMatch(l -> l.startsWith("subject=") && l.contains("renewed.example")),
                "a new handshake shows the new certificate:\n" + after);
        String out = bench.await(240);
        assertTrue(out.startsWith("exit 0"), out);
        assertFalse(out.toLowerCase(java.util.Locale.ROOT).contains("error"), out);
        assertTrue(out.contains("SET: ") && out.contains("GET: "), out);
        assertTrue(runningDuringTheRenewal, "the benchmark ended before the certificate was renewed; output:\n" + out);
        System.out.println("redis-benchmark --tls through the relay: " + java.util.Arrays.stream(out.split("[\r\n]"))
                .filter(l -> l.contains("requests per second")).map(String::strip).toList());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Replaces a file as a renewal tool does: written aside, then renamed over it. */
    private static void replace(Path file, String content) throws IOException {
        Path aside = file.resolveSibling(file.getFileName() + ".new");
        Files.writeString(aside, content);
        Files.move(aside, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** Makes a CA, the gateway's certificate (gw.example, 127.0.0.1), a client certificate and the bad files. */
    private static void makePki() throws Exception {
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
                "-out", "ca.pem", "-days", "30", "-subj", "/CN=Conduit Test CA");
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "other-ca.key", "-out", "other-ca.pem", "-days", "30", "-subj", "/CN=Unknown CA");
        Files.writeString(pki.resolve("server.ext"), "subjectAltName=DNS:gw.example,IP:127.0.0.1\n");
        Files.writeString(pki.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
        issue("server", "/CN=gw.example", "ca", "server.ext", "30");
        issue("client", "/CN=device-1", "ca", "client.ext", "30");
        issue("other-server", "/CN=gw.example", "other-ca", "server.ext", "30");
        Files.writeString(pki.resolve("a.ext"), "subjectAltName=DNS:a.example\n");
        Files.writeString(pki.resolve("b.ext"), "subjectAltName=DNS:b.example\n");
        issue("a", "/CN=a.example", "ca", "a.ext", "30");
        issue("b", "/CN=b.example", "ca", "b.ext", "30");
        issue("renewed", "/CN=renewed.example", "ca", "server.ext", "60");
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "expired.pem", "-days", "-1", "-extfile", "server.ext");
        openssl("pkcs8", "-topk8", "-in", "server.key", "-out", "server-enc.key", "-v2", "aes-256-cbc", "-passout",
                "pass:s3cret");
    }

    private static void issue(String name, String subject, String ca, String ext, String days) throws Exception {
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", name + ".key",
                "-out", name + ".csr", "-subj", subject);
        openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial",
                "-out", name + ".pem", "-days", days, "-extfile", ext);
    }

    private static void openssl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(openssl.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(pki.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(cmd + " failed:\n" + out);
        }
    }

    private static Process sServer(int port, String cert, String... more) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(openssl.toString(), "s_server", "-accept", "127.0.0.1:" + port,
                "-cert", pki.resolve(cert + ".pem").toString(), "-key", pki.resolve(cert + ".key").toString(),
                "-rev", "-quiet"));
        cmd.addAll(List.of(more));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("s_server-" + port + ".log").toFile()).start();
    }

    private static Process sServerOnUnixSocket(Path socket, String cert) throws IOException {
        return new ProcessBuilder(openssl.toString(), "s_server", "-unix", socket.toString(), "-cert",
                pki.resolve(cert + ".pem").toString(), "-key", pki.resolve(cert + ".key").toString(), "-rev", "-quiet")
                .redirectErrorStream(true).redirectOutput(dir.resolve("s_server-" + cert + ".log").toFile()).start();
    }

    /** {@link #sClientAnswered} against an echo: the line comes back as it is. */
    private static String sClient(int port, String line, String... options) throws Exception {
        return sClientAnswered(port, line, line, options);
    }

    /**
     * Runs {@code openssl s_client} against a gateway port: writes {@code line}, waits (at most 10 s) until
     * {@code answer} or the end of the connection shows in the output, then ends its input.
     *
     * @return what s_client printed
     */
    private static String sClientAnswered(int port, String line, String answer, String... options)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(openssl.toString(), "s_client", "-connect", "127.0.0.1:" + port,
                "-CAfile", pki.resolve("ca.pem").toString()));
        cmd.addAll(List.of(options));
        Path log = Files.createTempFile(dir, "s_client-", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline && p.isAlive()) {
                if (Files.readString(log).contains(answer)) {
                    break; // answered (s_client does not print what it sends)
                }
                Thread.sleep(50);
            }
        }
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        return Files.readString(log);
    }

    private static void write(Path conf, String name, String... lines) throws IOException {
        Files.writeString(conf.resolve("io.conduit.gateway." + name + ".cfg"), String.join("\n", lines) + "\n");
    }

    /** Asserts that the configuration {@code name} failed with a problem line that contains {@code text}. */
    private static void assertProblem(String out, String name, String text) {
        String file = "io.conduit.gateway." + name + ".cfg";
        assertTrue(out.lines().anyMatch(l -> l.contains(file) && l.contains("bad configuration: TLS of listen")
                && l.contains(text)), file + ": " + text + "\n" + out);
    }

    /** @return the first gateway output line containing {@code part}, waiting at most 15 s for it */
    private static String awaitLine(String part) throws InterruptedException {
        Predicate<String> has = l -> l.contains(part);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            String found = gateway.output().lines().filter(has).findFirst().orElse(null);
            if (found != null) {
                return found;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no line with '" + part + "' within 15 s:\n" + gateway.output());
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            sb.append((char) b);
        }
        return sb.toString();
    }

    /** Reads until the gateway closes the connection (an alert may come first); fails when it stays open 10 s. */
    private static void drainToEnd(InputStream in) throws IOException {
        byte[] buf = new byte[1024];
        try {
            while (in.read(buf) >= 0) {
                // the alert
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the gateway did not close the connection within 10 s", e);
        } catch (java.net.SocketException reset) {
            // closed with a reset: closed too
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static void awaitFile(Path socket, Path log) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(socket)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(socket + " not made after 20 s; its server printed:\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
    }

    private static void awaitTcp(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("nothing listens on 127.0.0.1:" + port + " after 20 s");
    }
}
