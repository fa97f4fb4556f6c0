package io.conduit.gateway.internal.relay;

import static io.conduit.gateway.internal.echo.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.echo.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.gateway.internal.FakeNetwork;
import io.conduit.gateway.internal.LogCapture;
import io.conduit.gateway.internal.TestDuplexChannel;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.metrics.DatagramTrafficHandler;
import io.conduit.gateway.internal.metrics.EndpointCounters;
import io.conduit.gateway.internal.network.Network;
import io.conduit.handler.logging.RateLimitedLog;
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

    /** The endpoint the relay serves: its current channel is the test's listener; records adopted channels. */
    private static final class FakeEndpoint implements Network.DatagramEndpoint {
        Channel channel;
        final List<Channel> adopted = new ArrayList<>();
        final List<Promise<Void>> drains = new ArrayList<>();
        private final EmbeddedChannel promiseMaker = new EmbeddedChannel();

        @Override
        public Channel channel() {
            return channel;
        }

        @Override
        public Future<Void> adopt(Channel c) {
            Promise<Void> drained = promiseMaker.eventLoop().newPromise();
            adopted.add(c);
            drains.add(drained);
            return drained;
        }
    }

    /** A relay serving an {@link EmbeddedChannel} listener, which is its endpoint's current channel. */
    private record Relay(UdpRelayHandler handler, EmbeddedChannel listener, FakeEndpoint endpoint) {
        static Relay of(RelayConfig config, FakeNetwork net) {
            FakeEndpoint endpoint = new FakeEndpoint();
            UdpRelayHandler handler = new UdpRelayHandler(config, net, endpoint);
            EmbeddedChannel listener = new EmbeddedChannel(handler);
            endpoint.channel = listener;
            return new Relay(handler, listener, endpoint);
        }

        /** Opens {@code client}'s session with one datagram and returns its (next) upstream channel. */
        TestDuplexChannel sessionOf(InetSocketAddress client, FakeNetwork net) {
            listener.writeInbound(from(client, "first"));
            TestDuplexChannel up = net.succeed(net.connects.size() - 1);
            listener.runPendingTasks();
            assertEquals("first", text(up.readOutbound()));
            return up;
        }
    }

    private static DatagramPacket from(InetSocketAddress sender, String text) {
        return new DatagramPacket(bytes(text), LOCAL, sender, false);
    }

    /**
     * Each session counts as a connection while open, with its upstream bytes and connect; the endpoint channel's
     * {@link DatagramTrafficHandler} counts the clients' datagrams and the replies.
     */
    @Test
    void sessionsUpstreamBytesAndDatagramsAreCounted() {
        FakeNetwork net = new FakeNetwork();
        EndpointCounters counters = new EndpointCounters();
        FakeEndpoint endpoint = new FakeEndpoint();
        UdpRelayHandler relay = new UdpRelayHandler(config(16), net, endpoint, counters);
        EmbeddedChannel listener = new EmbeddedChannel(new DatagramTrafficHandler(counters), relay);
        endpoint.channel = listener;
        listener.writeInbound(from(ALICE, "a1"), from(BOB, "bob"));
        TestDuplexChannel aliceUp = net.succeed(0);
        TestDuplexChannel bobUp = net.succeed(1);
        listener.runPendingTasks();
        aliceUp.releaseOutbound();
        bobUp.releaseOutbound();
        aliceUp.writeInbound((Object) bytes("reply"));
        listener.releaseOutbound();
        EndpointCounters.Snapshot s = counters.snapshot();
        assertEquals(2, s.connectionsOpen());
        assertEquals(2, s.connectionsTotal());
        assertEquals(2, s.connects());
        assertEquals(5, s.upstreamSentBytes(), "a1 and bob, also when they waited for the session");
        assertEquals(5, s.upstreamReceivedBytes());
        assertEquals(2, s.clientReceivedDatagrams());
        assertEquals(5, s.clientReceivedBytes());
        assertEquals(1, s.clientSentDatagrams());
        assertEquals(5, s.clientSentBytes());
        listener.finishAndReleaseAll();
        s = counters.snapshot();
        assertEquals(0, s.connectionsOpen(), "listener closed: sessions closed");
        assertEquals(2, s.connectionsTotal());
    }

    @Test
    void eachClientGetsItsOwnSessionAndItsOwnReplies() {
        FakeNetwork net = new FakeNetwork();
        Relay r = Relay.of(config(16), net);
        UdpRelayHandler relay = r.handler();
        EmbeddedChannel listener = r.listener();

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
        Relay r = Relay.of(config(16), net);
        UdpRelayHandler relay = r.handler();
        EmbeddedChannel listener = r.listener();
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
        Relay r = Relay.of(config(2), net);
        UdpRelayHandler relay = r.handler();
        EmbeddedChannel listener = r.listener();
        DatagramPacket fromCarol = from(CAROL, "c");
        listener.writeInbound(from(ALICE, "a"), from(BOB, "b"), fromCarol);
        assertEquals(2, relay.sessionCount());
        assertEquals(1, relay.droppedForSessionLimit());
        assertEquals(0, fromCarol.content().refCnt(), "dropped datagram released");
        assertNull(listener.readInbound());
        listener.finishAndReleaseAll();
    }

    /**
     * The session limit once warned once for the relay's whole life, so a later overload was invisible: now the first
     * drop is logged at once, later ones are counted in one line per interval, and closing the listener writes what
     * is left (fake clock).
     */
    @Test
    void sessionLimitDropsAreLoggedOnceThenCountedForTheRelaysWholeLife() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        RateLimitedLog limitLog = new RateLimitedLog(System.getLogger("io.conduit.gateway"),
                System.Logger.Level.WARNING, TimeUnit.SECONDS.toNanos(10), clock::get);
        FakeEndpoint endpoint = new FakeEndpoint();
        UdpRelayHandler relay = new UdpRelayHandler(config(1), new FakeNetwork(), endpoint, limitLog);
        EmbeddedChannel listener = new EmbeddedChannel(relay);
        endpoint.channel = listener;
        try (LogCapture log = new LogCapture()) {
            listener.writeInbound(from(ALICE, "a"));
            for (int i = 0; i < 100; i++) {
                listener.writeInbound(from(new InetSocketAddress("127.0.0.1", 41000 + i), "x"));
            }
            assertEquals(100, relay.droppedForSessionLimit());
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).startsWith("WARNING relay " + config(1).name() + ": 1 UDP sessions"
                    + " reached (udp.max.sessions); dropped a datagram of new client /127.0.0.1:41000"),
                    log.messages().get(0));

            clock.addAndGet(TimeUnit.MINUTES.toNanos(30)); // an overload long after the first
            listener.writeInbound(from(BOB, "b"));
            assertEquals(2, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(1).endsWith("dropped a datagram of new client " + BOB
                    + " (the latest of 100 in the last 1800 s)"), log.messages().get(1));

            listener.writeInbound(from(CAROL, "c"));
            assertEquals(2, log.messages().size(), "within the interval: counted, not logged");
            listener.finishAndReleaseAll(); // the endpoint closes: what is left is written
            assertEquals(3, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(2).contains(CAROL + " (the latest of 1 in the last 0 s)"),
                    log.messages().get(2));
        }
    }

    /**
     * From a user's trial: datagrams the upstream socket refused (65,508 bytes to an IPv4 upstream; ICMP port
     * unreachable once the upstream was gone) vanished without a line and were counted as sent upstream. Now each
     * such datagram is dropped, not counted, and logged: the first at once, the rest counted.
     */
    @Test
    void aDatagramTheUpstreamRefusesIsLoggedAndNotCountedAsSent() {
        FakeNetwork net = new FakeNetwork();
        EndpointCounters counters = new EndpointCounters();
        FakeEndpoint endpoint = new FakeEndpoint();
        UdpRelayHandler relay = new UdpRelayHandler(config(4), net, endpoint, counters);
        EmbeddedChannel listener = new EmbeddedChannel(relay);
        endpoint.channel = listener;
        listener.writeInbound(from(ALICE, "ok"));
        TestDuplexChannel up = net.succeed(0);
        listener.runPendingTasks();
        assertEquals("ok", text(up.readOutbound()));
        up.pipeline().addFirst("refuses", new io.conduit.channel.ChannelHandler() {
            @Override
            public void write(io.conduit.channel.ChannelHandlerContext ctx, Object msg,
                    io.conduit.concurrent.Promise<Void> promise) {
                io.conduit.buffer.ReferenceCounted.safeRelease(msg);
                promise.tryFailure(new java.io.IOException("sendmsg failed: Connection refused"));
            }
        });
        try (LogCapture log = new LogCapture()) {
            listener.writeInbound(from(ALICE, "lost"), from(ALICE, "lost too"));
            listener.runPendingTasks();
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).startsWith("WARNING relay " + config(4).name() + ": a datagram of 4 bytes"
                    + " from " + ALICE + " was not sent to the upstream"), log.messages().get(0));
            assertTrue(log.messages().get(0).contains("is dropped: sendmsg failed: Connection refused"),
                    log.messages().get(0));
            assertEquals(2, counters.snapshot().upstreamSentBytes(), "only \"ok\" was sent");
            listener.finishAndReleaseAll(); // the endpoint closes: the count of the rest is written
            assertEquals(2, log.messages().size(), log.messages().toString());
        }
    }

    @Test
    void failedSessionIsForgottenSoTheNextDatagramRetries() {
        FakeNetwork net = new FakeNetwork();
        Relay r = Relay.of(config(2), net);
        UdpRelayHandler relay = r.handler();
        EmbeddedChannel listener = r.listener();
        listener.writeInbound(from(ALICE, "a"));
        net.connects.get(0).promise().setFailure(new java.net.SocketException("Network is unreachable"));
        listener.runPendingTasks();
        assertEquals(0, relay.sessionCount());
        listener.writeInbound(from(ALICE, "again"));
        assertEquals(2, net.connects.size());
        listener.finishAndReleaseAll();
    }

    /**
     * During a swap datagrams arrive on the old channel too; replies always leave through the endpoint's current
     * channel, and the old channel going inactive (handed over) keeps the sessions.
     */
    @Test
    void repliesLeaveThroughTheCurrentChannelAndAHandedOverChannelKeepsTheSessions() {
        FakeNetwork net = new FakeNetwork();
        Relay r = Relay.of(config(16), net);
        EmbeddedChannel old = r.listener();
        old.writeInbound(from(ALICE, "a1"));
        TestDuplexChannel aliceUp = net.succeed(0);
        old.runPendingTasks();
        assertEquals(List.of(aliceUp), r.endpoint().adopted, "the session's upstream channel is adopted");
        assertEquals("a1", text(aliceUp.readOutbound()));

        EmbeddedChannel successor = new EmbeddedChannel(r.handler());
        r.endpoint().channel = successor; // the endpoint moved to another transport
        old.writeInbound(from(ALICE, "a2")); // still queued in the old socket
        successor.writeInbound(from(ALICE, "a3"));
        assertEquals("a2", text(aliceUp.readOutbound()));
        assertEquals("a3", text(aliceUp.readOutbound()), "the kept session serves the new socket's datagrams too");
        assertEquals(1, net.connects.size());
        old.finishAndReleaseAll(); // the old socket closed after the hand-over
        assertEquals(1, r.handler().sessionCount(), "a swap keeps the sessions");
        assertTrue(aliceUp.isOpen());

        aliceUp.writeInbound((Object) bytes("to alice"));
        assertNull(old.readOutbound());
        DatagramPacket reply = successor.readOutbound();
        assertEquals(ALICE, reply.recipient());
        assertEquals("to alice", text(reply.content()));
        successor.finishAndReleaseAll();
        assertEquals(0, r.handler().sessionCount(), "the endpoint closed: sessions closed");
        assertFalse(aliceUp.isOpen());
    }

    @Test
    void aReplyWrittenJustBeforeASwapIsFlushedOnTheChannelItWasWrittenTo() {
        FakeNetwork net = new FakeNetwork();
        Relay r = Relay.of(config(16), net);
        EmbeddedChannel old = r.listener();
        TestDuplexChannel aliceUp = r.sessionOf(ALICE, net);

        aliceUp.pipeline().fireChannelRead(bytes("to alice")); // written to the old channel, not flushed yet
        EmbeddedChannel successor = new EmbeddedChannel(r.handler());
        r.endpoint().channel = successor; // the endpoint swaps before the upstream's read completes
        aliceUp.pipeline().fireChannelReadComplete();
        old.runPendingTasks();
        DatagramPacket reply = old.readOutbound();
        assertNotNull(reply, "the reply left through the channel it was written to, not queued there until it closes");
        assertEquals(ALICE, reply.recipient());
        assertEquals("to alice", text(reply.content()));
        assertNull(successor.readOutbound());
        old.finishAndReleaseAll();
        successor.finishAndReleaseAll();
    }

    /**
     * When the session's transport goes away (its drain starts) the session is forgotten: the client's next datagram
     * opens a new session, while the old upstream channel still relays late replies until it is closed.
     */
    @Test
    void aDrainedSessionIsReplacedAndStillRelaysLateReplies() {
        FakeNetwork net = new FakeNetwork();
        Relay r = Relay.of(config(16), net);
        EmbeddedChannel listener = r.listener();
        listener.writeInbound(from(ALICE, "a1"));
        TestDuplexChannel oldUp = net.succeed(0);
        listener.runPendingTasks();
        assertEquals("a1", text(oldUp.readOutbound()));

        r.endpoint().drains.get(0).setSuccess(null);
        assertEquals(0, r.handler().sessionCount(), "a drained session is forgotten");
        listener.writeInbound(from(ALICE, "a2"));
        assertEquals(2, net.connects.size(), "a new session on the current transport");
        TestDuplexChannel newUp = net.succeed(1);
        listener.runPendingTasks();
        assertEquals("a2", text(newUp.readOutbound()));
        assertNull(oldUp.readOutbound(), "nothing new goes to the drained upstream channel");

        oldUp.writeInbound((Object) bytes("late reply to a1"));
        DatagramPacket late = listener.readOutbound();
        assertEquals(ALICE, late.recipient());
        assertEquals("late reply to a1", text(late.content()));
        oldUp.close();
        assertEquals(1, r.handler().sessionCount(), "closing the drained channel leaves the new session alone");
        listener.finishAndReleaseAll();
    }
}
