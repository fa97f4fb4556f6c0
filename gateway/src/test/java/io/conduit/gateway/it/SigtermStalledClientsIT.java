package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a {@code --no-shell} gateway with stalled clients (they send, and neither read nor close) prints the
 * WARNING line that names the endpoints whose connections were closed at once, as {@code exit 0} does
 * ({@link StalledClientsExitIT}), and the process exits with status 143.
 *
 * <p>The story: a fresh user's trial with 6 to 10 such clients saw status 143 after about 3.1 s but no WARNING line,
 * and no held-back counts of rate-limited lines either. The JDK's java.util.logging shutdown hook closed the log
 * handlers while the launcher's hook was still stopping the framework; the launcher's LogManager now waits for that
 * hook. {@link GatewayProcess#terminate()} sends SIGTERM through the process handle: {@link Process#destroy()}
 * closes the test's ends of the pipes, so it would lose what the gateway prints while it stops.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SigtermStalledClientsIT {

    private static final int CLIENTS = 8;
    /** Longest time from SIGTERM to exit with stalled clients, in milliseconds: the close bound and some margin. */
    private static final long EXIT_WITHIN_MILLIS = 8_000;

    @TempDir
    Path home;

    @Test
    void sigtermWithStalledClientsLogsTheWarningAndExits() throws Exception {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        int port = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-sigterm.cfg"), "listen = tcp://127.0.0.1:" + port
                + "\n");
        List<Socket> clients = new ArrayList<>();
        GatewayProcess gateway = GatewayProcess.start(conf, "-Dconduit.gateway.home=" + home);
        try {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(StalledClientsExitIT.stalledClient(port));
            }
            Thread.sleep(1_000); // the echoes fill the clients' receive buffers and then their own
            long start = System.nanoTime();
            GatewayProcess.Exit exit = gateway.terminate();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            String out = exit.output();
            assertEquals(143, exit.status(), out);
            assertTrue(tookMillis < EXIT_WITHIN_MILLIS, "SIGTERM took " + tookMillis + " ms:\n" + out);
            List<String> warnings = out.lines().filter(l -> l.contains("closing took more than")).toList();
            assertEquals(1, warnings.size(), "the WARNING line, as on exit 0:\n" + out);
            assertTrue(warnings.get(0).contains(" WARNING "), warnings.get(0));
            assertTrue(warnings.get(0).contains("tcp://127.0.0.1:" + port + " ("), warnings.get(0));
            assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            gateway.close();
        }
    }
}
