package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PROXY protocol keys of a relay with real software: HAProxy ({@code send-proxy-v2}) in front of a relay with
 * {@code proxy.protocol.accept = v2} and {@code proxy.protocol.send = v1}, whose upstream (a test server) reads the
 * original client's address; a relay with {@code proxy.protocol.send = v1} to nginx ({@code listen … proxy_protocol}),
 * whose access log shows the client's address; and malformed headers, which reach no upstream. Loopback only.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ProxyProtocolIT {

    @TempDir
    static Path dir;

    private static GatewayProcess gateway;
    private static ServerSocket upstream;
    private static int acceptRelayPort;
    private static int nginxRelayPort;
    private static int nginxPort;
    private static final AtomicInteger UPSTREAM_CONNECTIONS = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptRelayPort = Tools.freeTcpPort();
        nginxRelayPort = Tools.freeTcpPort();
        nginxPort = Tools.freeTcpPort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.relay-accept.cfg"), "listen = tcp://127.0.0.1:"
                + acceptRelayPort + "\nupstream = tcp://127.0.0.1:" + upstream.getLocalPort()
                + "\nproxy.protocol.accept = v2\nproxy.protocol.send = v1\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-nginx.cfg"), "listen = tcp://127.0.0.1:"
                + nginxRelayPort + "\nupstream = tcp://127.0.0.1:" + nginxPort + "\nproxy.protocol.send = v1\n");
        gateway = GatewayProcess.start(conf);
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    /** @return the first line the next upstream connection sends (at most 10 s) */
    private static String firstUpstreamLine() throws IOException {
        upstream.setSoTimeout(10_000);
        try (Socket s = upstream.accept()) {
            UPSTREAM_CONNECTIONS.incrementAndGet();
            s.setSoTimeout(10_000);
            return readLine(s.getInputStream());
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n' && b.length() < 300) {
            b.append((char) c);
        }
        return b.toString().strip();
    }

    @Test
    void haproxyWithSendProxyV2InFrontOfTheRelayThenV1ToTheUpstreamNamesTheOriginalClient() throws Exception {
        Path haproxy = Tools.require("haproxy", "haproxy");
        int haproxyPort = Tools.freeTcpPort();
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, String.join("\n", "global", "    maxconn 100", "defaults", "    mode tcp",
                "    timeout connect 5s", "    timeout client 30s", "    timeout server 30s",
                "frontend fe", "    bind 127.0.0.1:" + haproxyPort, "    default_backend be",
                "backend be", "    server gw 127.0.0.1:" + acceptRelayPort + " send-proxy-v2", ""));
        Process p = new ProcessBuilder(haproxy.toString(), "-db", "-f", cfg.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        try {
            Socket client = connectWhenListening(haproxyPort, p, dir.resolve("haproxy.log"));
            try (client) {
                client.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
                String line = firstUpstreamLine();
                assertEquals("PROXY TCP4 127.0.0.1 127.0.0.1 " + client.getLocalPort() + " " + haproxyPort, line,
                        "the upstream sees the client's port, not HAProxy's outgoing one");
            }
        } finally {
            stop(p);
        }
    }

    @Test
    void nginxWithProxyProtocolLogsTheClientAddressTheRelaySent() throws Exception {
        Path nginx = Tools.require("nginx", "nginx-light");
        Path prefix = Files.createDirectories(dir.resolve("nginx"));
        Path access = prefix.resolve("access.log");
        Path cfg = prefix.resolve("nginx.conf");
        Files.writeString(cfg, String.join("\n", "daemon off;", "master_process off;",
                "pid " + prefix.resolve("nginx.pid") + ";", "error_log " + prefix.resolve("error.log") + ";",
                "events { worker_connections 64; }", "http {",
                "  log_format pp '$proxy_protocol_addr:$proxy_protocol_port $remote_addr \"$request\" $status';",
                "  access_log " + access + " pp;",
                "  client_body_temp_path " + prefix.resolve("body") + ";",
                "  proxy_temp_path " + prefix.resolve("proxy") + ";",
                "  fastcgi_temp_path " + prefix.resolve("fastcgi") + ";",
                "  uwsgi_temp_path " + prefix.resolve("uwsgi") + ";",
                "  scgi_temp_path " + prefix.resolve("scgi") + ";",
                "  server { listen 127.0.0.1:" + nginxPort + " proxy_protocol; location / { return 200 'ok\\n'; } }",
                "}", ""));
        Process p = new ProcessBuilder(nginx.toString(), "-p", prefix.toString(), "-c", cfg.toString())
                .redirectErrorStream(true).redirectOutput(prefix.resolve("stdout.log").toFile()).start();
        try {
            connectWhenListening(nginxPort, p, prefix.resolve("error.log")).close();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), nginxRelayPort)) {
                client.setSoTimeout(10_000);
                client.getOutputStream().write("GET /pp HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                String status = readLine(client.getInputStream());
                assertEquals("HTTP/1.1 200 OK", status);
                String expected = "127.0.0.1:" + client.getLocalPort() + " 127.0.0.1 \"GET /pp HTTP/1.0\" 200";
                String log = "";
                for (int i = 0; i < 100 && !log.contains(expected); i++) {
                    Thread.sleep(100);
                    log = Files.exists(access) ? Files.readString(access) : "";
                }
                assertTrue(log.contains(expected), "nginx access log:\n" + log);
            }
        } finally {
            stop(p);
        }
    }

    /** Truncated, wrong signature, bad length, bad CRC: each closes the client, and no upstream connection is made. */
    @Test
    void malformedHeadersCloseTheClientAndReachNoUpstream() throws Exception {
        byte[] sig = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
        byte[] badLength = concat(sig, new byte[] {0x21, 0x11, 0x00, 0x04, 1, 2, 3, 4});
        byte[] badCrc = concat(sig, new byte[] {0x21, 0x11, 0x00, 0x13, 127, 0, 0, 1, 127, 0, 0, 1, 0x30, 0x39, 0x01,
            (byte) 0xBB, 0x03, 0x00, 0x04, 0x12, 0x34, 0x56, 0x78});
        List<byte[]> inputs = List.of(java.util.Arrays.copyOf(sig, 8), "GET / HTTP/1.0\r\n\r\n".getBytes(
                StandardCharsets.US_ASCII), badLength, badCrc);
        int before = UPSTREAM_CONNECTIONS.get();
        for (byte[] input : inputs) {
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), acceptRelayPort)) {
                client.setSoTimeout(10_000);
                client.getOutputStream().write(input);
                client.shutdownOutput();
                int r;
                try {
                    r = client.getInputStream().read();
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("not closed after " + java.util.HexFormat.of().formatHex(input)
                            + "; gateway:\n" + gateway.output(), e);
                }
                assertEquals(-1, r, () -> "the relay closes the connection after "
                        + java.util.HexFormat.of().formatHex(input));
            }
        }
        upstream.setSoTimeout(500);
        try (Socket s = upstream.accept()) {
            throw new AssertionError("an upstream connection was made for a malformed header: " + s);
        } catch (SocketTimeoutException expected) {
            // nothing reached the upstream
        }
        assertEquals(before, UPSTREAM_CONNECTIONS.get());
        String out = "";
        for (int i = 0; i < 50 && !out.contains("malformed PROXY protocol header from /127.0.0.1:"); i++) {
            Thread.sleep(100);
            out = gateway.output();
        }
        assertTrue(out.contains("malformed PROXY protocol header from /127.0.0.1:"), out);
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** @return a connection to {@code port} once {@code server} listens there (at most 10 s) */
    private static Socket connectWhenListening(int port, Process server, Path log) throws Exception {
        for (int i = 0; i < 100; i++) {
            if (!server.isAlive()) {
                throw new AssertionError("server exited with " + server.exitValue() + ": "
                        + (Files.exists(log) ? Files.readString(log) : ""));
            }
            try {
                return new Socket(InetAddress.getLoopbackAddress(), port);
            } catch (java.net.ConnectException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("nothing listens on " + port + " after 10 s: " + (Files.exists(log)
                ? Files.readString(log) : ""));
    }
}
