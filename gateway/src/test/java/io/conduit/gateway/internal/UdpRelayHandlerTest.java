package io.conduit.gateway.internal;

import static io.conduit.gateway.internal.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class UdpRelayHandlerTest {

    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 5353);
    private static final InetSocketAddress ALICE = new InetSocketAddress("127.0.0.1", 40001);
    private static final InetSocketAddress BOB = new InetSocketAddress("127.0.0.1", 40002);
    private static final InetSocketAddress CAROL = new InetSocketAddress("127.0.0.1", 40003);

    private static RelayConfig config(int maxSessions) {
        return RelayConfig.from(Map.of("listen", "udp://127.0.0.1:5353", "upstream", "udp://127.0.0.1:53",
                "udp.idle.timeout.ms", "1000", "udp.max.sessions", String.valueOf(maxSessions)));
    }

    private static DatagramPacket from(InetSocketAddress sender, String text) {
        return new DatagramPacket(bytes(text), LOCAL, sender, false);
    }

    @Test
    void eachClientGetsItsOwnSessionAndItsOwnReplies() {
        FakeNetwork net = new FakeNetwork();
        UdpRelayHandler relay = new UdpRelayHandler(config(16), net);
        EmbeddedChannel listener = new EmbeddedChannel(relay);

        listener.writeInbound(from(ALICE, "a1"), from(BOB, "b1"), from(ALICE, "a2"));
        assertEquals(2, net.connects.size(), "one upstream channel per client");
        assertEquals(2, relay.sessionCount());

        TestDuplexChannel aliceUp = net.succeed(0);
        TestDuplexChannel bobUp = net.succeed(1);
        listener.runPendingTasks();
        assertEquals("a1", text(aliceUp.readOutbound()), "datagrams that waited for the session go first");
        assertEquals("a2", text(aliceUp.readOutbound()));
        assertEquals("b1", text(bobUp.readOutbound()));

        listener.writeInbound(from(BOB, "b2"));
        assertEquals("b2", text(bobUp.readOutbound()));

        bobUp.writeInbound(new DatagramPacket(bytes("to bob"), null, new InetSocketAddress("127.0.0.1", 53), false));
        aliceUp.writeInbound((Object) bytes("to alice"));
        DatagramPacket r1 = listener.readOutbound();
        DatagramPacket r2 = listener.readOutbound();
        assertEquals(BOB, r1.recipient());
        assertEquals("to bob", text(r1.content()));
        assertEquals(ALICE, r2.recipient());
        assertEquals("to alice", text(r2.content()));
        listener.finishAndReleaseAll();
        assertEquals(0, relay.sessionCount(), "listener closed: sessions closed");
        assertFalse(aliceUp.isOpen());
    }

    @Test
    void idleSessionsExpireActiveOnesStay() {
        FakeNetwork net = new FakeNetwork();
        UdpRelayHandler relay = new UdpRelayHandler(config(16), net);
        EmbeddedChannel listener = new EmbeddedChannel(relay);
        listener.writeInbound(from(ALICE, "a"), from(BOB, "b"));
        TestDuplexChannel aliceUp = net.succeed(0);
        net.succeed(1);
        listener.runPendingTasks();

        for (int i = 0; i < 4; i++) { // 2 s: Alice keeps talking every 500 ms, Bob is quiet
            listener.advanceTimeBy(500, TimeUnit.MILLISECONDS);
            listener.writeInbound(from(ALICE, "tick"));
            listener.runScheduledPendingTasks();
        }
        assertEquals(1, relay.sessionCount(), "Bob expired after 1..1.5 idle timeouts, Alice stays");
        assertTrue(aliceUp.isOpen());

        listener.advanceTimeBy(1600, TimeUnit.MILLISECONDS);
        listener.runScheduledPendingTasks();
        listener.advanceTimeBy(600, TimeUnit.MILLISECONDS);
        listener.runScheduledPendingTasks();
        assertEquals(0, relay.sessionCount());
        assertFalse(aliceUp.isOpen());
        Buffer b;
        while ((b = aliceUp.readOutbound()) != null) {
            b.close();
        }
        listener.finishAndReleaseAll();
    }

    @Test
    void clientsBeyondTheSessionLimitAreDropped() {
        FakeNetwork net = new FakeNetwork();
        UdpRelayHandler relay = new UdpRelayHandler(config(2), net);
        EmbeddedChannel listener = new EmbeddedChannel(relay);
        DatagramPacket fromCarol = from(CAROL, "c");
        listener.writeInbound(from(ALICE, "a"), from(BOB, "b"), fromCarol);
        assertEquals(2, relay.sessionCount());
        assertEquals(1, relay.droppedForSessionLimit());
        assertEquals(0, fromCarol.content().refCnt(), "dropped datagram released");
        assertNull(listener.readInbound());
        listener.finishAndReleaseAll();
    }

    @Test
    void failedSessionIsForgottenSoTheNextDatagramRetries() {
        FakeNetwork net = new FakeNetwork();
        UdpRelayHandler relay = new UdpRelayHandler(config(2), net);
        EmbeddedChannel listener = new EmbeddedChannel(relay);
        listener.writeInbound(from(ALICE, "a"));
        net.connects.get(0).promise().setFailure(new java.net.SocketException("Network is unreachable"));
        listener.runPendingTasks();
        assertEquals(0, relay.sessionCount());
        listener.writeInbound(from(ALICE, "again"));
        assertEquals(2, net.connects.size());
        listener.finishAndReleaseAll();
    }
}
