package io.conduit.gateway.it;

import static io.conduit.gateway.it.TransportBundleSwapIT.awaitGateway;
import static io.conduit.gateway.it.TransportBundleSwapIT.count;
import static io.conduit.gateway.it.TransportBundleSwapIT.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution ships the io_uring bundle and its fragment, and epoll stays the default: io_uring is listed as
 * available but not chosen. In the shell, {@code conduit:use io_uring} moves a TCP echo endpoint to io_uring and
 * {@code conduit:use} (no argument) moves it back to epoll, while a client connects again and again; no attempt is
 * refused and every echo served on io_uring comes back whole.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringGatewayIT {

    @TempDir
    Path dir;

    @Test
    void conduitUseMovesATcpEchoToIoUringAndBackToEpollWithNothingRefused() throws Exception {
        int port = Tools.freeTcpPort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.echo-iouring.cfg"), "listen = tcp://127.0.0.1:" + port
                + "\n");
        try (PtyGateway g = new PtyGateway("rows 50 cols 250", conf, null).awaitFirstPrompt()) {
            assertTrue(g.text().contains("transport: epoll"), "epoll stays the default:\n" + g.text());
            assertTrue(g.text().contains("io_uring [native, ranking 50]: available, not chosen"), g.text());
            String lb = g.run("lb -s");
            assertTrue(Pattern.compile("(?m)\\|Active\\s*\\|.*\\|io\\.conduit\\.iouring \\(").matcher(lb).find(), lb);
            assertTrue(Pattern.compile("(?m)\\|Resolved\\s*\\|.*\\|io\\.conduit\\.iouring\\.linux\\.x86_64 \\(")
                    .matcher(lb).find(), lb);

            TransportBundleSwapIT.Traffic traffic = new TransportBundleSwapIT.Traffic(port);
            String use = g.run("conduit:use io_uring");
            assertTrue(use.contains("preference set to 'io_uring'"), use);
            awaitGateway(g, "the echo on io_uring", t -> count(t, "[io_uring]") == 1);
            for (int i = 0; i < 20; i++) {
                echo(port, "served on io_uring " + i);
            }
            Thread.sleep(500);
            String cleared = g.run("conduit:use");
            assertTrue(cleared.contains("run-time preference cleared"), cleared);
            awaitGateway(g, "the echo back on epoll", t -> count(t, "[epoll]") == 1);
            echo(port, "served on epoll again");
            traffic.close();
            System.out.println("TCP echo connections while conduit:use went to io_uring and back: " + traffic);
            assertTrue(traffic.served.get() > 0, traffic.toString());
            assertTrue(traffic.errors.stream().noneMatch(e -> e.contains("refused")),
                    "no connection attempt is refused\n" + traffic);
            // at most the backlog resets of the two swaps (see TransportBundleSwapIT)
            assertTrue(traffic.errors.size() <= 2 * 2, traffic.toString());
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
        }
    }
}
