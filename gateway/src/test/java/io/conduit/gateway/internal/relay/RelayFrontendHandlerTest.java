package io.conduit.gateway.internal.relay;

import static io.conduit.gateway.internal.echo.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.echo.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelOption;
import io.conduit.channel.ConnectTimeoutException;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.gateway.internal.FakeNetwork;
import io.conduit.gateway.internal.LogCapture;
import io.conduit.gateway.internal.TestDuplexChannel;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.metrics.EndpointCounters;
import io.conduit.gateway.internal.metrics.TrafficHandler;
import io.conduit.handler.logging.RateLimitedLog;
import org.junit.jupiter.api.Test;

class RelayFrontendHandlerTest {

    private static final RelayConfig CONFIG = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0", "upstream",
            "unix:/tmp/upstream.sock", "connect.timeout.ms", "1500", "write.buffer.low", "1000",
            "write.buffer.high", "2000"));

    @Test
    void connectsUpstreamWithTheConfiguredOptionsThenRelays() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));

        assertEquals(1, net.connects.size());
        FakeNetwork.Connect c = net.connects.get(0);
        assertEquals(CONFIG.upstream(), c.endpoint());
        assertEquals(1500, c.options().get(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertEquals(Boolean.TRUE, c.options().get(ChannelOption.ALLOW_HALF_CLOSURE));
        assertEquals(new WriteBufferWaterMark(1000, 2000), c.options().get(ChannelOption.WRITE_BUFFER_WATER_MARK));
        client.writeInbound(bytes("early "), bytes("bird"));
        assertNull(client.readInbound(), "early input is held, not dropped");

        TestDuplexChannel upstream = net.succeed(0);
        client.runPendingTasks();
        assertEquals("early ", text(upstream.readOutbound()), "early input goes upstream first, in order");
        assertEquals("bird", text(upstream.readOutbound()));
        assertTrue(client.config().isAutoRead());
        assertNotNull(client.pipeline().get("relay"));

        client.writeInbound(bytes("ping"));
        assertEquals("ping", text(upstream.readOutbound()));
        upstream.writeInbound(bytes("pong"));
        assertEquals("pong", text(client.readOutbound()));
    }

    /**
     * With the endpoint's counters: the connect's duration lands in the histogram, the upstream channel counts the
     * bytes each way (the early input included), and a failed connect is a failure, not a duration.
     */
    @Test
    void theEndpointsCountersGetTheConnectAndTheUpstreamBytes() {
        FakeNetwork net = new FakeNetwork();
        EndpointCounters counters = new EndpointCounters();
        TestDuplexChannel client = new TestDuplexChannel(TrafficHandler.client(counters),
                new RelayFrontendHandler(CONFIG, net, RelayFrontendHandler.unreachableLog(), counters));
        client.writeInbound(bytes("early "));
        TestDuplexChannel upstream = net.succeed(0);
        client.runPendingTasks();
        client.writeInbound(bytes("ping"));
        upstream.writeInbound(bytes("pong!"));
        upstream.releaseOutbound();
        client.releaseOutbound();
        EndpointCounters.Snapshot s = counters.snapshot();
        assertEquals(1, s.connects());
        assertEquals(0, s.connectFailures());
        assertEquals(10, s.clientReceivedBytes());
        assertEquals(10, s.upstreamSentBytes(), "early input and what followed");
        assertEquals(5, s.upstreamReceivedBytes());
        assertEquals(5, s.clientSentBytes());
        assertEquals(1, s.connectionsOpen());

        TestDuplexChannel refused = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net,
                RelayFrontendHandler.unreachableLog(), counters));
        net.connects.get(1).promise().setFailure(new java.net.ConnectException("Connection refused"));
        refused.runPendingTasks();
        net.refuseWith = new IllegalStateException("the transport went away");
        new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net, RelayFrontendHandler.unreachableLog(), counters));
        s = counters.snapshot();
        assertEquals(2, s.connectFailures(), "refused, and could not start");
        assertEquals(1, s.connects());
    }

    @Test
    void earlyInputBeyondTheHighWaterMarkPausesTheClientUntilConnected() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));
        client.writeInbound(bytes("x".repeat(1500)));
        assertTrue(client.config().isAutoRead());
        client.writeInbound(bytes("y".repeat(1000)));
        assertFalse(client.config().isAutoRead(), "2500 early bytes > write.buffer.high 2000");
        TestDuplexChannel upstream = net.succeed(0);
        client.runPendingTasks();
        assertTrue(client.config().isAutoRead(), "reading resumes once the upstream took the early input");
        assertEquals(1500, upstream.<io.conduit.buffer.Buffer>readOutbound().readableBytes());
        upstream.finishAndReleaseAll();
    }

    @Test
    void endOfInputBeforeTheUpstreamIsThereIsForwardedAfterTheEarlyBytes() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));
        client.writeInbound(bytes("GET /"));
        client.receiveEof();
        TestDuplexChannel upstream = net.succeed(0);
        client.runPendingTasks();
        assertTrue(upstream.isOutputShutdown());
        assertEquals(1, upstream.flushedAtOutputShutdown, "FIN after the early bytes");
        assertEquals("GET /", text(upstream.readOutbound()));
    }

    @Test
    void unreachableUpstreamClosesTheClient() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));
        net.connects.get(0).promise().setFailure(new ConnectTimeoutException("connect timed out after 1500 ms"));
        client.runPendingTasks();
        assertFalse(client.isOpen());
    }

    /**
     * An upstream that refuses connections once logged one INFO line per client (302 for 302): the relay's clients
     * share one {@link RateLimitedLog}, so 302 refused clients within the interval give one line, and the next one
     * after it a line that counts them (fake clock).
     */
    @Test
    void clientsOfARefusingUpstreamAreLoggedOnceThenCounted() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        RateLimitedLog unreachable = unreachableLog(clock);
        try (LogCapture log = new LogCapture()) {
            FakeNetwork net = new FakeNetwork();
            for (int i = 0; i < 302; i++) {
                TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net, unreachable));
                net.connects.get(i).promise().setFailure(new java.net.ConnectException("Connection refused"));
                client.runPendingTasks();
                assertFalse(client.isOpen(), "client " + i + " closed");
            }
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).startsWith("INFO relay " + CONFIG.name() + ": upstream "
                    + CONFIG.upstream() + " unreachable (java.net.ConnectException: Connection refused); closed client"),
                    log.messages().get(0));

            clock.addAndGet(TimeUnit.SECONDS.toNanos(10));
            TestDuplexChannel late = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net, unreachable));
            net.connects.get(302).promise().setFailure(new java.net.ConnectException("Connection refused"));
            late.runPendingTasks();
            assertEquals(2, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(1).endsWith("(the latest of 302 in the last 10 s)"), log.messages().get(1));
        }
    }

    /**
     * A connect that cannot even start (here: the client's event loop belongs to a transport that went away during a
     * swap) closes the client and is counted like an unreachable upstream: one line for a burst of clients, where
     * there used to be a WARNING per client.
     */
    @Test
    void connectsThatCannotStartAreLoggedOnceThenCounted() {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
        RateLimitedLog unreachable = unreachableLog(clock);
        try (LogCapture log = new LogCapture()) {
            FakeNetwork net = new FakeNetwork();
            net.refuseWith = new IllegalArgumentException("event loop x was not made by the 'epoll' transport");
            for (int i = 0; i < 50; i++) {
                TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net, unreachable));
                client.runPendingTasks();
                assertFalse(client.isOpen(), "client " + i + " closed");
            }
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).startsWith("INFO relay " + CONFIG.name() + ": cannot connect to "
                    + CONFIG.upstream() + ": event loop x was not made by the 'epoll' transport; closed client"),
                    log.messages().get(0));
            assertEquals(49, unreachable.unreported());
            unreachable.flush();
            assertTrue(log.messages().get(1).contains("(the latest of 49 in the last 0 s)"), log.messages().get(1));
        }
    }

    @Test
    void clientLeavingWhileConnectingCancelsTheConnect() {
        FakeNetwork net = new FakeNetwork();
        TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net));
        io.conduit.buffer.Buffer early = bytes("never sent");
        client.writeInbound(early);
        client.close();
        client.runPendingTasks();
        assertTrue(net.connects.get(0).promise().isCancelled());
        assertEquals(0, early.refCnt(), "held early input released");
        assertNull(client.readOutbound());
    }
    @Test
    void anUnreachableUpstreamNamesAUnixClientThatHasNoName() {
        try (LogCapture log = new LogCapture()) {
            FakeNetwork net = new FakeNetwork();
            TestDuplexChannel client = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, net)) {
                @Override
                public java.net.SocketAddress remoteAddress() {
                    return java.net.UnixDomainSocketAddress.of(""); // what a client that did not bind looks like
                }
            };
            net.connects.get(0).promise().setFailure(new java.net.ConnectException("Connection refused"));
            client.runPendingTasks();
            String line = log.messages().stream().filter(l -> l.contains("unreachable")).findFirst().orElseThrow();
            assertTrue(line.contains("closed client an unnamed Unix socket (connection " + client.id() + ") "), line);
        }
        TestDuplexChannel tcp = new TestDuplexChannel(new RelayFrontendHandler(CONFIG, new FakeNetwork())) {
            @Override
            public java.net.SocketAddress remoteAddress() {
                return new java.net.InetSocketAddress("127.0.0.1", 40312);
            }
        };
        assertEquals("/127.0.0.1:40312", RelayFrontendHandler.describeClient(tcp));
    }

    /** @return a relay's log of unreachable upstreams as the gateway makes it, with a 10 s interval on {@code clock} */
    /**
     * The line of a failed upstream handshake says in plain words what failed and which key fixes it, read from the
     * cause's type (as the JDK's trust manager and the TLS handler make them), never from its message.
     */
    @Test
    void aFailedUpstreamHandshakeIsWordedByItsCauseWithTheKeyToSet() {
        RelayConfig tls = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0", "upstream", "tls://10.0.0.5:443",
                "tls.upstream.serverName", "db.example", "felix.fileinstall.filename",
                "file:/opt/gw/conf/io.conduit.gateway.relay-db.cfg"));
        String head = "relay io.conduit.gateway.relay-db.cfg: TLS handshake failed with upstream tls://10.0.0.5:443: ";
        javax.net.ssl.SSLHandshakeException untrusted = new javax.net.ssl.SSLHandshakeException("PKIX path building");
        untrusted.initCause(new java.security.cert.CertificateException("validator",
                new java.security.cert.CertPathBuilderException("unable to find valid certification path")));
        assertEquals(head + "its certificate is not trusted (it does not chain to a trusted CA); set"
                + " 'tls.upstream.ca' to the CA certificate that signed it",
                RelayFrontendHandler.tlsUpstreamFailure(tls, untrusted));
        javax.net.ssl.SSLHandshakeException wrongName = new javax.net.ssl.SSLHandshakeException("No SAN");
        wrongName.initCause(new java.security.cert.CertificateException("No subject alternative names present"));
        assertEquals(head + "its certificate does not name the host name 'db.example'; set 'tls.upstream.serverName'"
                + " to a name in the certificate", RelayFrontendHandler.tlsUpstreamFailure(tls, wrongName));
        assertTrue(RelayFrontendHandler.tlsUpstreamFailure(tls, new io.conduit.channel.ChannelClosedException(
                "closed", null)).startsWith(head + "the upstream closed the connection during the handshake"));
        assertEquals(head + "Received fatal alert: handshake_failure", RelayFrontendHandler.tlsUpstreamFailure(tls,
                new javax.net.ssl.SSLHandshakeException("Received fatal alert: handshake_failure")));
    }

    private static RateLimitedLog unreachableLog(java.util.concurrent.atomic.AtomicLong clock) {
        return new RateLimitedLog(System.getLogger("io.conduit.gateway"), System.Logger.Level.INFO,
                TimeUnit.SECONDS.toNanos(10), clock::get);
    }
}
