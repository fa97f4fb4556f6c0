package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user's mistakes look like in the distribution, on a home directory of the test's own
 * ({@code JAVA_OPTS=-Dconduit.gateway.home=DIR}) and with {@code nio} selected: an echo with an abstract Unix name, an
 * address of another host and an endpoint listed twice is PARTIAL in the banner, with one line per problem naming
 * the real cause; a relay with a misspelt key is FAILED and names the key it was meant to be; an echo with a key it
 * does not know listens and the log names the key and the known ones; selecting epoll
 * (writing {@code conf/io.conduit.transport.cfg}) binds the abstract name without touching the echo's file. A port
 * held by another process at start listens once it is free.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigurationProblemsIT {

    @TempDir
    Path home;

    @Test
    void everyProblemSaysWhatIsWrongAndTheAbstractNameListensOnceEpollIsSelected() throws Exception {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        int echoPort = Tools.freeTcpPort();
        int relayPort = Tools.freeTcpPort();
        String name = "conduit-it-wait-" + ProcessHandle.current().pid();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-mixed.cfg"), "listen = unix:@" + name
                + ", tcp://127.0.0.1:" + echoPort + ", tcp://10.255.255.1:16385, tcp://127.0.0.1:" + echoPort + "\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-typo.cfg"), "listen = tcp://127.0.0.1:" + relayPort
                + "\nupstrem = tcp://127.0.0.1:1\n");
        int extraPort = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-extra.cfg"), "listen = tcp://127.0.0.1:" + extraPort
                + "\nlisten.backlog = 128\n");
        try (GatewayProcess g = GatewayProcess.start(null, "-Dconduit.transport=nio -Dconduit.gateway.home=" + home)) {
            String out = g.output();
            assertTrue(out.contains(", home " + home.toAbsolutePath().normalize() + "\n"), out);
            assertTrue(Files.isDirectory(home.resolve("data/felix-cache")), "the framework's cache is in the home");
            assertTrue(out.contains("  PARTIAL   echo  cannot listen on unix:@" + name + ": \"unix:@" + name
                    + "\": abstract Unix socket names are not supported by transport 'nio'"), out);
            assertTrue(out.contains("it listens as soon as a transport that can is selected"), out);
            assertTrue(out.contains("  PARTIAL   echo  cannot listen on tcp://10.255.255.1:16385: BindException: ManagedServer cannot "
                    + "listen on /10.255.255.1:16385 (transport 'nio'): 10.255.255.1 is not an address of this host"),
                    out);
            assertTrue(out.contains("  PARTIAL   echo  cannot listen on tcp://127.0.0.1:" + echoPort + ": it is listed "
                    + "twice in 'listen'"), out);
            assertTrue(out.contains("  FAILED    relay bad configuration: unknown key 'upstrem' (did you mean "
                    + "'upstream'?); missing 'upstream'"), out);
            assertFalse(out.contains("FAILED    echo"), "the echo listens on one endpoint: PARTIAL\n" + out);
            assertFalse(out.contains("already in use"), out);
            assertTrue(out.contains("echo io.conduit.gateway.echo-extra.cfg: unknown key 'listen.backlog', ignored; "
                    + "the keys of echo configurations are: listen"), out);
            assertTrue(out.contains("  listening echo  tcp://127.0.0.1:" + extraPort
                    + "  (io.conduit.gateway.echo-extra.cfg)"), "an unknown key alone does not fail:\n" + out);
            assertTrue(out.contains("Ready: 2 endpoint(s) listening, 4 problem(s)"), out);

            Files.writeString(conf.resolve("io.conduit.transport.cfg"), "transport = epoll\n");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String listening = "listening on unix:@" + name + " now, on transport 'epoll'";
            while (!g.output().contains(listening)) {
                assertTrue(System.nanoTime() - deadline < 0, "not within 30 s: " + listening + "\n" + g.output());
                Thread.sleep(100);
            }
            Path socat = Tools.optional("socat", "socat");
            if (socat == null) {
                return; // the abstract name's echo is driven by socat only
            }
            Process p = new ProcessBuilder(socat.toString(), "-t", "5", "-", "ABSTRACT-CONNECT:" + name)
                    .redirectErrorStream(true).start();
            byte[] text = "bound once epoll was selected".getBytes(StandardCharsets.UTF_8);
            p.getOutputStream().write(text);
            p.getOutputStream().close();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "socat ends");
            assertArrayEquals(text, p.getInputStream().readAllBytes(), "echoed through the abstract name");
        }
    }

    /**
     * A port another process still holds when the gateway starts (as after a quick restart) is a problem that says it
     * is tried again; once the port is free the echo listens, without a restart and without a warning per attempt.
     */
    @Test
    void aPortInUseAtStartListensOnceItIsFree() throws Exception {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        java.net.ServerSocket holder = new java.net.ServerSocket();
        holder.setReuseAddress(true);
        holder.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
        int port = holder.getLocalPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-held.cfg"), "listen = tcp://127.0.0.1:" + port + "\n");
        try (GatewayProcess g = GatewayProcess.start(null, "-Dconduit.gateway.home=" + home)) {
            String out = g.output();
            assertTrue(out.contains("  FAILED    echo  cannot listen on tcp://127.0.0.1:" + port + ": BindException: ")
                    && out.contains("address already in use") && out.contains("; it is tried again every 5 s"), out);
            holder.close();
            String listening = "listening on tcp://127.0.0.1:" + port + " now, on transport '";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!g.output().contains(listening)) {
                assertTrue(System.nanoTime() - deadline < 0, "not within 30 s: " + listening + "\n" + g.output());
                Thread.sleep(100);
            }
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                byte[] text = "listening after the port was freed".getBytes(StandardCharsets.UTF_8);
                s.getOutputStream().write(text);
                assertArrayEquals(text, s.getInputStream().readNBytes(text.length), "echoed");
            }
            String all = g.output();
            int lines = all.split(java.util.regex.Pattern.quote("it is tried again every 5 s"), -1).length - 1;
            assertTrue(lines <= 2, "one WARNING line and the banner's line, not one per attempt:\n" + all);
        } finally {
            holder.close();
        }
    }
}
