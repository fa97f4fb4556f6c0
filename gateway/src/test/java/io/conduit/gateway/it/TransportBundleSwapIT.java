package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping and starting a transport bundle in the distribution's shell (Gogo's {@code lb}, {@code stop},
 * {@code start}) moves every endpoint of the gateway: the epoll bundle stopped, the TCP, UDP and Unix echo endpoints
 * are on io_uring, the next native transport by ranking, and epoll is no longer listed; started again, they are back
 * on epoll. A client connecting again and
 * again meanwhile is never refused. A healthy start reports no
 * diagnostics problem, and a restart of the gateway bundle adds none.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TransportBundleSwapIT {

    @TempDir
    Path dir;

    @Test
    void stoppingTheEpollBundleMovesEveryEndpointToIoUringAndStartingItMovesThemBack() throws Exception {
        int port = Tools.freeTcpPort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.echo-swap.cfg"), "listen = tcp://127.0.0.1:" + port
                + ", udp://127.0.0.1:" + port + ", unix:" + dir.resolve("echo.sock") + "\n");
        try (PtyGateway g = new PtyGateway("rows 50 cols 250", conf, null).awaitFirstPrompt()) {
            assertTrue(g.text().contains("transport: epoll"), "epoll is selected on Linux:\n" + g.text());
            assertTrue(g.text().contains("Ready: 3 endpoint(s) listening, 0 problem(s)"), g.text());
            String diag = g.run("conduit:diag");
            assertTrue(diag.contains("epoll: native"), diag);
            assertFalse(diag.contains("problem:"), "a healthy start has no diagnostics problem:\n" + diag);

            String epoll = bundleId(g.run("lb -s"), "io.conduit.epoll");
            Traffic traffic = new Traffic(port);
            g.run("stop " + epoll);
            String moved = awaitGateway(g, "every endpoint on io_uring", t -> count(t, "[io_uring]") == 3);
            assertEquals(0, count(moved, "[epoll]"), moved);
            String transports = g.run("conduit:transports");
            assertFalse(Pattern.compile("(?m)^[* ] epoll\\s").matcher(transports).find(),
                    "a stopped bundle's transport is not listed:\n" + transports);
            echo(port, "served on io_uring");

            g.run("start " + epoll);
            awaitGateway(g, "every endpoint back on epoll", t -> count(t, "[epoll]") == 3);
            assertTrue(g.run("conduit:transports").contains("* epoll"), g.text());
            echo(port, "served on epoll again");
            traffic.close();
            System.out.println("TCP echo connections while the epoll bundle stopped and started: " + traffic);
            assertTrue(traffic.served.get() > 0, traffic.toString());
            assertTrue(traffic.errors.stream().noneMatch(e -> e.contains("refused")),
                    "no connection attempt is refused: a listener is bound on the new transport before the old one "
                    + "closes\n" + traffic);
            // A connection the kernel queued in the old listener's backlog is reset when it closes (DESIGN, VERSIONS:
            // 1-2 per swap under 8 clients without net.ipv4.tcp_migrate_req); this client is one, so at most that.
            assertTrue(traffic.errors.size() <= 2 * 2, traffic.toString());

            String gateway = bundleId(g.run("lb -s"), "io.conduit.gateway");
            g.run("stop " + gateway);
            g.run("start " + gateway);
            awaitGateway(g, "the echo back after the gateway bundle restarted", t -> count(t, "[epoll]") == 3);
            diag = g.run("conduit:diag");
            assertFalse(diag.contains("problem:"), "a gateway bundle restart adds no problem:\n" + diag);

            // epoll restarted after the gateway: on exit the gateway bundle (start level 2) still stops first, so its
            // endpoints close on epoll instead of following it to io_uring on the way out
            int restart = g.text().length();
            g.run("stop " + epoll);
            g.run("start " + epoll);
            awaitGateway(g, "every endpoint on epoll after its second restart", t -> count(t, "[epoll]") == 3);
            // a swap logs its line after the hand-over (a listener's steering waits 100 ms): wait for all three
            g.awaitText("the three swaps back to epoll logged",
                    t -> count(t.substring(restart), "to 'epoll' (") >= 3);
            int exit = g.text().length();
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
            String after = g.text().substring(exit);
            assertFalse(after.contains("transport swap"), "no endpoint follows a stopping transport on exit:\n" + after);
            assertFalse(after.contains("Exception"), "nothing thrown on exit:\n" + after);
        }
    }

    /**
     * With every transport bundle stopped nothing listens, and {@code conduit:gateway} says so: an echo and a UDP
     * relay are FAILED, with no {@code listening:} line and one {@code error:} line per endpoint naming the stopped
     * transport bundles and the {@code start} command. Starting nio again makes both RUNNING on nio.
     */
    @Test
    void withEveryTransportBundleStoppedEveryComponentIsFailedAndSaysWhichBundleToStart() throws Exception {
        int port = Tools.freeTcpPort();
        int relayPort = Tools.freeTcpPort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("io.conduit.gateway.echo-none.cfg"), "listen = tcp://127.0.0.1:" + port
                + ", udp://127.0.0.1:" + port + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-udp.cfg"), "listen = udp://127.0.0.1:" + relayPort
                + "\nupstream = udp://127.0.0.1:" + port + "\n");
        try (PtyGateway g = new PtyGateway("rows 50 cols 400", conf, null).awaitFirstPrompt()) {
            assertTrue(g.text().contains("Ready: 3 endpoint(s) listening, 0 problem(s)"), g.text());
            String lb = g.run("lb -s");
            String nio = bundleId(lb, "io.conduit.nio");
            String epoll = bundleId(lb, "io.conduit.epoll");
            String iouring = bundleId(lb, "io.conduit.iouring");
            g.run("stop " + nio);
            g.run("stop " + epoll);
            g.run("stop " + iouring);
            String none = awaitGateway(g, "every component FAILED", t -> count(t, "FAILED") == 2);
            assertFalse(none.contains("listening:"), "nothing listens:\n" + none);
            assertFalse(none.contains("[closed]"), none);
            assertFalse(none.contains("RUNNING") || none.contains("PARTIAL"), none);
            assertTrue(none.contains("2 configurations: 0 running, 0 partial, 2 failed"), none);
            String first = List.of(nio, epoll, iouring).stream()
                    .min(java.util.Comparator.comparingLong(Long::parseLong)).orElseThrow();
            for (String endpoint : List.of("tcp://127.0.0.1:" + port, "udp://127.0.0.1:" + port,
                    "udp://127.0.0.1:" + relayPort)) {
                assertTrue(none.contains("error: cannot listen on " + endpoint + ": no transport is registered: "),
                        endpoint + ":\n" + none);
            }
            assertEquals(3, count(none, "installed but stopped: start one again, e.g. 'start " + first
                    + "' ('lb' lists the bundles); it listens again as soon as a transport is selected"), none);
            assertTrue(none.contains("io.conduit.nio (bundle " + nio + ")")
                    && none.contains("io.conduit.epoll (bundle " + epoll + ")")
                    && none.contains("io.conduit.iouring (bundle " + iouring + ")"), none);
            assertFalse(none.contains("add the conduit-nio jar"), "the bundles are there: start one\n" + none);

            g.run("start " + nio);
            String back = awaitGateway(g, "every endpoint on nio again", t -> count(t, "[nio]") == 3);
            assertEquals(2, count(back, "RUNNING"), back);
            assertFalse(back.contains("error:"), back);
            g.type("exit 0\r");
            assertEquals(0, g.awaitExit(), g.text());
        }
    }

    /** One client that opens a connection, echoes a line and closes it, again and again, until closed. */
    static final class Traffic implements AutoCloseable {
        final AtomicInteger served = new AtomicInteger();
        final List<String> errors = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile boolean stop;

        Traffic(int port) {
            thread = new Thread(() -> {
                for (int i = 0; !stop; i++) {
                    try {
                        echo(port, "connection " + i);
                        served.incrementAndGet();
                    } catch (IOException | AssertionError e) {
                        errors.add(e.toString());
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // ~200/s
                }
            }, "swap-traffic");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(TimeUnit.SECONDS.toMillis(15));
        }

        @Override
        public String toString() {
            return served + " served, " + errors.size() + " failed " + errors;
        }
    }

    /** @return the id of the bundle {@code symbolicName} in the output of {@code lb -s} */
    static String bundleId(String lb, String symbolicName) {
        Matcher m = Pattern.compile("(?m)^\\s*(\\d+)\\|[^\\n]*\\|" + Pattern.quote(symbolicName) + " \\(").matcher(lb);
        assertTrue(m.find(), symbolicName + " is listed by lb -s:\n" + lb);
        return m.group(1);
    }

    /** Runs {@code conduit:gateway} until its output satisfies {@code condition} (at most 30 s). */
    static String awaitGateway(PtyGateway g, String what, Predicate<String> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String out;
        while (!condition.test(out = g.run("conduit:gateway"))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within 30 s: " + what + "; conduit:gateway shows:\n" + out);
            }
            Thread.sleep(250);
        }
        return out;
    }

    static void echo(int port, String text) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            s.setSoTimeout(5000);
            byte[] out = text.getBytes(StandardCharsets.UTF_8);
            s.getOutputStream().write(out);
            assertArrayEquals(out, s.getInputStream().readNBytes(out.length));
        }
    }

    static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
