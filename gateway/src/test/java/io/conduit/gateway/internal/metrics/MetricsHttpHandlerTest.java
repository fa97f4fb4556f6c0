package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.TestDuplexChannel;
import org.junit.jupiter.api.Test;

class MetricsHttpHandlerTest {

    private static final String SCRAPE = "# HELP m M.\n# TYPE m gauge\nm 1\n";

    private final AtomicInteger scrapes = new AtomicInteger();
    private Health health = new Health(true, List.of());

    private EmbeddedChannel channel() {
        return new TestDuplexChannel(new HttpRequestDecoder(), new MetricsHttpHandler(() -> {
            scrapes.incrementAndGet();
            return SCRAPE;
        }, () -> health));
    }

    private static Buffer ascii(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return BufferAllocator.unpooled().buffer(b.length).writeBytes(b);
    }

    /** @return everything written, as text */
    private static String written(EmbeddedChannel ch) {
        StringBuilder b = new StringBuilder();
        Buffer out;
        while ((out = ch.readOutbound()) != null) {
            b.append(new String(out.toByteArray(), StandardCharsets.UTF_8));
            out.close();
        }
        return b.toString();
    }

    /** @return the response's status line and fields, without the Date field (it changes) */
    private static String head(String response) {
        String h = response.substring(0, response.indexOf("\r\n\r\n") + 4);
        return h.replaceAll("Date: [A-Z][a-z]{2}, \\d\\d [A-Z][a-z]{2} \\d{4} \\d\\d:\\d\\d:\\d\\d GMT\r\n", "");
    }

    private static String body(String response) {
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }

    @Test
    void metricsAreTheScrapeInTheTextFormatAndTheConnectionStays() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"));
        String r = written(ch);
        assertTrue(r.matches("(?s).*\r\nDate: [A-Z][a-z]{2}, \\d\\d [A-Z][a-z]{2} \\d{4} \\d\\d:\\d\\d:\\d\\d GMT\r\n.*"),
                r);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                + "Content-Length: " + SCRAPE.length() + "\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\n",
                head(r));
        assertEquals(SCRAPE, body(r));
        assertTrue(ch.isOpen());
        ch.writeInbound(ascii("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\nHEAD /metrics HTTP/1.1\r\nHost: a\r\n\r\n"));
        String two = written(ch);
        assertEquals(SCRAPE, two.substring(two.indexOf("\r\n\r\n") + 4, two.indexOf("HTTP/1.1 200", 10)));
        assertTrue(two.endsWith("Connection: keep-alive\r\n\r\n"), "HEAD: fields, no body:\n" + two);
        assertTrue(two.lastIndexOf("Content-Length: " + SCRAPE.length()) > two.indexOf(SCRAPE), two);
        assertEquals(3, scrapes.get());
        ch.finishAndReleaseAll();
    }

    @Test
    void healthIsOkOr503WithTheReasons() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /health HTTP/1.1\r\nHost: a\r\n\r\n"));
        String ok = written(ch);
        assertTrue(ok.startsWith("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"), ok);
        assertEquals("ok\n", body(ok));
        health = new Health(false, List.of("io.conduit.gateway.echo~a (e.cfg): cannot listen on tcp://127.0.0.1:1: "
                + "BindException: Address already in use; it is tried again every 5 s"));
        ch.writeInbound(ascii("GET /health HTTP/1.1\r\nHost: a\r\n\r\n"));
        String down = written(ch);
        assertTrue(down.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), down);
        assertEquals(health.problems().get(0) + "\n", body(down));
        assertEquals(0, scrapes.get(), "health makes no scrape");
        ch.finishAndReleaseAll();
    }

    @Test
    void otherPathsAre404AndOtherMethods405() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
        String r = written(ch);
        assertTrue(r.startsWith("HTTP/1.1 404 Not Found\r\n"), r);
        ch.writeInbound(ascii("POST /metrics HTTP/1.1\r\nHost: a\r\n\r\n"));
        r = written(ch);
        assertTrue(r.startsWith("HTTP/1.1 405 Method Not Allowed\r\n") && r.contains("\r\nAllow: GET, HEAD\r\n"), r);
        assertTrue(ch.isOpen(), "both are answers, not errors: the connection stays");
        assertEquals(0, scrapes.get());
        ch.finishAndReleaseAll();
    }

    @Test
    void a404ShowsANonAsciiPathEscapedOnce() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /m%C3%A9trics?x=%C3 HTTP/1.1\r\nHost: a\r\n\r\n"));
        String escaped = written(ch);
        assertTrue(escaped.startsWith("HTTP/1.1 404 Not Found\r\n"), escaped);
        assertEquals("not found: /m%C3%A9trics (this endpoint serves /metrics and /health)\n", body(escaped));
        byte[] raw = "GET /m\u00e9trics HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.UTF_8);
        ch.writeInbound(BufferAllocator.unpooled().buffer(raw.length).writeBytes(raw));
        String utf8 = written(ch);
        assertEquals("not found: /m%C3%A9trics (this endpoint serves /metrics and /health)\n", body(utf8),
                "raw UTF-8 bytes show as the escapes a client would have sent");
        assertTrue(utf8.contains("\r\nContent-Length: " + body(utf8).length() + "\r\n"), utf8);
        ch.finishAndReleaseAll();
    }

    @Test
    void shownPathEscapesEveryByteOutsidePrintableAscii() {
        assertEquals("/a%20b/%FF%80~%", MetricsHttpHandler.shownPath("/a b/\u00ff\u0080~%"));
        assertEquals("/metrics%25", MetricsHttpHandler.shownPath("/metrics%25"), "a received escape stays as it was");
    }

    @Test
    void connectionCloseAndHttp10AreAnsweredThenClosed() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("GET /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                + "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"));
        ch.runPendingTasks();
        String r = written(ch);
        assertTrue(r.contains("\r\nConnection: close\r\n"), r);
        assertEquals(SCRAPE, body(r), "one response: nothing after close is answered");
        assertFalse(ch.isOpen());
        EmbeddedChannel old = channel();
        old.writeInbound(ascii("GET /metrics HTTP/1.0\r\n\r\n"));
        old.runPendingTasks();
        assertTrue(written(old).contains("\r\nConnection: close\r\n"));
        assertFalse(old.isOpen());
        EmbeddedChannel kept = channel();
        kept.writeInbound(ascii("GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
        assertTrue(written(kept).contains("\r\nConnection: keep-alive\r\n"));
        assertTrue(kept.isOpen());
        kept.finishAndReleaseAll();
    }

    @Test
    void garbageIs400ThenClose() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("hello\r\n\r\n"));
        ch.runPendingTasks();
        String r = written(ch);
        assertTrue(r.startsWith("HTTP/1.1 400 Bad Request\r\n") && r.contains("\r\nConnection: close\r\n"), r);
        assertTrue(body(r).startsWith("malformed request line"), r);
        assertFalse(ch.isOpen());
    }

    @Test
    void aClientThatShutsItsOutputGetsItsAnswerThenTheClose() {
        TestDuplexChannel ch = (TestDuplexChannel) channel();
        ch.writeInbound(ascii("GET /health HTTP/1.1\r\nHost: a\r\n\r\n"));
        ch.receiveEof();
        ch.runPendingTasks();
        String r = written(ch);
        assertEquals("ok\n", body(r));
        assertFalse(ch.isOpen());
        assertNull(ch.readOutbound());
    }
}
