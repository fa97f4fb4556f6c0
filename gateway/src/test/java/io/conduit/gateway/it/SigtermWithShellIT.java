package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to the gateway while its interactive shell runs removes its Unix socket files, as {@code exit 0} and a
 * SIGTERM with {@code --no-shell} do. A user's trial found a relay's socket file left in 10 of 11 such stops: the
 * shell, ending on the signal, had begun stopping the framework, and the shutdown hook waited only for a framework
 * that was still running, so the JVM exited while the gateway bundle closed its listeners.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SigtermWithShellIT {

    @TempDir
    Path dir;

    @Test
    void sigtermWhileTheShellRunsLeavesNoSocketFile() throws Exception {
        int echoPort = Tools.freeTcpPort();
        Path echo = dir.resolve("echo.sock");
        Path relay = dir.resolve("relay.sock");
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.echo-term.cfg"), "listen = tcp://127.0.0.1:" + echoPort
                + ", unix:" + echo + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-term.cfg"), "listen = unix:" + relay
                + "\nupstream = tcp://127.0.0.1:" + echoPort + "\n");
        try (PtyGateway g = new PtyGateway("rows 50 cols 250", conf, null).awaitFirstPrompt()) {
            assertTrue(g.text().contains("Ready: 3 endpoint(s) listening, 0 problem(s)"), g.text());
            assertTrue(Files.exists(echo) && Files.exists(relay), "both socket files made:\n" + g.text());
            g.jvm().destroy(); // SIGTERM to the JVM, the shell still running
            g.awaitExit();
            assertFalse(Files.exists(relay), "the relay's socket file is removed:\n" + g.text());
            assertFalse(Files.exists(echo), "the echo's socket file is removed:\n" + g.text());
        }
    }
}
