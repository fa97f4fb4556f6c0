package io.conduit.benchmarks;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seconds-long checks of the framed and TLS echo contenders: the load generator's framed mode against the framed
 * echo servers of both sides, and the TLS load client against both TLS echo servers (NIO transport, in process).
 * Nothing is measured or timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FramedAndTlsLoadSmokeTest {

    @TempDir
    static Path dir;
    private static Path loadgen;
    private static Path keyStore;

    @BeforeAll
    static void makeKeyStore() throws Exception {
        loadgen = Paths.get(System.getProperty("bench.loadgen", "target/loadgen"));
        keyStore = dir.resolve("bench.p12");
        Process p = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "bench", "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg",
                "SHA256withECDSA", "-dname", "CN=localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                keyStore.toString(), "-storepass", EchoServer.DEFAULT_TLS_PASSWORD).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool did not finish");
        assertEquals(0, p.exitValue(), "keytool: " + output);
        System.setProperty("bench.tls.keyStore", keyStore.toString());
    }

    @AfterAll
    static void clearProperty() {
        System.clearProperty("bench.tls.keyStore");
    }

    private static Map<String, String> loadgen(int port, String... args) throws Exception {
        return LoadGeneratorSmokeTest.run(loadgen, port, args);
    }

    private static void framedEcho(EchoServer.Implementation server) throws Exception {
        try (server) {
            int port = server.start(1);
            Map<String, String> pp = loadgen(port, "pingpong", "4", "300", "64", "framed");
            assertEquals("1", pp.get("framed"));
            assertTrue(Long.parseLong(pp.get("ops")) > 10, "framed round trips: " + pp.get("ops"));
            assertEquals("0", pp.get("errors"));
            Map<String, String> st = loadgen(port, "stream", "2", "300", "65536", "framed");
            assertTrue(Long.parseLong(st.get("bytes")) > 65536, "echoed framed bytes: " + st.get("bytes"));
        }
    }

    @Test
    void conduitFramedEchoAnswersSplitFrames() throws Exception {
        framedEcho(new ConduitEchoServer("nio", EchoServer.Pipeline.FRAMED));
    }

    @Test
    void nettyFramedEchoAnswersSplitFrames() throws Exception {
        framedEcho(new NettyEchoServer("nio", EchoServer.Pipeline.FRAMED));
    }

    @Test
    void framedLoadIsRejectedWhereItCannotStayFramed() throws Exception {
        // A stream block that is not whole 64-byte frames, and a message too short to split, are usage errors.
        for (String[] args : List.of(new String[] {"stream", "1", "100", "1000", "framed"},
                new String[] {"pingpong", "1", "100", "7", "framed"})) {
            List<String> command = new ArrayList<>(List.of(loadgen.toString(), args[0], "127.0.0.1", "9"));
            command.addAll(List.of(args).subList(1, args.length));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
            assertEquals(1, p.exitValue(), output);
            assertTrue(output.contains("framed"), output);
        }
    }

    private static void tlsEcho(EchoServer.Implementation server) throws Exception {
        try (server) {
            int port = server.start(1);
            Process client = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), TlsLoadClient.class.getName())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(),
                        StandardCharsets.UTF_8));
                OutputStream in = client.getOutputStream();
                Map<String, String> pp = stepUntil(in, out, "pingpong " + port + " 2 64", "ops");
                assertTrue(Long.parseLong(pp.get("ops")) > 0, "TLS round trips: " + pp);
                assertEquals("0", pp.get("errors"));
                Map<String, String> st = stepUntil(in, out, "stream " + port + " 1 65536", "bytes");
                assertTrue(Long.parseLong(st.get("bytes")) > 0, "TLS echoed bytes: " + st);
                assertEquals("0", st.get("errors"));
                Map<String, String> hs = stepUntil(in, out, "handshake " + port + " 2 0", "ops");
                assertTrue(Long.parseLong(hs.get("ops")) > 0, "full handshakes: " + hs);
                in.close();
                assertTrue(client.waitFor(20, TimeUnit.SECONDS), "TLS client did not exit at end of input");
                assertEquals(0, client.exitValue());
            } finally {
                client.destroyForcibly();
            }
        }
    }

    /**
     * Repeats a 400 ms step until its {@code counted} figure is above 0, at most 20 times: on a busy machine a cold
     * JVM (a fresh client, a server on JDK 25 before its JIT warmed up) may echo nothing in its first 400 ms, which
     * says nothing about whether the two speak TLS to each other (seen once in a run without the optional tools:
     * {@code bytes=0, written=524288}).
     */
    private static Map<String, String> stepUntil(OutputStream in, BufferedReader out, String prepare, String counted)
            throws Exception {
        Map<String, String> r = step(in, out, prepare);
        for (int i = 1; i < 20 && Long.parseLong(r.get(counted)) == 0 && "0".equals(r.get("errors")); i++) {
            r = step(in, out, prepare);
        }
        return r;
    }

    private static Map<String, String> step(OutputStream in, BufferedReader out, String prepare) throws Exception {
        String[] w = prepare.split(" ");
        in.write(("prepare " + w[0] + " 127.0.0.1 " + w[1] + " " + w[2] + " " + w[3] + "\ngo 400\n")
                .getBytes(StandardCharsets.US_ASCII));
        in.flush();
        assertEquals("PREPARED", out.readLine());
        String result = out.readLine();
        assertTrue(result != null && result.startsWith("RESULT mode=" + w[0] + " "), "TLS client printed " + result);
        return ProcFacts.keyValues(result);
    }

    @Test
    void conduitTlsEchoServesTheTlsLoadClient() throws Exception {
        tlsEcho(new ConduitEchoServer("nio", EchoServer.Pipeline.TLS));
    }

    @Test
    void nettyTlsEchoServesTheTlsLoadClient() throws Exception {
        tlsEcho(new NettyEchoServer("nio", EchoServer.Pipeline.TLS));
    }

    @Test
    void serverKindsNameTheirPipeline() throws Exception {
        assertTrue(EchoServer.create("conduit-epoll-framed") instanceof ConduitEchoServer);
        assertTrue(EchoServer.create("netty-nio-tls") instanceof NettyEchoServer);
        assertTrue(EchoServer.create("netty-epoll-tls-openssl") instanceof NettyEchoServer);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EchoServer.create("conduit-epoll-tls-openssl"));
        assertTrue(e.getMessage().contains("conduit-epoll-tls-openssl"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EchoServer.create("netty-epoll-gzip"));
    }
}
