package io.conduit.handler.ssl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelClosedException;
import io.conduit.concurrent.Future;
import io.conduit.handler.LogCapture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TlsHandler} between two embedded channels: handshakes (TLS 1.3 and 1.2), mutual TLS, SNI, ALPN, resumption,
 * close_notify, records cut at every byte, gathering of writes, failing pending writes, bad input and the handshake
 * timeout.
 */
@Timeout(60)
class TlsHandlerTest {

    @TempDir
    static Path dir;
    static TestPki pki;
    static Path ca;
    static Path serverChain;
    static Path serverKey;
    static Path clientChain;
    static Path clientKey;
    static Path aChain;
    static Path aKey;

    @BeforeAll
    static void makeCertificates() throws Exception {
        pki = new TestPki(dir, "Test CA");
        ca = pki.caFile();
        TestPki.Issued server = pki.leaf(TestPki.ec(), true, "localhost");
        serverChain = pki.chain("server.pem", server);
        serverKey = pki.pkcs8("server.key", server.keys().getPrivate(), null);
        TestPki.Issued client = pki.leaf(TestPki.ec(), false, "device-1");
        clientChain = pki.chain("client.pem", client);
        clientKey = pki.pkcs8("client.key", client.keys().getPrivate(), null);
        TestPki.Issued a = pki.leaf(TestPki.ec(), true, "a.example", "*.wild.example");
        aChain = pki.chain("a.pem", a);
        aKey = pki.traditional("a.key", a.keys().getPrivate(), null);
    }

    static TlsContext.Builder server() {
        return TlsContext.forServer(serverChain, serverKey, null);
    }

    static TlsContext.Builder client() {
        return TlsContext.forClient().trust(ca);
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
    void handshakeBothWaysThenDataBothWays(String protocol) throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(),
                client().protocols(protocol).build().newClientHandler("localhost", 443));
        p.shuttle();
        TlsHandshakeResult c = p.clientTls.handshakeFuture().getNow();
        TlsHandshakeResult s = p.serverTls.handshakeFuture().getNow();
        assertEquals(protocol, c.protocol());
        assertEquals(protocol, s.protocol());
        assertEquals(c.cipherSuite(), s.cipherSuite());
        assertEquals("CN=localhost", c.peerSubject(), "the client sees the server's certificate");
        assertEquals(2, c.peerCertificates().size(), "the chain: server, then CA");
        assertEquals(List.of(), s.peerCertificates(), "no client certificate without client authentication");
        assertEquals("localhost", s.serverName(), "the client sent SNI");
        assertFalse(c.resumed());
        assertNull(c.applicationProtocol());
        assertEquals(List.of(TlsHandshakeCompletionEvent.class), p.client.events.stream().map(Object::getClass).toList());
        assertTrue(p.server.events(TlsHandshakeCompletionEvent.class).get(0).isSuccess());
        assertEquals(s, p.serverTls.handshakeResult());

        Future<Void> w = TlsPair.send(p.clientChannel, text("ping"));
        TlsPair.send(p.serverChannel, text("pong"));
        p.shuttle();
        assertTrue(w.isSuccess());
        assertEquals("ping", p.server.plain.toString(StandardCharsets.UTF_8));
        assertEquals("pong", p.client.plain.toString(StandardCharsets.UTF_8));
    }

    @Test
    void writesBeforeTheHandshakeAreSentAfterItGatheredIntoOneRecord() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(),
                client().build().newClientHandler("localhost", 443));
        List<Future<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Buffer b = BufferAllocator.unpooled().buffer(10);
            b.writeBytes(text(String.format("line %04d\n", i)));
            writes.add(p.clientChannel.write(b));
        }
        p.clientChannel.flush();
        assertFalse(writes.get(0).isDone(), "held until the handshake completes");
        p.shuttle();
        assertTrue(writes.stream().allMatch(Future::isSuccess));
        assertEquals(1000, p.server.plain.size());
        assertTrue(p.server.plain.toString(StandardCharsets.UTF_8).endsWith("line 0099\n"));

        int before = TlsPair.records(p.clientToServer.toByteArray());
        for (int i = 0; i < 100; i++) {
            Buffer b = BufferAllocator.unpooled().buffer(100);
            b.writeBytes(new byte[100]);
            p.clientChannel.write(b);
        }
        p.clientChannel.flush();
        p.shuttle();
        assertEquals(1, TlsPair.records(p.clientToServer.toByteArray()) - before,
                "100 writes of 100 bytes flushed together are one record");
        assertEquals(11_000, p.server.plain.size());
    }

    @Test
    void everyRecordCutAtEveryBytePositionStillArrivesWhole() throws Exception {
        // one byte per read: every record of the handshake and of the data is cut at each of its positions
        TlsContext serverContext = server().build();
        SniMapping sni = SniMapping.builder(serverContext).build();
        TlsPair p = new TlsPair(sni.newServerHandler(), client().build().newClientHandler("localhost", 443));
        p.cutter = TlsPair::oneByteEach;
        p.shuttle();
        assertTrue(p.clientTls.handshakeFuture().isSuccess());
        byte[] data = new byte[40_000];
        new Random(1).nextBytes(data);
        TlsPair.send(p.clientChannel, data);
        p.shuttle();
        assertArrayEquals(data, p.server.plain.toByteArray());

        // two reads, cut at every position of a three-record flight, each on a fresh connection
        TlsContext clientContext = client().build();
        byte[] message = new byte[33_000];
        new Random(2).nextBytes(message);
        int flightLength = -1;
        for (int cut = 0; flightLength < 0 || cut <= flightLength; cut += 1) {
            TlsPair q = new TlsPair(serverContext.newServerHandler(), clientContext.newClientHandler("localhost", 443));
            q.shuttle();
            int at = cut;
            q.cutter = n -> at >= n ? new int[] {n} : new int[] {at, n - at};
            int sentBefore = q.clientToServer.size();
            TlsPair.send(q.clientChannel, message);
            q.shuttle();
            flightLength = q.clientToServer.size() - sentBefore;
            assertEquals(3, TlsPair.records(java.util.Arrays.copyOfRange(q.clientToServer.toByteArray(), sentBefore,
                    q.clientToServer.size())));
            assertArrayEquals(message, q.server.plain.toByteArray(), "cut at " + cut);
            if (cut > 64 && cut < flightLength - 64) {
                cut += 97;   // the middle of a record: sampled; both ends of every record header: every byte
            }
        }
    }

    @Test
    void mutualTlsRequiredAcceptsACertifiedClientAndClosesOneWithout() throws Exception {
        TlsContext serverContext = server().trust(ca).clientAuth(ClientAuth.REQUIRED).build();
        TlsPair ok = new TlsPair(serverContext.newServerHandler(),
                client().certificate(clientChain, clientKey, null).build().newClientHandler("localhost", 443));
        assertNull(ok.serverTls.connectionFacts(), "conduit:channels shows nothing before the handshake");
        ok.shuttle();
        assertEquals("CN=device-1", ok.serverTls.handshakeFuture().getNow().peerSubject());
        assertEquals(ok.serverTls.handshakeResult().protocol() + " sni localhost peer CN=device-1",
                ok.serverTls.connectionFacts(), "what conduit:channels shows in its PEER column");

        try (LogCapture log = new LogCapture(TlsHandler.class.getName())) {
            TlsPair bad = new TlsPair(serverContext.newServerHandler(), client().build().newClientHandler("localhost", 443));
            bad.shuttle();
            assertFalse(bad.serverChannel.isOpen(), "a client without a certificate is closed");
            assertTrue(bad.server.inactive);
            assertFalse(bad.serverTls.handshakeFuture().isSuccess());
            // the server's line; the client (TLS 1.3: done before the server checks it) logs the alert it got
            List<java.util.logging.LogRecord> server = log.records().stream()
                    .filter(r -> r.getMessage().contains("client certificate")).toList();
            assertEquals(1, server.size(), log.lines().toString());
            String line = server.get(0).getMessage();
            assertTrue(line.startsWith("TLS handshake failed on ") && line.contains("Empty client certificate chain")
                    && line.endsWith("closed the connection (repeats are counted: at most one line every 10 s)"), line);
            assertNull(server.get(0).getThrown(), "no stack trace");
        }
    }

    @Test
    void optionalClientAuthAcceptsBothAndReportsWhatItGot() throws Exception {
        TlsContext serverContext = server().trust(ca).clientAuth(ClientAuth.OPTIONAL).build();
        TlsPair without = new TlsPair(serverContext.newServerHandler(), client().build().newClientHandler("localhost", 1));
        without.shuttle();
        assertEquals(List.of(), without.serverTls.handshakeFuture().getNow().peerCertificates());
        TlsPair with = new TlsPair(serverContext.newServerHandler(),
                client().certificate(clientChain, clientKey, null).build().newClientHandler("localhost", 1));
        with.shuttle();
        assertEquals("CN=device-1", with.serverTls.handshakeFuture().getNow().peerSubject());
    }

    @Test
    void sniChoosesTheContextOfTheNameTheClientSends() throws Exception {
        SniMapping sni = SniMapping.builder(server().build())
                .add("a.example", TlsContext.forServer(aChain, aKey, null).build())
                .add("*.wild.example", TlsContext.forServer(aChain, aKey, null).build()).build();
        TlsContext clientContext = client().build();
        for (String[] c : new String[][] {{"a.example", "CN=a.example"}, {"localhost", "CN=localhost"},
                {"x.wild.example", "CN=a.example"}}) {
            TlsPair p = new TlsPair(sni.newServerHandler(), clientContext.newClientHandler(c[0], 443));
            p.shuttle();
            assertTrue(p.clientTls.handshakeFuture().isSuccess(), c[0] + ": " + p.clientTls.handshakeFuture().cause());
            assertEquals(c[1], p.clientTls.handshakeResult().peerSubject(), c[0]);
            assertEquals(c[0], p.serverTls.handshakeResult().serverName());
        }
        // an IP address is verified against the certificate's IP names and never sent as SNI
        TlsPair ip = new TlsPair(sni.newServerHandler(), clientContext.newClientHandler("127.0.0.1", 443));
        ip.shuttle();
        assertTrue(ip.clientTls.handshakeFuture().isSuccess(), String.valueOf(ip.clientTls.handshakeFuture().cause()));
        assertNull(ip.serverTls.handshakeResult().serverName());
        assertEquals("CN=localhost", ip.clientTls.handshakeResult().peerSubject(), "the default context");
        // a client that verifies host names refuses a certificate for another name
        TlsPair wrong = new TlsPair(SniMapping.builder(server().build()).build().newServerHandler(),
                clientContext.newClientHandler("b.example", 443));
        wrong.shuttle();
        assertFalse(wrong.clientTls.handshakeFuture().isSuccess());
        assertFalse(wrong.clientChannel.isOpen());
    }

    @Test
    void alpnNegotiatesTheServersFirstChoiceTheClientOffersOrFails() throws Exception {
        TlsContext serverContext = server().alpn("h2", "http/1.1").build();
        TlsPair p = new TlsPair(serverContext.newServerHandler(),
                client().alpn("http/1.1", "h2").build().newClientHandler("localhost", 443));
        p.shuttle();
        assertEquals("h2", p.clientTls.handshakeResult().applicationProtocol());
        assertEquals("h2", p.serverTls.handshakeResult().applicationProtocol());

        TlsPair none = new TlsPair(serverContext.newServerHandler(),
                client().alpn("mqtt").build().newClientHandler("localhost", 443));
        none.shuttle();
        assertFalse(none.clientTls.handshakeFuture().isSuccess());
        assertFalse(none.serverChannel.isOpen());
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
    void aSecondConnectionResumesTheSession(String protocol) throws Exception {
        TlsContext serverContext = server().build();
        TlsContext clientContext = client().protocols(protocol).build();
        TlsPair first = new TlsPair(serverContext.newServerHandler(), clientContext.newClientHandler("localhost", 8883));
        first.shuttle();
        TlsPair.send(first.clientChannel, text("hi"));
        first.shuttle();   // the client reads the session ticket
        assertFalse(first.clientTls.handshakeResult().resumed());
        assertFalse(first.serverTls.handshakeResult().resumed());
        Thread.sleep(5);   // session creation times have millisecond resolution (see TlsHandler#resumed)

        TlsPair second = new TlsPair(serverContext.newServerHandler(), clientContext.newClientHandler("localhost", 8883));
        second.shuttle();
        assertTrue(second.clientTls.handshakeResult().resumed(), "client side");
        assertTrue(second.serverTls.handshakeResult().resumed(), "server side");
        assertEquals("CN=localhost", second.clientTls.handshakeResult().peerSubject(), "the peer chain is kept");
    }

    @Test
    void closeSendsCloseNotifyAndThePeerClosesToo() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(), client().build().newClientHandler("localhost", 443));
        p.shuttle();
        Future<Void> closed = p.clientChannel.close();
        p.shuttle();
        assertTrue(closed.isSuccess());
        assertEquals(1, p.server.events(TlsCloseNotifyEvent.class).size(), "the server got close_notify");
        assertFalse(p.serverChannel.isOpen(), "without half-closure the server closes");
    }

    @Test
    void withHalfClosureATls13CloseNotifyLeavesTheOutputOpen() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(), client().build().newClientHandler("localhost", 443));
        p.serverChannel.config().setOption(io.conduit.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        p.shuttle();
        assertEquals("TLSv1.3", p.serverTls.handshakeResult().protocol());
        p.clientChannel.close();
        p.shuttle();
        assertEquals(1, p.server.events(TlsCloseNotifyEvent.class).size());
        assertTrue(p.serverChannel.isOpen(), "the server may still write");
        Future<Void> last = TlsPair.send(p.serverChannel, text("last words"));
        assertTrue(last.isSuccess());
        Buffer record = p.serverChannel.readOutbound();
        assertEquals(23, record.getByte(record.readerIndex()), "an application data record");
        record.release();
        Future<Void> closed = p.serverChannel.close();
        assertTrue(closed.isSuccess());
        assertFalse(p.serverChannel.isOpen());
        p.serverChannel.releaseOutbound();
    }

    /** A server channel whose output can be shut down, as a TCP channel's. */
    static final class ShutdownOutputChannel extends io.conduit.channel.embedded.EmbeddedChannel
            implements io.conduit.channel.DuplexChannel {
        /** Encrypted buffers written before the output was shut down; -1 while it is open. */
        int outboundAtShutdown = -1;

        ShutdownOutputChannel(io.conduit.channel.ChannelHandler... handlers) {
            super(handlers);
        }

        @Override
        public boolean isInputShutdown() {
            return false;
        }

        @Override
        public boolean isOutputShutdown() {
            return outboundAtShutdown >= 0;
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public Future<Void> shutdownInput() {
            throw new UnsupportedOperationException("not used by the TLS handler");
        }

        @Override
        public Future<Void> shutdownOutput() {
            outboundAtShutdown = outboundMessages().size();
            return eventLoop().newSucceededFuture(null);
        }

        @Override
        public Future<Void> shutdown() {
            throw new UnsupportedOperationException("not used by the TLS handler");
        }
    }

    @Test
    void closeOutboundSendsCloseNotifyThenShutsTheOutputAndTls13KeepsReading() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(), client().build().newClientHandler("localhost", 443),
                ShutdownOutputChannel::new);
        p.clientChannel.config().setOption(io.conduit.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        ShutdownOutputChannel serverChannel = (ShutdownOutputChannel) p.serverChannel;
        p.shuttle();
        assertEquals("TLSv1.3", p.serverTls.handshakeResult().protocol());
        Buffer last = BufferAllocator.unpooled().buffer(9);
        last.writeBytes(text("last word"));
        Future<Void> lastWrite = p.serverChannel.write(last);   // written, not flushed: closeOutbound flushes it
        Future<Void> shut = p.serverTls.closeOutbound();
        assertTrue(serverChannel.isOutputShutdown(), "the output is shut down once close_notify is written");
        assertTrue(shut.isSuccess());
        assertTrue(lastWrite.isSuccess(), "what was written before is sent before close_notify");
        assertEquals(serverChannel.outboundMessages().size(), serverChannel.outboundAtShutdown,
                "nothing is written after the shutdown");
        p.shuttle();
        assertEquals("last word", p.client.plain.toString(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(1, p.client.events(TlsCloseNotifyEvent.class).size(), "the client got close_notify");
        Future<Void> after = TlsPair.send(p.serverChannel, text("too late"));
        assertInstanceOf(ChannelClosedException.class, after.cause(), "no write after the output is closed");
        TlsPair.send(p.clientChannel, text("the client still talks"));
        p.shuttle();
        assertEquals("the client still talks", p.server.plain.toString(java.nio.charset.StandardCharsets.US_ASCII),
                "TLS 1.3: the server's input stays open");
        assertTrue(p.serverChannel.isOpen());
        p.serverChannel.close();
        p.clientChannel.close();
        p.serverChannel.releaseOutbound();
        p.clientChannel.releaseOutbound();
    }

    /**
     * A relay whose client sends its bytes and its end of stream at once asks the upstream's TLS handler for the
     * half-closure while that handshake is still running. Closing then (as the handler did) sent an alert in the clear
     * after the server had switched to handshake keys ("Insufficient buffer remaining for AEAD cipher fragment (2)"
     * on a Conduit TLS listener) and dropped the held bytes: 44 of 50 relayed clients got nothing back.
     */
    @Test
    void closeOutboundBeforeTheHandshakeWaitsForItThenSendsTheHeldWritesAndCloseNotify() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(), client().build().newClientHandler("localhost", 443),
                ShutdownOutputChannel::new, ShutdownOutputChannel::new);
        p.serverChannel.config().setOption(io.conduit.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        ShutdownOutputChannel clientChannel = (ShutdownOutputChannel) p.clientChannel;
        Future<Void> held = TlsPair.send(p.clientChannel, text("everything the client had"));
        Future<Void> shut = p.clientTls.closeOutbound();
        assertSame(shut, p.clientTls.closeOutbound(), "a second call gets the same future");
        assertFalse(shut.isDone(), "waits for the handshake");
        assertTrue(p.clientChannel.isOpen());
        p.shuttle();
        assertTrue(held.isSuccess());
        assertTrue(shut.isSuccess(), "then shuts the output down");
        assertTrue(clientChannel.isOutputShutdown());
        assertEquals("everything the client had", p.server.plain.toString(StandardCharsets.UTF_8));
        assertEquals(1, p.server.events(TlsCloseNotifyEvent.class).size(), "the server got close_notify");
        assertTrue(p.serverChannel.isOpen(), "TLS 1.3 with half-closure: the server may still answer");
        p.serverChannel.close();
        p.clientChannel.close();
        p.serverChannel.releaseOutbound();
        p.clientChannel.releaseOutbound();
    }

    @Test
    void closeOutboundBeforeAHandshakeThatFailsClosesTheChannelAndFailsWithItsCause() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(),
                TlsContext.forClient().build().newClientHandler("localhost", 443),   // trusts no test CA
                ShutdownOutputChannel::new, ShutdownOutputChannel::new);
        Future<Void> shut = p.clientTls.closeOutbound();
        p.shuttle();
        assertTrue(shut.isDone());
        assertNotNull(shut.cause(), "the handshake's failure");
        assertFalse(p.clientChannel.isOpen());
        p.serverChannel.close();
        p.serverChannel.releaseOutbound();
        p.clientChannel.releaseOutbound();
    }

    /**
     * A client whose handshake fails on the server's certificate (not trusted, or not naming the host) sends the
     * engine's alert before it closes, so the server reads why (openssl's {@code s_server} showed only an unexpected
     * EOF from the gateway). Once with a handler after TLS that closes the channel as soon as the handshake fails,
     * as a relay does: that close must not overtake the alert. Once with {@link TlsHandler#closeOutbound()} asked
     * before the handshake, as a relay does for a client that sends and ends its input at once ({@code socat}): the
     * failed handshake then closes the channel.
     */
    @ParameterizedTest
    @ValueSource(strings = {"untrusted", "untrusted-closed-at-once", "other-host", "other-host-closed-at-once",
            "untrusted-half-closed-before"})
    void aClientWhoseHandshakeFailsOnTheCertificateSendsTheAlert(String variant) throws Exception {
        TlsHandler clientTls = variant.startsWith("untrusted")
                ? TlsContext.forClient().build().newClientHandler("localhost", 443)   // trusts no test CA
                : client().build().newClientHandler("other.example", 443);           // the certificate names localhost
        java.util.function.Function<io.conduit.channel.ChannelHandler[], io.conduit.channel.embedded.EmbeddedChannel>
                clientChannel = variant.endsWith("half-closed-before") ? ShutdownOutputChannel::new
                        : io.conduit.channel.embedded.EmbeddedChannel::new;
        if (variant.endsWith("closed-at-once")) {
            clientChannel = handlers -> new io.conduit.channel.embedded.EmbeddedChannel(handlers[0],
                    new io.conduit.channel.ChannelHandler() {
                        @Override
                        public void userEventTriggered(io.conduit.channel.ChannelHandlerContext ctx, Object event) {
                            if (event instanceof TlsHandshakeCompletionEvent e && !e.isSuccess()) {
                                ctx.channel().close();
                            }
                            ctx.fireUserEventTriggered(event);
                        }
                    }, handlers[1]);
        }
        try (LogCapture log = new LogCapture(TlsHandler.class.getName())) {
            TlsPair p = new TlsPair(server().build().newServerHandler(), clientTls, io.conduit.channel.embedded.EmbeddedChannel::new,
                    clientChannel);
            if (variant.endsWith("half-closed-before")) {
                p.clientTls.closeOutbound();
            }
            p.shuttle();
            assertFalse(p.clientChannel.isOpen());
            assertFalse(p.clientTls.handshakeFuture().isSuccess());
            Throwable seen = p.serverTls.handshakeFuture().cause();
            assertInstanceOf(javax.net.ssl.SSLHandshakeException.class, seen, "the server got the client's alert");
            assertTrue(seen.getMessage().contains("certificate_unknown") || seen.getMessage().contains(
                    "bad_certificate"), seen.getMessage());
            p.serverChannel.finishAndReleaseAll();
            p.clientChannel.finishAndReleaseAll();
        }
    }

    @Test
    void writesNotEncryptedYetFailWhenTheChannelCloses() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(), client().build().newClientHandler("localhost", 443));
        Future<Void> beforeHandshake = TlsPair.send(p.clientChannel, text("early"));
        Buffer b = BufferAllocator.unpooled().buffer(4);
        b.writeBytes(text("late"));
        Future<Void> unflushed = p.clientChannel.write(b);
        p.clientChannel.close();
        assertInstanceOf(ChannelClosedException.class, beforeHandshake.cause());
        assertInstanceOf(ChannelClosedException.class, unflushed.cause());
        assertEquals(0, b.refCnt(), "released");
        assertFalse(p.clientTls.handshakeFuture().isSuccess());
        p.clientChannel.releaseOutbound();
    }

    @Test
    void plainTextAndGarbageCloseTheConnectionWithOneRateLimitedLine() throws Exception {
        TlsContext serverContext = server().build();
        try (LogCapture log = new LogCapture(TlsHandler.class.getName())) {
            io.conduit.channel.embedded.EmbeddedChannel http = new io.conduit.channel.embedded.EmbeddedChannel(
                    serverContext.newServerHandler());
            Buffer get = BufferAllocator.unpooled().buffer(32);
            get.writeBytes(text("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
            http.writeInbound(get);
            assertFalse(http.isOpen());
            assertEquals(0, get.refCnt());
            assertEquals(1, log.records().size());
            assertTrue(log.lines().get(0).contains("not TLS: the first byte is no TLS record type (plain text on a TLS port?)"),
                    log.lines().get(0));
            assertNull(log.records().get(0).getThrown());
            http.finishAndReleaseAll();

            io.conduit.channel.embedded.EmbeddedChannel garbage = new io.conduit.channel.embedded.EmbeddedChannel(
                    serverContext.newServerHandler());
            Buffer junk = BufferAllocator.unpooled().buffer(64);
            byte[] bytes = new byte[64];
            new Random(3).nextBytes(bytes);
            bytes[0] = 22;
            bytes[1] = 3;
            bytes[2] = 3;
            bytes[3] = 0;
            bytes[4] = 59;
            junk.writeBytes(bytes);
            garbage.writeInbound(junk);
            assertFalse(garbage.isOpen(), "a garbage ClientHello closes the connection");
            assertEquals(1, log.records().size(), "the second failure within 10 s is counted, not logged");
            assertEquals(1, serverContext.failureLog().unreported());
            garbage.finishAndReleaseAll();
        }
    }

    /**
     * A peer we asked for TLS that closes during the handshake without an alert (not a TLS server, or one that wants
     * a client certificate) is one rate-limited line, as every other failed handshake is; before, a relay's
     * {@code tls://} upstream failing so was only counted. Closing our own side says nothing.
     */
    @Test
    void aPeerThatClosesDuringTheClientsHandshakeIsOneRateLimitedLine() throws Exception {
        TlsContext clientContext = client().build();
        try (LogCapture log = new LogCapture(TlsHandler.class.getName())) {
            TlsHandler mine = clientContext.newClientHandler("localhost", 443);
            io.conduit.channel.embedded.EmbeddedChannel closedHere = new io.conduit.channel.embedded.EmbeddedChannel(
                    mine);
            closedHere.close();
            assertEquals(List.of(), log.lines(), "our own close");
            closedHere.finishAndReleaseAll();

            TlsHandler tls = clientContext.newClientHandler("localhost", 443);
            io.conduit.channel.embedded.EmbeddedChannel ch = new io.conduit.channel.embedded.EmbeddedChannel(tls);
            ch.pipeline().fireChannelInactive(); // the peer closed
            assertEquals(1, log.records().size(), log.lines().toString());
            assertTrue(log.lines().get(0).contains("TLS handshake failed") && log.lines().get(0).contains(
                    "the peer closed the connection during the TLS handshake"), log.lines().get(0));
            assertNull(log.records().get(0).getThrown());
            assertFalse(tls.handshakeFuture().isSuccess());
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aHandshakeThatDoesNotCompleteInTimeClosesTheChannel() throws Exception {
        TlsContext serverContext = server().handshakeTimeout(java.time.Duration.ofSeconds(2)).build();
        TlsHandler tls = serverContext.newServerHandler();
        try (LogCapture log = new LogCapture(TlsHandler.class.getName())) {
            io.conduit.channel.embedded.EmbeddedChannel ch = new io.conduit.channel.embedded.EmbeddedChannel(tls);
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertTrue(ch.isOpen());
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertFalse(ch.isOpen());
            assertInstanceOf(TlsHandshakeTimeoutException.class, tls.handshakeFuture().cause());
            assertTrue(log.lines().get(0).contains("TLS handshake not complete within 2000 ms"), log.lines().toString());
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void otherMessagesThanBuffersAreRefused() throws Exception {
        TlsPair p = new TlsPair(server().build().newServerHandler(), client().build().newClientHandler("localhost", 443));
        p.shuttle();
        Future<Void> f = p.clientChannel.writeAndFlush("a string");
        assertInstanceOf(UnsupportedOperationException.class, f.cause());
    }
}
