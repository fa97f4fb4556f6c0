package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One gateway per home directory: a second {@code bin/conduit-gateway --no-shell} on the home of a running one exits
 * at once with status 2 and one line naming the running gateway's process, the home and what to do, and leaves the
 * first one serving; after the first was killed (SIGKILL, as a crash ends it) a gateway starts on that home again.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SameHomeDistributionIT {

    @TempDir
    Path home;

    @Test
    void aSecondGatewayOnTheSameHomeExitsWithStatus2AndAKilledGatewayLeavesNoLockBehind() throws Exception {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        int port = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-home.cfg"), "listen = tcp://127.0.0.1:" + port + "\n");
        String javaOpts = "-Dconduit.gateway.home=" + home;
        Path lockFile = home.toAbsolutePath().normalize().resolve("data/gateway.lock");
        GatewayProcess first = GatewayProcess.start(conf, javaOpts);
        try {
            assertTrue(first.output().contains("Ready: 1 endpoint(s) listening, 0 problem(s)"), first.output());

            GatewayProcess.Exit second = GatewayProcess.runToExit(javaOpts);
            List<String> lines = second.output().strip().lines().toList();
            assertEquals(2, second.status(), second.output());
            assertEquals(List.of("conduit-gateway: another gateway (process " + first.pid() + ") runs on the home "
                    + home.toAbsolutePath().normalize() + " (it holds " + lockFile + "): stop it ('exit 0' in its "
                    + "shell, Ctrl-C, or kill " + first.pid() + "), or run this one on another home with "
                    + "JAVA_OPTS=-Dconduit.gateway.home=DIR"), lines, "one line, and nothing started");
            echo(port, "the first gateway still serves");
            assertFalse(first.output().contains("WARNING") || first.output().contains("SEVERE"),
                    "the second one touched nothing of the first:\n" + first.output());
        } finally {
            first.kill();
        }

        GatewayProcess again = GatewayProcess.start(conf, javaOpts);
        try {
            assertTrue(again.output().contains("Ready: 1 endpoint(s) listening, 0 problem(s)"),
                    "a killed gateway leaves no lock behind:\n" + again.output());
            echo(port, "served by the gateway started after the kill");
        } finally {
            assertEquals(143, again.terminate().status());
        }
    }

    private static void echo(int port, String text) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            s.setSoTimeout(5000);
            byte[] out = text.getBytes(StandardCharsets.UTF_8);
            s.getOutputStream().write(out);
            assertArrayEquals(out, s.getInputStream().readNBytes(out.length));
        }
    }
}
