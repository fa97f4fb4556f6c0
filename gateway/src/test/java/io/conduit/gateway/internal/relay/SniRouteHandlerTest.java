package io.conduit.gateway.internal.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.LogCapture;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.handler.logging.RateLimitedLog;
import org.junit.jupiter.api.Test;

class SniRouteHandlerTest {

    private static final GatewayUri A = GatewayUri.parse("tcp://127.0.0.1:9001");
    private static final GatewayUri B = GatewayUri.parse("unix:/run/b.sock");
    private static final GatewayUri OTHERWISE = GatewayUri.parse("tcp://127.0.0.1:9000");

    /** What passes the router: the route and the bytes. */
    private static final class After implements ChannelHandler {
        final List<SniRouteHandler.Route> routes = new ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer b = (Buffer) msg;
            bytes.writeBytes(b.toByteArray());
            b.release();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof SniRouteHandler.Route r) {
                routes.add(r);
            }
        }
    }

    private static EmbeddedChannel router(After after) {
        return new EmbeddedChannel(new SniRouteHandler(Map.of("a.example", A, "b.example", B), OTHERWISE,
                new RateLimitedLog(System.getLogger("io.conduit.gateway"), System.Logger.Level.INFO)), after);
    }

    /** @return the first record a TLS client sends to {@code serverName} (its ClientHello) */
    static byte[] clientHello(String serverName) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, null, null);
        SSLEngine engine = ssl.createSSLEngine(serverName, 443);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName(serverName)));
        engine.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] hello = new byte[out.remaining()];
        out.get(hello);
        return hello;
    }

    private static void feed(EmbeddedChannel ch, byte[] bytes, int from, int to) {
        Buffer b = BufferAllocator.unpooled().buffer(Math.max(1, to - from));
        b.writeBytes(bytes, from, to - from);
        ch.writeInbound(b);
    }

    @Test
    void aClientHelloArrivingOneByteAtATimeIsRoutedByItsNameAndPassedOnUnchanged() throws Exception {
        byte[] hello = clientHello("B.example");
        After after = new After();
        EmbeddedChannel ch = router(after);
        for (int i = 0; i < hello.length; i++) {
            assertTrue(after.routes.isEmpty(), "no route before the record is whole, byte " + i);
            feed(ch, hello, i, i + 1);
        }
        assertEquals(List.of(new SniRouteHandler.Route("b.example", B)), after.routes);
        assertArrayEquals(hello, after.bytes.toByteArray(), "the ClientHello is forwarded untouched");
        assertNull(ch.pipeline().get(SniRouteHandler.class), "the router leaves the pipeline");
        feed(ch, "later".getBytes(StandardCharsets.US_ASCII), 0, 5);
        assertTrue(after.bytes.toString(StandardCharsets.ISO_8859_1).endsWith("later"));
        ch.finishAndReleaseAll();
    }

    @Test
    void anUnlistedNameOrNoTlsGoesToTheDefaultUpstream() throws Exception {
        After unlisted = new After();
        EmbeddedChannel ch = router(unlisted);
        byte[] hello = clientHello("c.example");
        feed(ch, hello, 0, hello.length);
        assertEquals(List.of(new SniRouteHandler.Route("c.example", OTHERWISE)), unlisted.routes);
        ch.finishAndReleaseAll();

        After plain = new After();
        EmbeddedChannel http = router(plain);
        byte[] get = "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        feed(http, get, 0, get.length);
        assertEquals(List.of(new SniRouteHandler.Route(null, OTHERWISE)), plain.routes);
        assertArrayEquals(get, plain.bytes.toByteArray());
        http.finishAndReleaseAll();
    }

    @Test
    void aClientThatSendsNoCompleteRecordInTimeIsClosedWithOneLine() throws Exception {
        try (LogCapture log = new LogCapture()) {
            After after = new After();
            EmbeddedChannel ch = router(after);
            byte[] hello = clientHello("a.example");
            feed(ch, hello, 0, 10);
            ch.advanceTimeBy(SniRouteHandler.CLIENT_HELLO_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            assertFalse(ch.isOpen());
            assertTrue(after.routes.isEmpty());
            assertEquals(1, log.messages().size(), log.messages().toString());
            assertTrue(log.messages().get(0).contains("sent no complete TLS ClientHello within 10000 ms; closed it"),
                    log.messages().toString());
        }
    }

    @Test
    void aWildcardRouteTakesOneLabelAndAnExactNameWins() {
        GatewayUri wild = GatewayUri.parse("tcp://127.0.0.1:9002");
        SniRouteHandler h = new SniRouteHandler(Map.of("*.example", wild, "a.example", A), OTHERWISE,
                new RateLimitedLog(System.getLogger("io.conduit.gateway"), System.Logger.Level.INFO));
        assertEquals(A, h.upstreamFor("a.example"));
        assertEquals(wild, h.upstreamFor("c.example"));
        assertEquals(OTHERWISE, h.upstreamFor("c.d.example"), "a wildcard matches one label only");
        assertEquals(OTHERWISE, h.upstreamFor("example"));
        assertEquals(OTHERWISE, h.upstreamFor(null));
    }

    @Test
    void routesAreValidatedWhenTheConfigurationIsRead() {
        Map<String, Object> props = new java.util.HashMap<>(Map.of("listen", "tcp://127.0.0.1:8443", "upstream",
                "tcp://127.0.0.1:9000", "sni.routes", "A.example=tcp://127.0.0.1:9001, b.example=unix:/run/b.sock",
                "service.pid", "relay~sni", "service.factoryPid", RelayConfig.FACTORY_PID));
        RelayConfig c = RelayConfig.from(props);
        assertEquals(Map.of("a.example", A, "b.example", B), c.sniRoutes());
        assertEquals(List.of(OTHERWISE, A, B), c.upstreams());
        props.put("sni.routes", "a.example=tls://127.0.0.1:9001");
        assertTrue(message(props).contains("a route leads to a tcp:// or unix: endpoint"), message(props));
        props.put("sni.routes", "*.Example=tcp://127.0.0.1:9001");
        assertEquals(Map.of("*.example", A), RelayConfig.from(props).sniRoutes());
        for (String bad : List.of("a.example", "a.*.example=tcp://127.0.0.1:9001", "*example=tcp://127.0.0.1:9001",
                "*.=tcp://127.0.0.1:9001")) {
            props.put("sni.routes", bad);
            assertTrue(message(props).contains("takes server-name=uri pairs"), bad + ": " + message(props));
        }
        props.put("sni.routes", "a.example=tcp://127.0.0.1:8443");
        assertTrue(message(props).contains("is this relay's own listen address"), message(props));
        props.put("sni.routes", "a.example=tcp://127.0.0.1:1 a.example=tcp://127.0.0.1:2");
        assertTrue(message(props).contains("names a.example twice"), message(props));
        props.put("sni.routes", "a.example=tcp://127.0.0.1:1");
        props.put("listen", "tls://127.0.0.1:8443");
        assertTrue(message(props).contains("neither 'listen' nor 'upstream' can be tls://"), message(props));
    }

    private static String message(Map<String, Object> props) {
        return org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> RelayConfig.from(props)).getMessage();
    }
}
