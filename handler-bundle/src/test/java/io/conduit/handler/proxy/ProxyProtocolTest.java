package io.conduit.handler.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ConnectionFacts;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.handler.LogCapture;
import io.conduit.handler.logging.RateLimitedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ProxyProtocolTest {

    static final byte[] PAYLOAD = "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** Records user events and the bytes that reach it. */
    static final class Sink implements ChannelHandler {
        final List<Object> events = new ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Buffer> buffers = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            events.add(event);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer b = (Buffer) msg;
            bytes.writeBytes(b.toByteArray());
            buffers.add(b);
            b.release();
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    static List<Buffer> write(EmbeddedChannel ch, byte[] stream, int... cuts) {
        List<Buffer> in = new ArrayList<>();
        int from = 0;
        int[] all = java.util.Arrays.copyOf(cuts, cuts.length + 1);
        all[cuts.length] = stream.length;
        for (int cut : all) {
            if (cut > from && ch.isOpen()) {
                Buffer b = BufferAllocator.pooled().buffer(cut - from).writeBytes(stream, from, cut - from);
                in.add(b);
                ch.writeInbound(b);
                from = cut;
            }
        }
        return in;
    }

    /** Decodes {@code header + PAYLOAD} cut at every position and one byte per read; checks message and payload. */
    static void decodesEverySplit(byte[] header, ProxyMessage expected, ProxyProtocolDecoder.Versions versions) {
        byte[] stream = concat(header, PAYLOAD);
        List<int[]> ways = new ArrayList<>();
        for (int cut = 0; cut <= stream.length; cut++) {
            ways.add(new int[] {cut});
        }
        int[] bytewise = new int[stream.length];
        for (int i = 0; i < stream.length; i++) {
            bytewise[i] = i + 1;
        }
        ways.add(bytewise);
        for (int[] cuts : ways) {
            Sink sink = new Sink();
            EmbeddedChannel ch = new EmbeddedChannel(new ProxyProtocolDecoder(versions), sink);
            List<Buffer> in = write(ch, stream, cuts);
            String how = "cuts " + java.util.Arrays.toString(cuts);
            assertEquals(List.of(expected), sink.events, how);
            assertEquals(expected, ProxyMessage.of(ch), how);
            assertArrayEquals(PAYLOAD, sink.bytes.toByteArray(), how);
            assertNull(ch.pipeline().get(ProxyProtocolDecoder.class), how);
            assertTrue(ch.isOpen());
            ch.finish();
            in.forEach(b -> assertEquals(0, b.refCnt(), how));
        }
    }

    @Test
    void v1Tcp4Tcp6AndUnknown() throws Exception {
        decodesEverySplit("PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n".getBytes(StandardCharsets.US_ASCII),
                ProxyMessage.tcp(1, new InetSocketAddress("192.0.2.1", 56324), new InetSocketAddress("198.51.100.7",
                        443)), ProxyProtocolDecoder.Versions.ANY);
        decodesEverySplit("PROXY TCP6 2001:db8::1 ::1 1 65535\r\n".getBytes(StandardCharsets.US_ASCII),
                ProxyMessage.tcp(1, new InetSocketAddress("2001:db8::1", 1), new InetSocketAddress("::1", 65535)),
                ProxyProtocolDecoder.Versions.V1);
        decodesEverySplit("PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n".getBytes(StandardCharsets.US_ASCII),
                new ProxyMessage(1, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.UNKNOWN, null, null, List.of()),
                ProxyProtocolDecoder.Versions.ANY);
    }

    /** What {@code conduit:channels} shows in its PEER column for a proxied connection ({@link ConnectionFacts}). */
    @Test
    void theDecodedHeaderIsAConnectionFactOfTheChannel() {
        assertEquals("PROXY v1 from 192.0.2.1:56324 to 198.51.100.7:443",
                factsAfter("PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n"));
        assertEquals("PROXY v1 from [2001:db8:0:0:0:0:0:1]:1 to [0:0:0:0:0:0:0:1]:65535",
                factsAfter("PROXY TCP6 2001:db8::1 ::1 1 65535\r\n"));
        assertEquals("PROXY v1 UNKNOWN", factsAfter("PROXY UNKNOWN\r\n"));
    }

    private static String factsAfter(String header) {
        EmbeddedChannel ch = new EmbeddedChannel(new ProxyProtocolDecoder(ProxyProtocolDecoder.Versions.ANY));
        write(ch, header.getBytes(StandardCharsets.US_ASCII));
        String facts = null;
        for (String name : ch.pipeline().names()) {
            if (ch.pipeline().get(name) instanceof ConnectionFacts f) {
                facts = f.connectionFacts();
            }
        }
        ch.finishAndReleaseAll();
        return facts;
    }

    /** A header HAProxy sent with send-proxy-v2 (172.19.0.1:42578 to 172.19.0.3:80). */
    @Test
    void v2HeaderAsHaproxySendsIt() {
        byte[] header = HexFormat.of().parseHex("0d0a0d0a000d0a515549540a2111000cac130001ac130003a6520050");
        decodesEverySplit(header, ProxyMessage.tcp(2, new InetSocketAddress("172.19.0.1", 42578),
                new InetSocketAddress("172.19.0.3", 80)), ProxyProtocolDecoder.Versions.V2);
    }

    static byte[] ssl() {
        ByteArrayOutputStream v = new ByteArrayOutputStream();
        v.writeBytes(new byte[] {ProxySslInfo.CLIENT_SSL | ProxySslInfo.CLIENT_CERT_CONN, 0, 0, 0, 0});
        Object[][] subs = {{0x21, "TLSv1.3"}, {0x22, "client.example"}, {0x23, "TLS_AES_128_GCM_SHA256"}};
        for (Object[] sub : subs) {
            byte[] s = ((String) sub[1]).getBytes(StandardCharsets.UTF_8);
            v.write((int) sub[0]);
            v.write(s.length >>> 8);
            v.write(s.length);
            v.writeBytes(s);
        }
        return v.toByteArray();
    }

    static ProxyMessage withTlvs(boolean crc) {
        List<ProxyTlv> tlvs = new ArrayList<>(List.of(new ProxyTlv(ProxyTlv.TYPE_ALPN, "h2".getBytes()),
                new ProxyTlv(ProxyTlv.TYPE_AUTHORITY, "example.org".getBytes()),
                new ProxyTlv(ProxyTlv.TYPE_UNIQUE_ID, new byte[] {1, 2, 3, 4}),
                new ProxyTlv(ProxyTlv.TYPE_SSL, ssl())));
        if (crc) {
            byte[] header = ProxyProtocolEncoder.v2Header(new ProxyMessage(2, ProxyMessage.Command.PROXY,
                    ProxyMessage.Protocol.TCP6, new InetSocketAddress("2001:db8::5", 4000),
                    new InetSocketAddress("2001:db8::6", 443), tlvs), true);
            tlvs.add(new ProxyTlv(ProxyTlv.TYPE_CRC32C, java.util.Arrays.copyOfRange(header, header.length - 4,
                    header.length)));
        }
        return new ProxyMessage(2, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.TCP6,
                new InetSocketAddress("2001:db8::5", 4000), new InetSocketAddress("2001:db8::6", 443), tlvs);
    }

    @Test
    void v2TlvsRoundTripThroughTheEncoderWithACheckedCrc32c() {
        ProxyMessage expected = withTlvs(true);
        byte[] header = encode(withTlvs(false), true);
        decodesEverySplit(header, expected, ProxyProtocolDecoder.Versions.ANY);
        assertEquals("h2", expected.alpn().orElseThrow());
        assertEquals("example.org", expected.authority().orElseThrow());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, expected.uniqueId().orElseThrow());
        ProxySslInfo ssl = expected.ssl().orElseThrow();
        assertTrue(ssl.isSsl());
        assertEquals(0, ssl.verify());
        assertEquals("TLSv1.3", ssl.version().orElseThrow());
        assertEquals("client.example", ssl.commonName().orElseThrow());
        assertEquals("TLS_AES_128_GCM_SHA256", ssl.cipher().orElseThrow());
        assertTrue(ssl.signatureAlgorithm().isEmpty());
    }

    @Test
    void v2LocalUnixAndAbstractAddresses() {
        ProxyMessage local = new ProxyMessage(2, ProxyMessage.Command.LOCAL, ProxyMessage.Protocol.UNKNOWN, null,
                null, List.of());
        decodesEverySplit(encode(local, false), local, ProxyProtocolDecoder.Versions.V2);
        ProxyMessage unix = new ProxyMessage(2, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.UNIX_STREAM,
                UnixDomainSocketAddress.of("/run/client.sock"), UnixAbstractAddress.of("gateway"), List.of());
        byte[] header = encode(unix, false);
        assertEquals(16 + 216, header.length);
        decodesEverySplit(header, unix, ProxyProtocolDecoder.Versions.ANY);
    }

    @Test
    void v1EncoderWritesTheSpecifiedLine() {
        ProxyMessage m = ProxyMessage.tcp(1, new InetSocketAddress("::1", 5), new InetSocketAddress("::2", 6));
        assertEquals("PROXY TCP6 0:0:0:0:0:0:0:1 0:0:0:0:0:0:0:2 5 6\r\n",
                new String(encode(m, false), StandardCharsets.US_ASCII));
        EmbeddedChannel ch = new EmbeddedChannel(new ProxyProtocolEncoder());
        ch.writeOutbound(ProxyMessage.tcp(1, new InetSocketAddress("10.0.0.1", 1), new InetSocketAddress("10.0.0.2",
                2)));
        Buffer out = ch.readOutbound();
        assertEquals("PROXY TCP4 10.0.0.1 10.0.0.2 1 2\r\n", new String(out.toByteArray(), StandardCharsets.US_ASCII));
        out.release();
        ch.finish();
    }

    static byte[] encode(ProxyMessage m, boolean crc) {
        Buffer b = BufferAllocator.unpooled().buffer(64);
        ProxyProtocolEncoder.encode(m, crc, b);
        byte[] bytes = b.toByteArray();
        b.release();
        return bytes;
    }

    /** Feeds {@code stream} and the payload; checks the connection was closed with nothing passed on. */
    static String rejects(ProxyProtocolDecoder.Versions versions, byte[] stream) {
        AtomicLong clock = new AtomicLong();
        RateLimitedLog log = new RateLimitedLog(System.getLogger(ProxyProtocolDecoder.class.getName()),
                System.Logger.Level.WARNING, TimeUnit.SECONDS.toNanos(RateLimitedLog.DEFAULT_INTERVAL_SECONDS), clock::get);
        try (LogCapture capture = new LogCapture(ProxyProtocolDecoder.class.getName())) {
            Sink sink = new Sink();
            EmbeddedChannel ch = new EmbeddedChannel(new ProxyProtocolDecoder(versions, log), sink);
            List<Buffer> in = write(ch, concat(stream, PAYLOAD), stream.length);
            assertFalse(ch.isOpen(), "closed");
            assertEquals(List.of(), sink.events, "no event");
            assertEquals(0, sink.bytes.size(), "no byte");
            assertNull(ProxyMessage.of(ch));
            in.forEach(b -> assertEquals(0, b.refCnt()));
            assertEquals(1, capture.lines().size(), capture.lines().toString());
            return capture.lines().get(0);
        }
    }

    static void assertRejected(ProxyProtocolDecoder.Versions versions, byte[] stream, String expected) {
        String line = rejects(versions, stream);
        assertTrue(line.contains(expected), line);
    }

    @Test
    void malformedHeadersCloseTheConnectionWithOneLineNamingThePeer() {
        byte[] good = encode(withTlvs(false), true);
        String line = rejects(ProxyProtocolDecoder.Versions.ANY, "GET / HTTP/1.1\r\n".getBytes());
        assertEquals("malformed PROXY protocol header from embedded on embedded: wrong signature: no PROXY protocol"
                + " v1 or v2 header at the start of the connection; closed the connection, nothing was passed on"
                + " (repeats are counted: at most one line every 10 s)", line);
        // a v2 header where only v1 is accepted
        assertRejected(ProxyProtocolDecoder.Versions.V1, good, "wrong signature");
        // truncated: the input ends inside the header
        byte[] cut = java.util.Arrays.copyOf(good, 20);
        AtomicLong clock = new AtomicLong();
        try (LogCapture capture = new LogCapture(ProxyProtocolDecoder.class.getName())) {
            Sink sink = new Sink();
            EmbeddedChannel t = new EmbeddedChannel(new ProxyProtocolDecoder(ProxyProtocolDecoder.Versions.ANY,
                    new RateLimitedLog(System.getLogger(ProxyProtocolDecoder.class.getName()),
                            System.Logger.Level.WARNING, 1, clock::get)), sink);
            List<Buffer> in = write(t, cut);
            t.close();
            assertEquals(List.of(), sink.events);
            assertEquals(1, capture.lines().size());
            assertTrue(capture.lines().get(0).contains("truncated: the input ended after 20 bytes of the header"),
                    capture.lines().get(0));
            in.forEach(b -> assertEquals(0, b.refCnt()));
        }
        // wrong length: shorter than the addresses
        byte[] shortLength = good.clone();
        shortLength[14] = 0;
        shortLength[15] = 11;
        assertRejected(ProxyProtocolDecoder.Versions.ANY, shortLength,
                "v2 length 11 is shorter than the 36 address bytes of family 2");
        // a TLV that overruns the header
        byte[] overrun = encode(new ProxyMessage(2, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.UNKNOWN,
                null, null, List.of(new ProxyTlv(ProxyTlv.TYPE_NOOP, new byte[3]))), false);
        overrun[18] = 9; // the NOOP TLV claims 9 bytes, the header has 3
        assertRejected(ProxyProtocolDecoder.Versions.ANY, overrun, "overruns the header");
        // bad CRC
        byte[] badCrc = good.clone();
        badCrc[good.length - 1] ^= 1;
        assertRejected(ProxyProtocolDecoder.Versions.ANY, badCrc, "CRC32C mismatch");
        // a content byte changed under a good CRC
        byte[] tampered = good.clone();
        tampered[20] ^= 1;
        assertRejected(ProxyProtocolDecoder.Versions.ANY, tampered, "CRC32C mismatch");
        // wrong version nibble
        byte[] v3 = good.clone();
        v3[12] = 0x31;
        assertRejected(ProxyProtocolDecoder.Versions.ANY, v3, "version nibble is 3");
        // v1: bad address, bad port, no CRLF within 107 bytes, LF without CR
        assertRejected(ProxyProtocolDecoder.Versions.ANY, "PROXY TCP4 1.2.3.256 1.2.3.4 1 2\r\n".getBytes(),
                "v1 address '1.2.3.256' is not an IPv4 literal");
        assertRejected(ProxyProtocolDecoder.Versions.ANY, "PROXY TCP4 1.2.3.4 1.2.3.4 1 65536\r\n".getBytes(),
                "v1 port '65536'");
        assertRejected(ProxyProtocolDecoder.Versions.ANY, "PROXY TCP6 example.org ::1 1 2\r\n".getBytes(),
                "is not an IPv6 literal");
        assertRejected(ProxyProtocolDecoder.Versions.ANY, ("PROXY UNKNOWN " + "x".repeat(100)).getBytes(),
                "no CRLF within 107 bytes");
        assertRejected(ProxyProtocolDecoder.Versions.ANY, "PROXY TCP4 1.2.3.4 1.2.3.4 1 2\n".getBytes(),
                "LF without CR");
    }

    @Test
    void manyMalformedConnectionsLogOneLinePerTenSecondsWithTheCount() {
        AtomicLong clock = new AtomicLong();
        RateLimitedLog log = new RateLimitedLog(System.getLogger(ProxyProtocolDecoder.class.getName()),
                System.Logger.Level.WARNING, TimeUnit.SECONDS.toNanos(RateLimitedLog.DEFAULT_INTERVAL_SECONDS), clock::get);
        try (LogCapture capture = new LogCapture(ProxyProtocolDecoder.class.getName())) {
            for (int i = 0; i < 100; i++) {
                EmbeddedChannel ch = new EmbeddedChannel(new ProxyProtocolDecoder(ProxyProtocolDecoder.Versions.ANY,
                        log));
                write(ch, "junk".getBytes());
                assertFalse(ch.isOpen());
                clock.addAndGet(50_000_000); // 50 ms
            }
            assertEquals(1, capture.lines().size(), "100 connections in 5 s");
            clock.addAndGet(10_000_000_000L);
            EmbeddedChannel ch = new EmbeddedChannel(new ProxyProtocolDecoder(ProxyProtocolDecoder.Versions.ANY, log));
            write(ch, "junk".getBytes());
            assertEquals(2, capture.lines().size());
            assertTrue(capture.lines().get(1).contains("(the latest of 100 in the last 15 s)"), capture.lines().get(1));
        }
    }
}
