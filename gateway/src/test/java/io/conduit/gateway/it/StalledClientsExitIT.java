package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code exit} while clients are connected but stalled (they send, and neither read nor close) returns within a few
 * seconds, with one WARNING line naming the endpoints whose connections were then closed at once.
 *
 * <p>The story: a fresh user's {@code exit} with such clients on two echo endpoints took 20 to 30 s and logged
 * nothing: each endpoint's close drained its connections, which waited for the clients to read up to the listener's
 * grace period (10 s), and the endpoints were closed one after another, each waited for up to 15 s.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StalledClientsExitIT {

    private static final int CLIENTS_PER_ENDPOINT = 5;
    /** Longest time {@code exit} may take with stalled clients, in milliseconds: the close bound and some margin. */
    private static final long EXIT_WITHIN_MILLIS = 8_000;

    @TempDir
    Path home;

    @Test
    void exitWithStalledClientsOnTwoEndpointsReturnsWithinSecondsAndNamesThem() throws Exception {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        int[] ports = {Tools.freeTcpPort(), Tools.freeTcpPort()};
        for (int i = 0; i < ports.length; i++) {
            Files.writeString(conf.resolve("io.conduit.gateway.echo-stalled" + i + ".cfg"),
                    "listen = tcp://127.0.0.1:" + ports[i] + "\n");
        }
        ProcessBuilder pb = new ProcessBuilder(GatewayProcess.distribution().resolve("bin/conduit-gateway").toString(),
                "--shell", "--conf", conf.toString()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JAVA_OPTS", "-Dconduit.gateway.home=" + home);
        Process p = pb.start();
        StringBuffer output = new StringBuffer();
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
                    p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.append(line).append('\n');
                    if (line.startsWith("Ready:")) {
                        ready.countDown();
                    }
                }
            } catch (IOException gone) {
                // the process is gone
            }
        }, "gateway-output");
        reader.setDaemon(true);
        reader.start();
        List<Socket> clients = new ArrayList<>();
        try {
            assertTrue(ready.await(60, TimeUnit.SECONDS) && p.isAlive(), "no banner:\n" + output);
            for (int port : ports) {
                for (int i = 0; i < CLIENTS_PER_ENDPOINT; i++) {
                    clients.add(stalledClient(port));
                }
            }
            Thread.sleep(1_000); // the echoes fill the clients' receive buffers and then their own
            OutputStream stdin = p.getOutputStream();
            long start = System.nanoTime();
            stdin.write("exit 0\n".getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            boolean exited = p.waitFor(60, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(exited, "the gateway did not exit within 60 s of exit:\n" + output);
            reader.join(10_000);
            String out = output.toString();
            assertEquals(0, p.exitValue(), out);
            assertTrue(tookMillis < EXIT_WITHIN_MILLIS, "exit took " + tookMillis + " ms:\n" + out);
            List<String> warnings = out.lines().filter(l -> l.contains("closing took more than")).toList();
            assertEquals(1, warnings.size(), "one line for both endpoints:\n" + out);
            for (int port : ports) {
                assertTrue(warnings.get(0).contains("tcp://127.0.0.1:" + port + " ("), warnings.get(0));
            }
            assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * @return a client of the echo on {@code port} that sends without end (on a thread of its own) and never reads,
     *         with a small receive buffer, so the echo's writes to it stall
     */
    static Socket stalledClient(int port) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        Thread writer = new Thread(() -> {
            byte[] chunk = new byte[64 * 1024];
            try {
                OutputStream out = s.getOutputStream();
                while (true) {
                    out.write(chunk); // blocks once the echo stops reading
                }
            } catch (IOException closed) {
                // the gateway closed it, or the test did
            }
        }, "stalled-client-" + port);
        writer.setDaemon(true);
        writer.start();
        return s;
    }
}
