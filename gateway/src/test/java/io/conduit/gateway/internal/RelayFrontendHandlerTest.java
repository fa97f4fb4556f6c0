package io.conduit.gateway.internal;

import static io.conduit.gateway.internal.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import io.conduit.channel.ChannelOption;
import io.conduit.channel.ConnectTimeoutException;
import io.conduit.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;

class RelayFrontendHandlerTest {

    private static final RelayConfig CONFIG = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0", "upstream",
            "unix:/tmp/upstream.sock", "connect.timeout.ms", "1500", "write.buffer.low", "1000",
            "write.buffer.high", "2000"));

    @Test
    void connectsUpstreamWithTheConfiguredOptionsThenRelays() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel();
        client.config().setAutoRead(false);
        client.pipeline().addLast(new RelayFrontendHandler(CONFIG, net));
        client.pipeline().fireChannelActive();

        assertEquals(1, net.connects.size());
        FakeNetwork.Connect c = net.connects.get(0);
        assertEquals(CONFIG.upstream(), c.endpoint());
        assertEquals(1500, c.options().get(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertEquals(Boolean.TRUE, c.options().get(ChannelOption.ALLOW_HALF_CLOSURE));
        assertEquals(new WriteBufferWaterMark(1000, 2000), c.options().get(ChannelOption.WRITE_BUFFER_WATER_MARK));
        assertFalse(client.config().isAutoRead(), "nothing read before the upstream is there");

        TestDuplexChannel upstream = net.succeed(0);
        client.runPendingTasks();
        assertTrue(client.config().isAutoRead());
        assertNotNull(client.pipeline().get("relay"));

        client.writeInbound(bytes("ping"));
        assertEquals("ping", text(upstream.readOutbound()));
        upstream.writeInbound(bytes("pong"));
        assertEquals("pong", text(client.readOutbound()));
    }

    @Test
    void unreachableUpstreamClosesTheClient() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));
        net.connects.get(0).promise().setFailure(new ConnectTimeoutException("connect timed out after 1500 ms"));
        client.runPendingTasks();
        assertFalse(client.isOpen());
    }

    @Test
    void clientLeavingWhileConnectingCancelsTheConnect() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));
        client.close();
        client.runPendingTasks();
        assertTrue(net.connects.get(0).promise().isCancelled());
        assertNull(client.readOutbound());
    }
}
