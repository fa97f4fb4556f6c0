package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -Dconduit.gateway.bannerTimeoutMillis} in the distribution: a malformed or non-positive value stops the
 * launcher with status 2 and one line naming the property, the value and what is allowed; a banner whose time is up
 * before the configuration reported says what is still starting (no bundle reported as a problem for not having
 * started yet), and once the endpoints listen a later line says so.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BannerTimeoutIT {

    @TempDir
    Path conf;

    @Test
    void aMalformedOrNonPositiveTimeoutIsOneLineAndStatus2() throws Exception {
        for (String value : new String[] {"abc", "-5", "0"}) {
            GatewayProcess.Exit exit = GatewayProcess.runToExit("-Dconduit.gateway.bannerTimeoutMillis=" + value);
            assertEquals(2, exit.status(), exit.output());
            assertEquals("conduit-gateway: system property conduit.gateway.bannerTimeoutMillis='" + value + "' is not "
                    + "valid; allowed values: a whole number of milliseconds from 1 to 2147483647 (how long the banner "
                    + "waits for the configurations to report); default: 15000\n", exit.output());
        }
    }

    @Test
    void aBannerWhoseTimeIsUpSaysWhatIsStillStartingAndALaterLineWhenItListens() throws Exception {
        int port = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-late.cfg"), "listen = tcp://127.0.0.1:" + port + "\n");
        try (GatewayProcess g = GatewayProcess.start(conf, "-Dconduit.gateway.bannerTimeoutMillis=1")) {
            String all = g.output();
            String banner = all.substring(0, all.indexOf('\n', all.indexOf("Ready: ")) + 1); // later lines may follow
            System.out.println(banner);
            assertTrue(banner.contains("  still starting after 1 ms (conduit.gateway.bannerTimeoutMillis): "), banner);
            assertTrue(banner.contains("io.conduit.gateway.echo-late.cfg; reported below once up\n"), banner);
            assertTrue(banner.contains("problem(s) so far; configuration in "), banner);
            assertFalse(banner.contains("is not active"), "no bundle is a problem for starting later:\n" + banner);
            assertFalse(banner.contains("network did not start"), banner);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!g.output().contains("\nReady after ")) {
                assertTrue(System.nanoTime() - deadline < 0, "no later line within 30 s:\n" + g.output());
                Thread.sleep(100);
            }
            String out = g.output();
            String late = out.substring(banner.length());
            assertTrue(late.contains("  listening echo  tcp://127.0.0.1:" + port + "  (io.conduit.gateway.echo-late.cfg)\n"),
                    out);
            assertTrue(late.matches("(?s).*\nReady after \\d+ ms: 1 endpoint\\(s\\) listening, 0 problem\\(s\\)\n.*"), out);
            if (banner.contains("transport: not selected yet (still starting)")) {
                assertTrue(late.contains("transport: "), "the transport, once selected:\n" + out);
            }
            byte[] text = "late but listening".getBytes(StandardCharsets.UTF_8);
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(text);
                s.shutdownOutput();
                assertArrayEquals(text, s.getInputStream().readAllBytes());
            }
        }
    }
}
