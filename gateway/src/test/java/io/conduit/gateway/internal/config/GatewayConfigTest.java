package io.conduit.gateway.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import io.conduit.gateway.internal.LogCapture;
import io.conduit.gateway.internal.network.GatewayUri;
import org.junit.jupiter.api.Test;

class GatewayConfigTest {

    @Test
    void relayConfigurationWithDefaults() {
        RelayConfig c = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:16379", "upstream", "unix:/run/redis.sock",
                "felix.fileinstall.filename", "file:/opt/gw/conf/io.conduit.gateway.relay-redis.cfg"));
        assertEquals("io.conduit.gateway.relay-redis.cfg", c.name());
        assertEquals(GatewayUri.Kind.UNIX, c.upstream().kind());
        assertEquals(10_000, c.connectTimeoutMillis());
        assertEquals(64 * 1024, c.writeBufferLowBytes());
        assertEquals(256 * 1024, c.writeBufferHighBytes());
        assertEquals(60_000, c.udpIdleTimeoutMillis());
        assertEquals(1024, c.udpMaxSessions());
    }

    @Test
    void relayConfigurationReadsStringsAndNumbers() {
        RelayConfig c = RelayConfig.from(Map.of("listen", "udp://127.0.0.1:5353", "upstream", "udp://127.0.0.1:53",
                "connect.timeout.ms", "250", "udp.idle.timeout.ms", 1000, "udp.max.sessions", 2L,
                "service.pid", "io.conduit.gateway.relay~dns"));
        assertEquals("io.conduit.gateway.relay~dns", c.name());
        assertEquals(250, c.connectTimeoutMillis());
        assertEquals(1000, c.udpIdleTimeoutMillis());
        assertEquals(2, c.udpMaxSessions());
    }

    @Test
    void missingUpstreamIsOneClearMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:1")));
        assertEquals("missing 'upstream' (e.g. upstream = tcp://127.0.0.1:6379)", e.getMessage());
    }

    @Test
    void malformedValuesNameTheProperty() {
        assertMessage(Map.of("listen", "tcp://127.0.0.1:x", "upstream", "tcp://127.0.0.1:1"),
                "'listen' \"tcp://127.0.0.1:x\": port 'x' is not a number");
        assertMessage(Map.of("listen", "udp://127.0.0.1:1", "upstream", "tcp://127.0.0.1:1"),
                "stream endpoints (tcp, unix) relay to stream endpoints, udp only to udp");
        assertMessage(Map.of("listen", "tcp://127.0.0.1:1", "upstream", "tcp://127.0.0.1:2", "connect.timeout.ms",
                "soon"), "'connect.timeout.ms' = 'soon' is not a whole number");
        assertMessage(Map.of("listen", "tcp://127.0.0.1:1", "upstream", "tcp://127.0.0.1:2", "connect.timeout.ms",
                "0"), "out of range 1..");
        assertMessage(Map.of("listen", "tcp://127.0.0.1:1", "upstream", "tcp://127.0.0.1:2", "write.buffer.low",
                "9", "write.buffer.high", "8"), "'write.buffer.low' = 9 is above 'write.buffer.high' = 8");
    }

    /**
     * 100 UDP clients with 16 datagrams in flight each lost 1 to 4 % of them on loopback through the gateway's UDP
     * echo and relay: the kernel's default receive buffer (212,992 bytes) overflowed. Both take
     * {@code udp.receive.buffer.bytes}, 4 MiB by default, checked like every other number.
     */
    @Test
    void udpReceiveBufferBytesDefaultsTo4MiBAndIsCheckedLikeTheOtherKeys() {
        assertEquals(4 << 20, RelayConfig.from(Map.of("listen", "udp://127.0.0.1:5353", "upstream",
                "udp://127.0.0.1:53")).udpReceiveBufferBytes());
        assertEquals(4 << 20, EchoConfig.from(Map.of("listen", "udp://127.0.0.1:7")).udpReceiveBufferBytes());
        assertEquals(8 << 20, RelayConfig.from(Map.of("listen", "udp://127.0.0.1:5353", "upstream",
                "udp://127.0.0.1:53", "udp.receive.buffer.bytes", "8388608")).udpReceiveBufferBytes());
        assertEquals(65536, EchoConfig.from(Map.of("listen", "udp://127.0.0.1:7", "udp.receive.buffer.bytes", 65536))
                .udpReceiveBufferBytes());
        assertMessage(Map.of("listen", "udp://127.0.0.1:1", "upstream", "udp://127.0.0.1:2", "udp.receive.buffer.bytes",
                "4M"), "'udp.receive.buffer.bytes' = '4M' is not a whole number (e.g. udp.receive.buffer.bytes = "
                + "4194304)");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EchoConfig.from(Map.of(
                "listen", "udp://127.0.0.1:7", "udp.receive.buffer.bytes", "100")));
        assertEquals("'udp.receive.buffer.bytes' = 100 is out of range 4096..2147483647", e.getMessage());
    }

    /**
     * {@code udp.receive.buffer.bytes =} (the value forgotten) ran with the default without a word, while any other
     * bad value stopped the endpoint with one line: the shared parsing read an empty value as an absent key, for every
     * number, boolean and choice. An empty value is now a bad value like any other, named with the allowed values.
     */
    @Test
    void anEmptyValueIsRefusedNamingTheKeyAndTheAllowedValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EchoConfig.from(Map.of(
                "listen", "udp://127.0.0.1:7", "udp.receive.buffer.bytes", "")));
        assertEquals("'udp.receive.buffer.bytes' = '' is empty; allowed: a whole number in 4096..2147483647 (e.g. "
                + "udp.receive.buffer.bytes = 4194304); remove the line for the default, 4194304", e.getMessage());
        Map<String, String> relay = Map.of("listen", "tcp://127.0.0.1:1", "upstream", "tcp://127.0.0.1:2");
        assertEquals("'connect.timeout.ms' = ' ' is empty; allowed: a whole number in 1..2147483647 (e.g. "
                + "connect.timeout.ms = 10000); remove the line for the default, 10000",
                relayFailure(relay, "connect.timeout.ms", " "));
        assertEquals("'max.connections' = '' is empty; allowed: a whole number in 1..2147483647 (e.g. "
                + "max.connections = 10000); remove the line to leave it off", relayFailure(relay, "max.connections", ""));
        assertEquals("'zeroCopy' = '' is empty; allowed: true or false; remove the line for the default, false",
                relayFailure(relay, "zeroCopy", ""));
        assertEquals("'proxy.protocol.accept' = '' is empty; allowed: v1, v2 or any; remove the line to leave it off",
                relayFailure(relay, "proxy.protocol.accept", ""));
        Map<String, String> udpRelay = Map.of("listen", "udp://127.0.0.1:1", "upstream", "udp://127.0.0.1:2");
        for (String key : List.of("udp.idle.timeout.ms", "udp.max.sessions", "udp.receive.buffer.bytes")) {
            assertTrue(relayFailure(udpRelay, key, "").startsWith("'" + key + "' = '' is empty; allowed: a whole "
                    + "number in "), key);
        }
    }

    private static String relayFailure(Map<String, String> props, String key, String value) {
        Map<String, String> all = new java.util.HashMap<>(props);
        all.put(key, value);
        return assertThrows(IllegalArgumentException.class, () -> RelayConfig.from(all)).getMessage();
    }

    /**
     * {@code udp.receive.buffer.bytes} on an echo or relay without a UDP endpoint was accepted without a word. Such a
     * key is one WARNING line naming the file, the key and why it has no effect, and the configuration runs, as a
     * configuration with an unknown key does.
     */
    @Test
    void aKeyThatCannotActOnTheEndpointsIsOneWarningAndTheConfigurationRuns() {
        try (LogCapture log = new LogCapture()) {
            EchoConfig tcp = EchoConfig.from(Map.of("listen", "tcp://127.0.0.1:7, unix:/tmp/e.sock",
                    "udp.receive.buffer.bytes", "65536",
                    "felix.fileinstall.filename", "file:/gw/conf/io.conduit.gateway.echo-tcp.cfg"));
            assertEquals(2, tcp.listen().size());
            RelayConfig relay = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:16379", "upstream",
                    "tcp://127.0.0.1:6379", "udp.max.sessions", "10", "udp.receive.buffer.bytes", "65536",
                    "felix.fileinstall.filename", "file:/gw/conf/io.conduit.gateway.relay-r.cfg"));
            assertEquals("tcp://127.0.0.1:16379", relay.listen().toString());
            EchoConfig.from(Map.of("listen", "udp://127.0.0.1:7", "max.connections", "5",
                    "felix.fileinstall.filename", "file:/gw/conf/io.conduit.gateway.echo-udp.cfg"));
            EchoConfig.from(Map.of("listen", "tcp://127.0.0.1:7, udp://127.0.0.1:7", "max.connections", "5",
                    "udp.receive.buffer.bytes", "65536"));
            assertEquals(List.of(
                    "WARNING echo io.conduit.gateway.echo-tcp.cfg: key 'udp.receive.buffer.bytes' has no effect, "
                            + "ignored: it applies to UDP endpoints only, and 'listen' (tcp://127.0.0.1:7, "
                            + "unix:/tmp/e.sock) has none",
                    "WARNING relay io.conduit.gateway.relay-r.cfg: keys 'udp.max.sessions', 'udp.receive.buffer.bytes' "
                            + "have no effect, ignored: they apply to UDP endpoints only, and 'listen' "
                            + "(tcp://127.0.0.1:16379) has none",
                    "WARNING echo io.conduit.gateway.echo-udp.cfg: key 'max.connections' has no effect, ignored: it "
                            + "applies to TCP, TLS and Unix endpoints only, and 'listen' (udp://127.0.0.1:7) has none"),
                    log.messages(), "an echo with both kinds of endpoint takes both kinds of key");
        }
    }

    @Test
    void echoListensOnAListInAnyForm() {
        List<GatewayUri> fromString = EchoConfig.from(Map.of("listen",
                "tcp://127.0.0.1:7007, udp://127.0.0.1:7007\n unix:/tmp/e.sock")).listen();
        assertEquals(3, fromString.size());
        assertEquals("unix:/tmp/e.sock", fromString.get(2).toString());
        assertEquals(2, EchoConfig.from(Map.of("listen", new String[] {"tcp://127.0.0.1:1", "udp://127.0.0.1:1"}))
                .listen().size());
        assertEquals(1, EchoConfig.from(Map.of("listen", List.of("tcp://127.0.0.1:1"))).listen().size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EchoConfig.from(Map.of()));
        assertTrue(e.getMessage().startsWith("missing 'listen'"), e.getMessage());
    }

    @Test
    void booleansAreStrict() {
        assertEquals(true, GatewayConfig.boolValue(Map.of("k", "TRUE"), "k", false));
        assertEquals(false, GatewayConfig.boolValue(Map.of(), "k", false));
        assertThrows(IllegalArgumentException.class, () -> GatewayConfig.boolValue(Map.of("k", "yes"), "k", false));
    }

    private static void assertMessage(Map<String, ?> props, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RelayConfig.from(props));
        assertTrue(e.getMessage().contains(expected), () -> e.getMessage());
    }
    @Test
    void aMisspeltKeyThatLeavesAKeyMissingIsNamedInTheFailure() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RelayConfig.from(Map.of(
                "listen", "tcp://127.0.0.1:16379", "upstrem", "tcp://127.0.0.1:6379")));
        assertEquals("unknown key 'upstrem' (did you mean 'upstream'?); missing 'upstream' (e.g. upstream = "
                + "tcp://127.0.0.1:6379)", e.getMessage());
    }

    /** A relay whose upstream is its own listen address would connect to itself until no descriptor is left. */
    @Test
    void aRelayToItsOwnListenAddressIsRefused() {
        assertMessage(Map.of("listen", "tcp://127.0.0.1:17201", "upstream", "tcp://127.0.0.1:17201"),
                "cannot relay tcp://127.0.0.1:17201 to tcp://127.0.0.1:17201: the upstream is this relay's own listen "
                        + "address, so every connection would connect to the relay again until the gateway runs out of "
                        + "file descriptors; set 'upstream' to the address of the service to relay to");
        assertMessage(Map.of("listen", "tcp://0.0.0.0:17244", "upstream", "tcp://127.0.0.1:17244"), "own listen");
        assertMessage(Map.of("listen", "tcp://127.0.0.1:17245", "upstream", "tcp://localhost:17245"), "own listen");
        assertMessage(Map.of("listen", "udp://127.0.0.1:17246", "upstream", "udp://127.0.0.1:17246"), "own listen");
        assertMessage(Map.of("listen", "unix:/tmp/r.sock", "upstream", "unix:/tmp/./r.sock"), "own listen");
        assertMessage(Map.of("listen", "unix:@relay", "upstream", "unix:@relay"), "own listen");
        // not a loop: another port, another loopback address, another path, TCP to the same port number over UDP
        for (Map<String, String> fine : List.of(
                Map.of("listen", "tcp://127.0.0.1:17247", "upstream", "tcp://127.0.0.1:17248"),
                Map.of("listen", "tcp://127.0.0.2:17249", "upstream", "tcp://127.0.0.1:17249"),
                Map.of("listen", "unix:/tmp/a.sock", "upstream", "unix:/tmp/b.sock"),
                Map.of("listen", "unix:@a", "upstream", "unix:/tmp/a"))) {
            RelayConfig.from(fine);
        }
    }

    @Test
    void aByteOrderMarkReadAsPartOfTheFirstKeyIsNamedWithWhatToDo() {
        // FileInstall reads a .cfg file as ISO-8859-1: the UTF-8 BOM EF BB BF becomes three characters of the key
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EchoConfig.from(Map.of("\u00EF\u00BB\u00BFlisten", "tcp://127.0.0.1:7")));
        assertTrue(e.getMessage().startsWith("unknown key '<BOM>listen' (the file starts with a UTF-8"
                + " byte order mark, read as part of its first key 'listen': save the file as UTF-8 without a byte"
                + " order mark); missing 'listen'"), e.getMessage());
        // a .config file is read as UTF-8: the mark is one character
        assertTrue(GatewayConfig.unknownKeys(Map.of("\uFEFFlisten", "x"), List.of("listen"))
                .contains("first key 'listen'"));
        assertEquals("unknown key '<BOM>#' (the file starts with a UTF-8 byte order mark, which turns its first line, "
                + "a comment, into a key: save the file as UTF-8 without a byte order mark)",
                GatewayConfig.unknownKeys(Map.of("\u00EF\u00BB\u00BF#", "my echo"), List.of("listen")));
        assertEquals("unknown key 'lsten' (did you mean 'listen'?)",
                GatewayConfig.unknownKeys(Map.of("lsten", "x"), List.of("listen")));
    }

    @Test
    void unknownKeysOfAValidConfigurationAreOneWarningNamingThemAndTheKnownKeys() {
        try (LogCapture log = new LogCapture()) {
            RelayConfig relay = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:16379", "upstream",
                    "tcp://127.0.0.1:6379", "zerocopy", "true", "write.buffer.hgh", "1000",
                    "felix.fileinstall.filename", "file:/gw/conf/io.conduit.gateway.relay-r.cfg"));
            assertFalse(relay.zeroCopy(), "a misspelt key is ignored, not read");
            EchoConfig.from(Map.of("listen", "tcp://127.0.0.1:1", "colour", "blue", "service.pid", "echo~e"));
            assertEquals(List.of("WARNING relay io.conduit.gateway.relay-r.cfg: unknown keys 'write.buffer.hgh' (did "
                    + "you mean 'write.buffer.high'?), 'zerocopy' (did you mean 'zeroCopy'?), ignored; the keys of "
                    + "relay configurations are: " + String.join(", ", RelayConfig.KEYS),
                    "WARNING echo echo~e: unknown key 'colour', ignored; the keys of echo configurations are: "
                            + String.join(", ", EchoConfig.KEYS)),
                    log.messages());
        }
    }

    @Test
    void theKeysOfConfigurationAdminFileInstallAndDeclarativeServicesAreNotUnknown() {
        Map<String, Object> props = new java.util.HashMap<>(Map.of("listen", "tcp://127.0.0.1:16379",
                "upstream", "tcp://127.0.0.1:6379"));
        props.put("service.pid", "io.conduit.gateway.relay.4f2c");
        props.put("service.factoryPid", "io.conduit.gateway.relay");
        props.put("service.bundleLocation", "?");
        props.put("felix.fileinstall.filename", "file:/opt/gw/conf/io.conduit.gateway.relay-redis.cfg");
        props.put("component.name", "io.conduit.gateway.relay");
        props.put("component.id", 7L);
        props.put(".private", "x");
        assertEquals("io.conduit.gateway.relay-redis.cfg", RelayConfig.from(props).name());
        props.remove("upstream");
        props.remove("listen");
        props.put("listen", "udp://127.0.0.1:7");
        assertEquals(1, EchoConfig.from(props).listen().size());
    }

    @Test
    void aSingletonConfigurationOfAFactoryComponentIsRefusedNamingTheFileItShouldBe() {
        Map<String, Object> file = Map.of("listen", "tcp://127.0.0.1:1", "service.pid", "io.conduit.gateway.echo",
                "felix.fileinstall.filename", "file:/gw/conf/io.conduit.gateway.echo.config");
        assertEquals("io.conduit.gateway.echo.config has no '-<name>': echo configurations are factory configurations, "
                + "one file per echo named io.conduit.gateway.echo-<name>.config; rename it (e.g. to "
                + "io.conduit.gateway.echo-1.config)",
                assertThrows(IllegalArgumentException.class, () -> EchoConfig.from(file)).getMessage());
        Map<String, Object> admin = Map.of("listen", "tcp://127.0.0.1:1", "upstream", "tcp://127.0.0.1:2",
                "service.pid", "io.conduit.gateway.relay");
        assertEquals("'io.conduit.gateway.relay' is a singleton configuration: relay configurations are factory "
                + "configurations of io.conduit.gateway.relay (files io.conduit.gateway.relay-<name>.cfg)",
                assertThrows(IllegalArgumentException.class, () -> RelayConfig.from(admin)).getMessage());
        assertEquals(1, EchoConfig.from(Map.of("listen", "tcp://127.0.0.1:1", "service.pid",
                "io.conduit.gateway.echo~a", "service.factoryPid", "io.conduit.gateway.echo")).listen().size());
    }

    @Test
    void theNameOfAFileInstallConfigurationIsItsFileName() {
        assertEquals("io.conduit.gateway.echo-a b.cfg", GatewayConfig.name(Map.of("felix.fileinstall.filename",
                "file:/gw/my%20conf/io.conduit.gateway.echo-a%20b.cfg")), "FileInstall writes a URL");
        assertEquals("io.conduit.gateway.echo-x.cfg", GatewayConfig.name(Map.of("felix.fileinstall.filename",
                "/gw/conf/io.conduit.gateway.echo-x.cfg")));
        assertEquals("io.conduit.gateway.echo~x", GatewayConfig.name(Map.of("service.pid", "io.conduit.gateway.echo~x")));
    }
}
