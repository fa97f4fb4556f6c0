package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution started with a transport selection that cannot be satisfied: one clear line, no stack trace, a
 * banner naming the selection error as a problem, and (with {@code --no-shell}) exit status 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NoTransportDistributionIT {

    @Test
    void anUnknownStrictTransportStopsTheGatewayWithOneClearProblem() throws Exception {
        GatewayProcess.Exit exit = GatewayProcess.runToExit(
                "-Dconduit.transport=bogus -Dconduit.transport.strict=true");
        String out = exit.output();
        System.out.println(out);
        assertEquals(2, exit.status(), out);
        assertTrue(out.contains("transport: none - "), out);
        assertTrue(out.contains("bogus"), out);
        assertFalse(out.contains("is a transport bundle in bundles/?"), out);
        assertTrue(out.contains("Ready: 0 endpoint(s) listening, 1 problem(s)"), out);
        assertFalse(out.contains("InvocationTargetException"), out);
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
    }

    /**
     * In the interactive shell the gateway keeps running without a network; {@code conduit:gateway} then says that the
     * network is not running and why (the selection error), and lists the configurations of {@code conf/}, instead of
     * "no echo or relay configuration".
     */
    @Test
    void inTheShellConduitGatewaySaysTheNetworkIsNotRunningAndWhyAndListsTheConfigurations(@TempDir Path dir)
            throws Exception {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.echo-first.cfg"), "listen = tcp://127.0.0.1:"
                + Tools.freeTcpPort() + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-second.cfg"), "listen = tcp://127.0.0.1:"
                + Tools.freeTcpPort() + "\nupstream = tcp://127.0.0.1:1\n");
        try (PtyGateway g = new PtyGateway("rows 50 cols 400", conf, "-Dconduit.leakDetection=x").awaitFirstPrompt()) {
            assertTrue(g.text().contains("transport: none - "), g.text());
            String out = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!out.contains("2 configurations")) { // FileInstall hands conf/ to Configuration Admin meanwhile
                assertTrue(System.nanoTime() - deadline < 0, "not within 30 s: both configurations\n" + out);
                out = g.run("conduit:gateway");
                Thread.sleep(200);
            }
            assertFalse(out.contains("no echo or relay configuration"), out);
            assertTrue(out.contains("network: not running, so nothing listens: no transport selected: "), out);
            assertTrue(out.contains("conduit.leakDetection='x'") && out.contains("(fix conduit.leakDetection, e.g. "
                    + "in JAVA_OPTS, and restart)"), "the selection error:\n" + out);
            assertTrue(out.contains("io.conduit.gateway.echo~first") && out.contains("(io.conduit.gateway.echo-first.cfg)"),
                    out);
            assertTrue(out.contains("io.conduit.gateway.relay~second")
                    && out.contains("(io.conduit.gateway.relay-second.cfg)"), out);
            assertEquals(2, count(out, "error: not started: the gateway's network is not running (see 'network:' "
                    + "above)"), out);
            assertTrue(out.contains("2 configurations: 0 running, 0 partial, 2 failed"), out);
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
        }
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    @Test
    void aMalformedPlatformPropertyStopsTheGatewayNamingThatProperty() throws Exception {
        GatewayProcess.Exit exit = GatewayProcess.runToExit("-Dconduit.leakDetection=bogus");
        String out = exit.output();
        System.out.println(out);
        assertEquals(2, exit.status(), out);
        assertTrue(out.contains("conduit.leakDetection='bogus'"), out);
        assertTrue(out.contains("disabled, simple, paranoid"), "the accepted values:\n" + out);
        assertTrue(out.contains("(fix conduit.leakDetection, e.g. in JAVA_OPTS, and restart)"), out);
        assertTrue(out.contains("Ready: 0 endpoint(s) listening, 1 problem(s)"), out);
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
    }
}
