package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files of the configuration directory that nothing would apply, in the distribution: a misspelt factory PID, a
 * factory PID without {@code -<name>}, a misspelt singleton PID and a relay with an empty key are each one WARNING
 * line and one banner problem saying why and what the name or line should be; FileInstall's own complaint about the
 * empty key is one line, not a stack trace; nothing listens on their ports. While the gateway runs, fixing the
 * relay's line and renaming the misspelt file make them listen, and a misnamed file added later is reported too.
 * A file added, changed or removed while the gateway runs is one line naming it and its endpoint.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigurationFilesIT {

    @TempDir
    Path conf;

    @Test
    void everyFileNothingAppliesIsOneProblemNamingTheFileWhyAndTheRightName() throws Exception {
        int echoPort = Tools.freeTcpPort();
        int typoPort = Tools.freeTcpPort();
        int noNamePort = Tools.freeTcpPort();
        int relayPort = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-ok.cfg"), "listen = tcp://127.0.0.1:" + echoPort + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.echoo-typo.cfg"), "listen = tcp://127.0.0.1:" + typoPort
                + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.echo.cfg"), "listen = tcp://127.0.0.1:" + noNamePort + "\n");
        Path relay = conf.resolve("io.conduit.gateway.relay-emptykey.cfg");
        Files.writeString(relay, "listen = tcp://127.0.0.1:" + relayPort + "\n= x\nupstream = tcp://127.0.0.1:"
                + echoPort + "\n");
        Files.writeString(conf.resolve("io.conduit.transprot.cfg"), "transport = nio\n");
        try (GatewayProcess g = GatewayProcess.start(conf)) {
            String out = g.output();
            System.out.println(out);
            assertTrue(out.contains("  FAILED    file  ignored: no component reads factory PID "
                    + "'io.conduit.gateway.echoo' (did you mean io.conduit.gateway.echo-typo.cfg?)"
                    + "  (io.conduit.gateway.echoo-typo.cfg)\n"), out);
            assertTrue(out.contains("  FAILED    echo  ignored: 'io.conduit.gateway.echo' takes factory configurations "
                    + "only, one file each named io.conduit.gateway.echo-<name>.cfg: rename the file (e.g. to "
                    + "io.conduit.gateway.echo-1.cfg)  (io.conduit.gateway.echo.cfg)\n"), out);
            assertTrue(out.contains("  FAILED    file  ignored: no component reads PID 'io.conduit.transprot' (did you "
                    + "mean io.conduit.transport.cfg?)  (io.conduit.transprot.cfg)\n"), out);
            assertTrue(out.contains("  FAILED    relay cannot be applied: line 2 ('= x') has an empty key, which "
                    + "Configuration Admin rejects (FileInstall: 'Key [] must not be an empty string'): write it as "
                    + "'key = value' or delete it; the file's content is not applied until then  "
                    + "(io.conduit.gateway.relay-emptykey.cfg)\n"), out);
            assertTrue(out.contains("  listening echo  tcp://127.0.0.1:" + echoPort + "  (io.conduit.gateway.echo-ok.cfg)"),
                    out);
            assertTrue(out.contains("Ready: 1 endpoint(s) listening, 4 problem(s); configuration in "), out);
            assertFalse(out.contains("still starting"), out);
            for (String file : new String[] {"configuration file io.conduit.gateway.echoo-typo.cfg: ignored",
                    "echo io.conduit.gateway.echo.cfg: ignored", "configuration file io.conduit.transprot.cfg: ignored",
                    "relay io.conduit.gateway.relay-emptykey.cfg: cannot be applied"}) {
                assertEquals(1, count(out, " WARNING io.conduit.gateway: " + file), "one WARNING line: " + file + "\n"
                        + out);
            }
            assertTrue(out.contains(" SEVERE fileinstall: Failed to install artifact: " + relay + ": "
                    + "java.lang.IllegalArgumentException: Key [] must not be an empty string\n"), out);
            assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
            for (int port : new int[] {typoPort, noNamePort, relayPort}) {
                assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close(),
                        "nothing listens on " + port);
            }

            Files.writeString(relay, "listen = tcp://127.0.0.1:" + relayPort + "\nupstream = tcp://127.0.0.1:" + echoPort
                    + "\n");
            Files.move(conf.resolve("io.conduit.gateway.echoo-typo.cfg"), conf.resolve("io.conduit.gateway.echo-typo.cfg"));
            Files.writeString(conf.resolve("io.conduit.gateway.rellay-late.cfg"), "listen = tcp://127.0.0.1:1\n");
            awaitListening(relayPort, g);
            awaitListening(typoPort, g);
            byte[] text = "through the relay that was fixed".getBytes(StandardCharsets.UTF_8);
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), relayPort)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(text);
                s.shutdownOutput();
                assertArrayEquals(text, s.getInputStream().readAllBytes(), "echoed through the relay");
            }
            awaitOutput(g, "the WARNING of a file added later", o -> o.contains(" WARNING io.conduit.gateway: "
                    + "configuration file io.conduit.gateway.rellay-late.cfg: ignored: no component reads factory PID "
                    + "'io.conduit.gateway.rellay' (did you mean io.conduit.gateway.relay-late.cfg?)"));

            // the gateway's factory PIDs without "-<name>" while it runs: renamed as the warning says, and added
            // beside factory configurations; FileInstall never hands them to Configuration Admin, so SCR has no
            // singleton configuration to refuse (with a stack trace)
            Files.move(conf.resolve("io.conduit.gateway.echo.cfg"), conf.resolve("io.conduit.gateway.echo-1.cfg"));
            awaitListening(noNamePort, g);
            Files.writeString(conf.resolve("io.conduit.gateway.relay.config"), "listen = \"tcp://127.0.0.1:1\"\n");
            awaitOutput(g, "the WARNING of io.conduit.gateway.relay.config", o -> o.contains(" WARNING "
                    + "io.conduit.gateway: relay io.conduit.gateway.relay.config: ignored"));
            Thread.sleep(2_500); // two more FileInstall polls
            String end = g.output();
            assertFalse(end.contains("\tat ") || end.contains("singleton pid"), "no SCR complaint:\n" + end);
        }
    }

    /**
     * A relay file added while the gateway ran started listening and logged nothing: the banner shows what listens at
     * start only. Now each file added, changed or removed later is a line naming the file and the endpoint, the one
     * the banner shows; at start there is no such line, since the banner shows it.
     */
    @Test
    void aFileAddedChangedOrRemovedWhileTheGatewayRunsIsALineEach() throws Exception {
        int echoPort = Tools.freeTcpPort();
        int relayPort = Tools.freeTcpPort();
        int movedPort = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-ok.cfg"), "listen = tcp://127.0.0.1:" + echoPort
                + "\n");
        try (GatewayProcess g = GatewayProcess.start(conf)) {
            assertTrue(g.output().contains("  listening echo  tcp://127.0.0.1:" + echoPort
                    + "  (io.conduit.gateway.echo-ok.cfg)"), g.output());
            assertFalse(g.output().contains(": listening on "), "the banner shows it, no log line:\n" + g.output());
            Path relay = conf.resolve("io.conduit.gateway.relay-late.cfg");
            Files.writeString(relay, "listen = tcp://127.0.0.1:" + relayPort + "\nupstream = tcp://127.0.0.1:"
                    + echoPort + "\n");
            String relayed = "tcp://127.0.0.1:" + relayPort + " -> tcp://127.0.0.1:" + echoPort;
            awaitOutput(g, "the line of the relay added", o -> o.contains(" INFO io.conduit.gateway: relay "
                    + "io.conduit.gateway.relay-late.cfg: listening on " + relayed + ", on transport '"));
            awaitListening(relayPort, g);
            Files.writeString(relay, "listen = tcp://127.0.0.1:" + movedPort + "\nupstream = tcp://127.0.0.1:"
                    + echoPort + "\n");
            String moved = "tcp://127.0.0.1:" + movedPort + " -> tcp://127.0.0.1:" + echoPort;
            awaitOutput(g, "the lines of the relay changed", o -> o.contains(" INFO io.conduit.gateway: relay "
                    + "io.conduit.gateway.relay-late.cfg: its configuration changed; it no longer listens on " + relayed
                    + "\n") && o.contains(" INFO io.conduit.gateway: relay io.conduit.gateway.relay-late.cfg: "
                    + "listening on " + moved + ", on transport '"));
            Files.delete(relay);
            awaitOutput(g, "the line of the relay removed", o -> o.contains(" INFO io.conduit.gateway: relay "
                    + "io.conduit.gateway.relay-late.cfg: its configuration was removed; it no longer listens on "
                    + moved + "\n"));
            assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), movedPort).close(),
                    "nothing listens on " + movedPort);
            assertEquals(2, count(g.output(), ": listening on "), g.output());
        }
    }

    private static void awaitListening(int port, GatewayProcess g) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                return;
            } catch (IOException notYet) {
                assertTrue(System.nanoTime() - deadline < 0, "nothing listens on " + port + " within 30 s:\n"
                        + g.output());
                Thread.sleep(200);
            }
        }
    }

    private static void awaitOutput(GatewayProcess g, String what, Predicate<String> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.test(g.output())) {
            assertTrue(System.nanoTime() - deadline < 0, "not within 30 s: " + what + "\n" + g.output());
            Thread.sleep(200);
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
