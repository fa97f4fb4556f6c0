package io.conduit.gateway.internal.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.gateway.internal.FakeNetwork;
import io.conduit.gateway.internal.config.Configurations;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.status.ComponentStatus;
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
        assertEquals(String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.echo.generated-pid", "echo", "PARTIAL",
                "")
                + "    listening: tcp://127.0.0.1:7008 [nio]\n"
                + "    error: cannot listen on tcp://127.0.0.1:22: BindException: Address already in use; it is tried "
                + "again every 5 s\n"
                + String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.echo~default", "echo", "RUNNING",
                        "  (io.conduit.gateway.echo-default.cfg)")
                + "    listening: tcp://127.0.0.1:7007 [epoll]\n"
                + "    listening: udp://127.0.0.1:7007 [epoll]\n"
                + String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.relay~bad", "relay", "FAILED",
                        "  (io.conduit.gateway.relay-bad.cfg)")
                + "    error: bad configuration: missing 'upstream' (e.g. upstream = tcp://127.0.0.1:6379)\n"
                + "3 configurations: 1 running, 1 partial, 1 failed\n", text.replace("\r\n", "\n"));

        // a transport swap moves the listeners: the command shows where they are now
        tcp.transport = "nio";
        assertEquals(true, GatewayCommands.render(List.of(echo)).contains("listening: tcp://127.0.0.1:7007 [nio]\n"));
    }

    /**
     * With no transport (nio and epoll bundles stopped) nothing listens: an echo and a UDP relay whose every endpoint
     * lost its transport are FAILED, show no {@code listening:} line and say why in an {@code error:} line each.
     */
    @Test
    void aConfigurationWhoseEndpointsAllLostTheirTransportIsFailedWithAnErrorPerEndpoint() throws Exception {
        FakeBound tcp = new FakeBound(new InetSocketAddress("127.0.0.1", 7007), "epoll");
        FakeBound udp = new FakeBound(new InetSocketAddress("127.0.0.1", 7007), "epoll");
        Listeners echoListeners = new Listeners("echo io.conduit.gateway.echo-default.cfg");
        echoListeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:7007"), GatewayUri.parse("udp://127.0.0.1:7007")),
                d -> d, new FakeNetwork(), e -> CompletableFuture.completedFuture(e.kind().isStream() ? tcp : udp))
                .get(5, TimeUnit.SECONDS);
        ComponentStatus echo = new ComponentStatus("io.conduit.gateway.echo-default.cfg",
                "io.conduit.gateway.echo~default", "echo", echoListeners);
        FakeBound relayUdp = new FakeBound(new InetSocketAddress("127.0.0.1", 18013), "epoll");
        Listeners relayListeners = new Listeners("relay io.conduit.gateway.relay-udp.cfg");
        relayListeners.bindAll(List.of(GatewayUri.parse("udp://127.0.0.1:18013")), d -> d + " -> udp://127.0.0.1:7007",
                new FakeNetwork(), e -> CompletableFuture.completedFuture(relayUdp)).get(5, TimeUnit.SECONDS);
        ComponentStatus relay = new ComponentStatus("io.conduit.gateway.relay-udp.cfg", "io.conduit.gateway.relay~udp",
                "relay", relayListeners);

        udp.transport = null; // one endpoint of the echo lost its transport: PARTIAL
        String partial = GatewayCommands.render(List.of(echo, relay)).replace("\r\n", "\n");
        assertTrue(partial.contains(String.format("%-40s %-7s  %-7s", "io.conduit.gateway.echo~default", "echo",
                "PARTIAL")), partial);
        assertTrue(partial.contains("    listening: tcp://127.0.0.1:7007 [epoll]\n"
                + "    error: cannot listen on udp://127.0.0.1:7007: "), partial);

        tcp.transport = null;
        relayUdp.transport = null;
        String text = GatewayCommands.render(List.of(echo, relay)).replace("\r\n", "\n");
        assertFalse(text.contains("listening:"), "nothing listens:\n" + text);
        assertFalse(text.contains("[closed]"), text);
        assertFalse(text.contains("RUNNING"), "never RUNNING with no listening endpoint:\n" + text);
        assertTrue(text.contains(String.format("%-40s %-7s  %-7s", "io.conduit.gateway.echo~default", "echo",
                "FAILED")), text);
        assertTrue(text.contains(String.format("%-40s %-7s  %-7s", "io.conduit.gateway.relay~udp", "relay",
                "FAILED")), text);
        assertTrue(text.contains("    error: cannot listen on tcp://127.0.0.1:7007: "), text);
        assertTrue(text.contains("    error: cannot listen on udp://127.0.0.1:7007: "), text);
        assertTrue(text.contains("    error: cannot listen on udp://127.0.0.1:18013: "), text);
        assertTrue(text.endsWith("2 configurations: 0 running, 0 partial, 2 failed\n"), text);
    }

    /**
     * While the network is not running (no transport could be selected at start-up) no component runs and none
     * reports a status: the command says why first, then lists every configuration Configuration Admin holds as
     * FAILED, instead of claiming that nothing is configured.
     */
    @Test
    void whileTheNetworkIsNotRunningItSaysWhyAndListsEveryConfiguration() {
        GatewayCommands.NetworkDown down = new GatewayCommands.NetworkDown("not running: the selection error",
                "not started: the gateway's network is not running (see 'network:' above)", List.of(
                        new Configurations.Configured("io.conduit.gateway.relay~r", "io.conduit.gateway.relay-r.cfg",
                                "relay"),
                        new Configurations.Configured("io.conduit.gateway.echo~default",
                                "io.conduit.gateway.echo-default.cfg", "echo")), null);
        String text = GatewayCommands.render(List.of(), down).replace("\r\n", "\n");
        assertEquals("network: not running: the selection error\n"
                + String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.echo~default", "echo", "FAILED",
                        "  (io.conduit.gateway.echo-default.cfg)").replace("\r\n", "\n")
                + "    error: not started: the gateway's network is not running (see 'network:' above)\n"
                + String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.relay~r", "relay", "FAILED",
                        "  (io.conduit.gateway.relay-r.cfg)").replace("\r\n", "\n")
                + "    error: not started: the gateway's network is not running (see 'network:' above)\n"
                + "2 configurations: 0 running, 0 partial, 2 failed\n", text);
    }

    @Test
    void whileTheNetworkIsNotRunningAConfigurationWithAStatusIsShownOnceAndNothingConfiguredIsSaid() {
        Listeners bad = new Listeners("relay io.conduit.gateway.relay-bad.cfg");
        bad.fail("bad configuration: missing 'upstream'");
        ComponentStatus relay = new ComponentStatus("io.conduit.gateway.relay-bad.cfg", "io.conduit.gateway.relay~bad",
                "relay", bad);
        String text = GatewayCommands.render(List.of(relay), new GatewayCommands.NetworkDown("not started yet",
                "not started yet: waiting", List.of(new Configurations.Configured("io.conduit.gateway.relay~bad",
                        "io.conduit.gateway.relay-bad.cfg", "relay")), null));
        assertEquals(1, text.split("io.conduit.gateway.relay~bad", -1).length - 1, text);
        assertTrue(text.contains("error: bad configuration: missing 'upstream'"), text);
        assertFalse(text.contains("waiting"), text);

        String none = GatewayCommands.render(List.of(), new GatewayCommands.NetworkDown("not running: x", "-",
                List.of(), null));
        assertTrue(none.contains("network: not running: x\nno echo or relay configuration (add conf/"), none);
    }

    @Test
    void whenTheConfigurationsCannotBeListedItSaysWhyInsteadOfNothingIsConfigured() {
        String text = GatewayCommands.render(List.of(), new GatewayCommands.NetworkDown("not running: x", "-",
                List.of(), "Configuration Admin is not running (is org.apache.felix.configadmin started? see 'lb')"))
                .replace("\r\n", "\n");
        assertEquals("network: not running: x\nthe configurations cannot be listed: Configuration Admin is not running "
                + "(is org.apache.felix.configadmin started? see 'lb')\n", text);
    }

    @Test
    void aFileThatNothingAppliesIsAFailedConfigurationWithItsReason() {
        Listeners problem = new Listeners("configuration file io.conduit.gateway.echoo-typo.cfg");
        problem.fail("ignored: no component reads factory PID 'io.conduit.gateway.echoo'");
        String text = GatewayCommands.render(List.of(new ComponentStatus("io.conduit.gateway.echoo-typo.cfg",
                "io.conduit.gateway.echoo~typo", "file", problem)));
        assertEquals(String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.echoo~typo", "file", "FAILED",
                "  (io.conduit.gateway.echoo-typo.cfg)")
                + "    error: ignored: no component reads factory PID 'io.conduit.gateway.echoo'\n"
                + "1 configuration: 0 running, 0 partial, 1 failed\n", text.replace("\r\n", "\n"));
    }

    @Test
    void saysSoWhenNothingIsConfigured() {
        assertEquals(true, GatewayCommands.render(List.of()).startsWith("no echo or relay configuration"));
    }

    /**
     * The metrics endpoint shows its URL while it listens, and {@code OFF} (no endpoint, no problem) when its
     * configuration has no {@code listen}; the count line then says how many are off.
     */
    @Test
    void theMetricsEndpointShowsItsUrlOrOff() throws Exception {
        FakeBound http = new FakeBound(new InetSocketAddress("127.0.0.1", 9464), "epoll");
        Listeners on = new Listeners("metrics io.conduit.gateway.metrics.cfg");
        on.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:9464")),
                d -> d + " (http://127.0.0.1:9464/metrics, /health)", new FakeNetwork(),
                e -> CompletableFuture.completedFuture(http)).get(5, TimeUnit.SECONDS);
        ComponentStatus running = new ComponentStatus("io.conduit.gateway.metrics.cfg", "io.conduit.gateway.metrics",
                "metrics", on);
        assertEquals(String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.metrics", "metrics", "RUNNING",
                "  (io.conduit.gateway.metrics.cfg)")
                + "    listening: tcp://127.0.0.1:9464 (http://127.0.0.1:9464/metrics, /health) [epoll]\n"
                + "1 configuration: 1 running, 0 partial, 0 failed\n",
                GatewayCommands.render(List.of(running)).replace("\r\n", "\n"));
        ComponentStatus off = new ComponentStatus("io.conduit.gateway.metrics.cfg", "io.conduit.gateway.metrics",
                "metrics", new Listeners("metrics io.conduit.gateway.metrics.cfg"));
        assertEquals(String.format("%-40s %-7s  %-7s%s%n", "io.conduit.gateway.metrics", "metrics", "OFF",
                "  (io.conduit.gateway.metrics.cfg)")
                + "1 configuration: 0 running, 0 partial, 0 failed, 1 off\n",
                GatewayCommands.render(List.of(off)).replace("\r\n", "\n"));
    }
}
