package io.conduit.gateway.internal.relay;

import static io.conduit.gateway.internal.echo.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.echo.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.FakeNetwork;
import io.conduit.gateway.internal.TestDuplexChannel;
import io.conduit.gateway.internal.config.EchoConfig;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.config.StreamGuards;
import io.conduit.handler.limit.ByteRateLimitHandler;
import io.conduit.handler.limit.ConnectionLimit;
import io.conduit.handler.proxy.ProxyMessage;
import io.conduit.handler.proxy.ProxyProtocolDecoder;
import org.junit.jupiter.api.Test;

/**
 * The stream relay keys {@code proxy.protocol.accept}, {@code proxy.protocol.send}, {@code idle.timeout.ms},
 * {@code max.connections} and {@code rate.limit.bytes.per.second}: how they are parsed, and what they do to a relayed
 * connection's pipeline.
 */
class RelayStreamKeysTest {

    private static RelayConfig relay(String... keysAndValues) {
        Map<String, Object> props = new HashMap<>(Map.of("listen", "tcp://127.0.0.1:0", "upstream",
                "tcp://127.0.0.1:6379"));
        for (int i = 0; i < keysAndValues.length; i += 2) {
            props.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return RelayConfig.from(props);
    }

    private static String failure(String... keysAndValues) {
        return assertThrows(IllegalArgumentException.class, () -> relay(keysAndValues)).getMessage();
    }

    @Test
    void unsetKeysTurnNothingOn() {
        RelayConfig c = relay();
        assertNull(c.proxyAccept());
        assertEquals(0, c.proxySendVersion());
        assertEquals(new StreamGuards(0, 0), c.guards());
        assertEquals(0, c.rateLimitBytesPerSecond());
        assertNull(c.guards().newLimit("relay test"));
    }

    @Test
    void valuesAreReadInAnyCase() {
        RelayConfig c = relay("proxy.protocol.accept", " ANY ", "proxy.protocol.send", "v1", "idle.timeout.ms",
                "30000", "max.connections", "5", "rate.limit.bytes.per.second", "1000");
        assertEquals(ProxyProtocolDecoder.Versions.ANY, c.proxyAccept());
        assertEquals(1, c.proxySendVersion());
        assertEquals(new StreamGuards(30_000, 5), c.guards());
        assertEquals(1000, c.rateLimitBytesPerSecond());
        assertEquals(5, c.guards().newLimit("relay test").maxConnections());
        assertEquals(ProxyProtocolDecoder.Versions.V2, relay("proxy.protocol.accept", "v2").proxyAccept());
        assertEquals(2, relay("proxy.protocol.send", "V2").proxySendVersion());
    }

    /** Each bad value is one message naming the key, the value and what is allowed (the file comes from the caller). */
    @Test
    void badValuesNameKeyValueAndTheAllowedValues() {
        assertEquals("'proxy.protocol.accept' = 'v3' is not v1, v2 or any", failure("proxy.protocol.accept", "v3"));
        assertEquals("'proxy.protocol.send' = 'any' is not v1 or v2", failure("proxy.protocol.send", "any"));
        assertEquals("'idle.timeout.ms' = 0 is out of range 1..2147483647", failure("idle.timeout.ms", "0"));
        assertEquals("'max.connections' = 'ten' is not a whole number (e.g. max.connections = 10000)",
                failure("max.connections", "ten"));
        assertEquals("'rate.limit.bytes.per.second' = -5 is out of range 1..2147483647",
                failure("rate.limit.bytes.per.second", "-5"));
        Map<String, Object> udp = Map.of("listen", "udp://127.0.0.1:0", "upstream", "udp://127.0.0.1:53",
                "max.connections", "3");
        String m = assertThrows(IllegalArgumentException.class, () -> RelayConfig.from(udp)).getMessage();
        assertTrue(m.startsWith("'max.connections' = '3' applies to TCP and Unix relays only"), m);
    }

    @Test
    void echoTakesTheIdleTimeoutAndConnectionLimit() {
        EchoConfig c = EchoConfig.from(Map.of("listen", "tcp://127.0.0.1:0", "idle.timeout.ms", "100",
                "max.connections", "2"));
        assertEquals(new StreamGuards(100, 2), c.guards());
        String m = assertThrows(IllegalArgumentException.class, () -> EchoConfig.from(Map.of("listen",
                "tcp://127.0.0.1:0", "idle.timeout.ms", "soon"))).getMessage();
        assertEquals("'idle.timeout.ms' = 'soon' is not a whole number (e.g. idle.timeout.ms = 300000)", m);
    }

    /** With proxy.protocol.accept the upstream is connected only once the header is decoded; the bytes after it follow. */
    @Test
    void acceptDecodesTheHeaderBeforeConnectingAndSendWritesTheClientsAddressesFirst() {
        RelayConfig config = relay("proxy.protocol.accept", "v1", "proxy.protocol.send", "v2");
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = relayClient(config, net);
        assertEquals(0, net.connects.size(), "no upstream before the header");
        client.writeInbound(bytes("PROXY TCP4 192.0.2.7 198.51.100.1 40000 443\r\nhel"));
        assertEquals(1, net.connects.size());
        client.writeInbound(bytes("lo"));
        TestDuplexChannel upstream = net.succeed(0);
        client.runPendingTasks();

        EmbeddedChannel reader = new EmbeddedChannel(new ProxyProtocolDecoder(ProxyProtocolDecoder.Versions.V2));
        Buffer b;
        while ((b = upstream.readOutbound()) != null) {
            reader.writeInbound(b);
        }
        ProxyMessage sent = ProxyMessage.of(reader);
        assertNotNull(sent, "a v2 header went upstream first");
        assertEquals(new InetSocketAddress("192.0.2.7", 40000), sent.sourceAddress());
        assertEquals(new InetSocketAddress("198.51.100.1", 443), sent.destinationAddress());
        StringBuilder data = new StringBuilder();
        Object m;
        while ((m = reader.readInbound()) != null) {
            data.append(text((Buffer) m));
        }
        assertEquals("hello", data.toString());
        assertTrue(RelayFrontendHandler.describeClient(client).startsWith("/192.0.2.7:40000 (PROXY v1 from "),
                RelayFrontendHandler.describeClient(client));
        reader.finishAndReleaseAll();
    }

    /** A malformed header closes the client; nothing is connected, so nothing reaches the upstream. */
    @Test
    void aMalformedHeaderNeverReachesTheUpstream() {
        RelayConfig config = relay("proxy.protocol.accept", "v2");
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = relayClient(config, net);
        client.writeInbound(bytes("GET / HTTP/1.1\r\n\r\n"));
        client.runPendingTasks();
        assertFalse(client.isOpen());
        assertEquals(0, net.connects.size());

        TestDuplexChannel truncated = relayClient(config, net);
        truncated.writeInbound(bytes("\r\n\r\n\0\r\n"));
        truncated.receiveEof();
        assertFalse(truncated.isOpen(), "end of input inside the header");
        assertEquals(0, net.connects.size());
    }

    /** @return an active client connection of a stream relay with {@code config}, its handlers as the relay adds them */
    private static TestDuplexChannel relayClient(RelayConfig config, FakeNetwork net) {
        TestDuplexChannel client = new TestDuplexChannel();
        RelayComponent.addClientHandlers(client.pipeline(), config, null, null);
        client.pipeline().addLast("relay-frontend", new RelayFrontendHandler(config, net));
        client.pipeline().fireChannelActive();
        return client;
    }

    @Test
    void sendWithoutAcceptUsesTheConnectionsAddressesOrUnknown() {
        TestDuplexChannel client = new TestDuplexChannel();
        ProxyMessage m = RelayFrontendHandler.proxyHeader(1, client);
        assertEquals(ProxyMessage.Protocol.UNKNOWN, m.protocol(), "an embedded channel has no IP addresses");
        client.finishAndReleaseAll();
    }

    @Test
    void theRateLimitPausesReadingOfEachSide() {
        RelayConfig config = relay("rate.limit.bytes.per.second", "100");
        TestDuplexChannel client = new TestDuplexChannel();
        RelayComponent.addClientHandlers(client.pipeline(), config, null, null);
        assertNotNull(client.pipeline().get(ByteRateLimitHandler.class));
        TestDuplexChannel upstream = new TestDuplexChannel(RelayFrontendHandler.upstreamHandler(config, client));
        assertNotNull(upstream.pipeline().get(ByteRateLimitHandler.class));
        assertNotNull(upstream.pipeline().get(RelayHandler.class));
        client.writeInbound(bytes("x".repeat(1000)));
        assertFalse(client.config().isAutoRead(), "1000 bytes at 100 B/s: reading pauses");
        client.advanceTimeBy(11, TimeUnit.SECONDS);
        client.runPendingTasks();
        assertTrue(client.config().isAutoRead());
        client.finishAndReleaseAll();
        upstream.finishAndReleaseAll();
    }

    /** The embedded loop's clock also counts real time: the steps leave seconds of margin for a loaded machine. */
    @Test
    void theIdleTimeoutClosesAConnectionWithoutTraffic() {
        TestDuplexChannel client = new TestDuplexChannel();
        new StreamGuards(10_000, 0).addFirst(client.pipeline(), null);
        client.pipeline().fireChannelActive();
        client.advanceTimeBy(6_000, TimeUnit.MILLISECONDS);
        client.runPendingTasks();
        client.writeInbound(bytes("x"));
        client.advanceTimeBy(6_000, TimeUnit.MILLISECONDS);
        client.runPendingTasks();
        assertTrue(client.isOpen(), "a read 6 s ago, the timeout is 10 s: not idle");
        client.advanceTimeBy(4_100, TimeUnit.MILLISECONDS);
        client.runPendingTasks();
        assertFalse(client.isOpen());
        client.finishAndReleaseAll();
    }

    @Test
    void connectionsBeyondTheLimitAreClosedAtOnce() {
        ConnectionLimit limit = new StreamGuards(0, 1).newLimit("relay test");
        TestDuplexChannel first = new TestDuplexChannel();
        new StreamGuards(0, 1).addFirst(first.pipeline(), limit);
        first.pipeline().fireChannelActive();
        TestDuplexChannel second = new TestDuplexChannel();
        new StreamGuards(0, 1).addFirst(second.pipeline(), limit);
        second.pipeline().fireChannelActive();
        second.runPendingTasks();
        assertTrue(first.isOpen());
        assertFalse(second.isOpen());
        first.close();
        first.runPendingTasks();
        assertEquals(0, limit.openConnections());
    }
}
