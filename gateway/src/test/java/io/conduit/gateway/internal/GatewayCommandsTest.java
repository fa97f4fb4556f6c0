package io.conduit.gateway.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The text of {@code conduit:gateway} for running, failed and partly failed configurations. */
class GatewayCommandsTest {

    /** A bound listener on a transport the test names (and changes, as a transport swap would). */
    private static final class FakeBound implements Network.Bound {
        private final SocketAddress address;
        volatile String transport;

        FakeBound(SocketAddress address, String transport) {
            this.address = address;
            this.transport = transport;
        }

        @Override
        public SocketAddress localAddress() {
            return address;
        }

        @Override
        public void close() {
            transport = null;
        }

        @Override
        public String transportName() {
            return transport;
        }
    }

    @Test
    void showsEachConfigurationWithStateEndpointsTransportsAndErrors() throws Exception {
        // echo: two endpoints bound on epoll
        Listeners echoListeners = new Listeners("echo io.conduit.gateway.echo-default.cfg");
        FakeBound tcp = new FakeBound(new InetSocketAddress("127.0.0.1", 7007), "epoll");
        FakeBound udp = new FakeBound(new InetSocketAddress("127.0.0.1", 7007), "epoll");
        echoListeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7007"), GatewayUri.parse("udp://127.0.0.1:7007")),
                d -> d, new FakeNetwork(), e -> CompletableFuture.completedFuture(e.kind().isStream() ? tcp : udp))
                .get(5, TimeUnit.SECONDS);
        ComponentStatus echo = new ComponentStatus("io.conduit.gateway.echo-default.cfg",
                "io.conduit.gateway.echo~default", "echo", echoListeners);

        // relay: a malformed configuration, reported as the component does it
        Listeners badListeners = new Listeners("relay io.conduit.gateway.relay-bad.cfg");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:16379")));
        badListeners.fail("bad configuration: " + bad.getMessage());
        ComponentStatus relay = new ComponentStatus("io.conduit.gateway.relay-bad.cfg",
                "io.conduit.gateway.relay~bad", "relay", badListeners);

        // echo: one endpoint bound, one port in use
        Listeners partListeners = new Listeners("echo io.conduit.gateway.echo-two.cfg");
        FakeBound unix = new FakeBound(new InetSocketAddress("127.0.0.1", 7008), "nio");
        partListeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7008"), GatewayUri.parse("tcp://127.0.0.1:22")),
                d -> d, new FakeNetwork(), e -> e.port() == 22
                        ? CompletableFuture.failedFuture(new BindException("Address already in use"))
                        : CompletableFuture.completedFuture(unix))
                .get(5, TimeUnit.SECONDS);
        ComponentStatus part = new ComponentStatus("io.conduit.gateway.echo.generated-pid",
                "io.conduit.gateway.echo.generated-pid", "echo", partListeners);

        String text = GatewayCommands.render(List.of(relay, echo, part));
        assertEquals(String.format("%-40s %-5s  %-7s%s%n", "io.conduit.gateway.echo.generated-pid", "echo", "PARTIAL",
                "")
                + "    listening: tcp://127.0.0.1:7008 [nio]\n"
                + "    error: cannot listen on tcp://127.0.0.1:22: BindException: Address already in use\n"
                + String.format("%-40s %-5s  %-7s%s%n", "io.conduit.gateway.echo~default", "echo", "RUNNING",
                        "  (io.conduit.gateway.echo-default.cfg)")
                + "    listening: tcp://127.0.0.1:7007 [epoll]\n"
                + "    listening: udp://127.0.0.1:7007 [epoll]\n"
                + String.format("%-40s %-5s  %-7s%s%n", "io.conduit.gateway.relay~bad", "relay", "FAILED",
                        "  (io.conduit.gateway.relay-bad.cfg)")
                + "    error: bad configuration: missing 'upstream' (e.g. upstream = tcp://127.0.0.1:6379)\n"
                + "3 configurations: 1 running, 1 partial, 1 failed\n", text.replace("\r\n", "\n"));

        // a transport swap moves the listeners: the command shows where they are now
        tcp.transport = "nio";
        assertEquals(true, GatewayCommands.render(List.of(echo)).contains("listening: tcp://127.0.0.1:7007 [nio]\n"));
    }

    @Test
    void aFileThatNothingAppliesIsAFailedConfigurationWithItsReason() {
        Listeners problem = new Listeners("configuration file io.conduit.gateway.echoo-typo.cfg");
        problem.fail("ignored: no component reads factory PID 'io.conduit.gateway.echoo'");
        String text = GatewayCommands.render(List.of(new ComponentStatus("io.conduit.gateway.echoo-typo.cfg",
                "io.conduit.gateway.echoo~typo", "file", problem)));
        assertEquals(String.format("%-40s %-5s  %-7s%s%n", "io.conduit.gateway.echoo~typo", "file", "FAILED",
                "  (io.conduit.gateway.echoo-typo.cfg)")
                + "    error: ignored: no component reads factory PID 'io.conduit.gateway.echoo'\n"
                + "1 configuration: 0 running, 0 partial, 1 failed\n", text.replace("\r\n", "\n"));
    }

    @Test
    void saysSoWhenNothingIsConfigured() {
        assertEquals(true, GatewayCommands.render(List.of()).startsWith("no echo or relay configuration"));
    }
}
