package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The distribution with its default configuration: the echo service answers on TCP, UDP and a Unix socket, and the
 * metrics endpoint on 127.0.0.1:9464.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EchoDistributionIT {

    private static GatewayProcess gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = GatewayProcess.start(null);
        System.out.println(gateway.output());
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void bannerNamesTheTransportTheThreeEchoEndpointsAndTheMetricsUrl() {
        String banner = gateway.output();
        assertTrue(banner.contains("transport: nio") || banner.contains("transport: epoll"), banner);
        assertTrue(banner.contains("listening echo  tcp://127.0.0.1:7007"), banner);
        assertTrue(banner.contains("listening echo  udp://127.0.0.1:7007"), banner);
        assertTrue(banner.contains("listening echo  unix:" + socketPath()), banner);
        assertTrue(banner.contains("listening metrics tcp://127.0.0.1:9464 (http://127.0.0.1:9464/metrics, /health)  "
                + "(io.conduit.gateway.metrics.cfg)"), banner);
        assertTrue(banner.contains("Ready: 4 endpoint(s) listening, 0 problem(s)"), banner);
    }

    @Test
    void theDefaultMetricsEndpointServesMetricsAndHealth() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .connectTimeout(java.time.Duration.ofSeconds(5)).build();
        java.net.http.HttpResponse<String> metrics = http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:9464/metrics")).timeout(java.time.Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", metrics.headers().firstValue("Content-Type")
                .orElseThrow());
        assertTrue(metrics.body().contains("\nconduit_gateway_endpoint_listening{kind=\"echo\",config=\""
                + "io.conduit.gateway.echo-default.cfg\",listen=\"tcp://127.0.0.1:7007\"} 1\n"), metrics.body());
        java.net.http.HttpResponse<String> health = http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:9464/health")).timeout(java.time.Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode());
        assertEquals("ok\n", health.body());
    }

    @Test
    void tcpEchoesAMegabyteAndHonoursHalfClose() throws Exception {
        byte[] data = random(1 << 20, 1);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 7007), 5000);
            s.setSoTimeout(20_000);
            CompletableFuture<byte[]> echoed = CompletableFuture.supplyAsync(() -> readAll(s));
            s.getOutputStream().write(data);
            s.shutdownOutput(); // half-close: the echo still arrives in full, then EOF
            assertArrayEquals(data, echoed.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void udpEchoesDatagramsToTheSender() throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.setSoTimeout(1000);
            for (int size : new int[] {1, 100, 1400, 8000}) {
                byte[] payload = random(size, size);
                byte[] reply = exchange(s, payload, new InetSocketAddress(InetAddress.getLoopbackAddress(), 7007));
                assertArrayEquals(payload, reply, "datagram of " + size + " bytes");
            }
        }
    }

    @Test
    void unixSocketEchoes() throws Exception {
        byte[] data = random(256 * 1024, 3);
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socketPath()));
            CompletableFuture<byte[]> echoed = CompletableFuture.supplyAsync(() -> readAll(ch));
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.shutdownOutput();
            assertArrayEquals(data, echoed.get(30, TimeUnit.SECONDS));
        }
    }

    static Path socketPath() {
        return GatewayProcess.distribution().resolve("run/echo.sock").toAbsolutePath().normalize();
    }

    /** Sends a datagram and waits for the reply, retrying a few times (UDP may drop, even on loopback). */
    static byte[] exchange(DatagramSocket s, byte[] payload, InetSocketAddress to) throws IOException {
        DatagramPacket in = new DatagramPacket(new byte[65536], 65536);
        for (int attempt = 0; attempt < 5; attempt++) {
            s.send(new DatagramPacket(payload, payload.length, to));
            try {
                s.receive(in);
                byte[] r = new byte[in.getLength()];
                System.arraycopy(in.getData(), in.getOffset(), r, 0, in.getLength());
                return r;
            } catch (SocketTimeoutException e) {
                // retry
            }
        }
        throw new AssertionError("no reply from " + to + " after 5 attempts");
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] readAll(Socket s) {
        try (InputStream in = s.getInputStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] readAll(SocketChannel ch) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(65536);
            while (ch.read(b) >= 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void echoedByteCountMatchesForManySmallWrites() throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), 7007)) {
            s.setSoTimeout(20_000);
            CompletableFuture<byte[]> echoed = CompletableFuture.supplyAsync(() -> readAll(s));
            for (int i = 0; i < 1000; i++) {
                s.getOutputStream().write(("line " + i + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            s.shutdownOutput();
            String text = new String(echoed.get(30, TimeUnit.SECONDS), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(1000, text.lines().count());
        }
    }
}
