package io.conduit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The echo server behind the proxies of {@code relay.sh} ({@code target/echoserver}): it echoes bytes, skips a PROXY
 * protocol header of version 1 or 2 at the start of a connection, and closes one whose header is malformed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EchoServerSmokeTest {

    private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54,
        0x0A};

    private static Process server;
    private static int port;

    @BeforeAll
    static void start() throws IOException {
        Path binary = Paths.get(System.getProperty("bench.loadgen", "target/loadgen")).resolveSibling("echoserver");
        assertTrue(Files.isExecutable(binary), "echo server not built at " + binary.toAbsolutePath());
        server = new ProcessBuilder(binary.toString(), "0").redirectErrorStream(true).start();
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
        assertTrue(line != null && line.startsWith("LISTENING "), "first line: " + line);
        port = Integer.parseInt(line.substring("LISTENING ".length()));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (server != null) {
            server.destroy();
            assertTrue(server.waitFor(10, TimeUnit.SECONDS), "the echo server ends on SIGTERM");
            assertEquals(0, server.exitValue());
        }
    }

    /** Sends {@code input}, half-closes, and returns everything that came back before the server closed. */
    private static byte[] exchange(byte[]... input) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            for (byte[] part : input) {
                s.getOutputStream().write(part);
                s.getOutputStream().flush();
            }
            s.shutdownOutput();
            return readUntilClosedOrQuiet(s.getInputStream(), s);
        }
    }

    /** The echo server keeps a half-closed connection open: read what comes within a short quiet period. */
    private static byte[] readUntilClosedOrQuiet(InputStream in, Socket s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        s.setSoTimeout(500);
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
        } catch (java.net.SocketTimeoutException quiet) {
            // nothing more is coming
        }
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void echoesBytesWithoutAHeader() throws IOException {
        byte[] data = new byte[50_000];
        Arrays.fill(data, (byte) 'x');
        assertArrayEquals(data, exchange(data));
    }

    @Test
    void skipsAVersion1HeaderEvenWhenItArrivesInPieces() throws IOException {
        assertArrayEquals(ascii("hello"),
                exchange(ascii("PROXY TCP4 127.0.0.1 127.0.0.1 40000 "), ascii("7007\r\nhel"), ascii("lo")));
    }

    @Test
    void skipsAVersion2HeaderWithItsAddresses() throws IOException {
        byte[] header = Arrays.copyOf(V2_SIGNATURE, 28);
        header[12] = 0x21; // version 2, PROXY
        header[13] = 0x11; // TCP over IPv4
        header[15] = 12; // two addresses and two ports
        assertArrayEquals(ascii("ping"), exchange(header, ascii("ping")));
    }

    @Test
    void closesAConnectionWithAMalformedHeader() throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(ascii("PRXY nonsense\r\nhello"));
            assertEquals(-1, s.getInputStream().read(), "closed, nothing echoed");
        }
    }
}
