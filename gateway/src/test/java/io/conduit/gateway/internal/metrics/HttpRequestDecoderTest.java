package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.metrics.HttpRequestDecoder.Rejection;
import io.conduit.gateway.internal.metrics.HttpRequestDecoder.Request;
import org.junit.jupiter.api.Test;

class HttpRequestDecoderTest {

    private static Buffer ascii(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return BufferAllocator.unpooled().buffer(b.length).writeBytes(b);
    }

    private static Object parse(String head) {
        return HttpRequestDecoder.parse(head);
    }

    /**
     * A head that trickles in is cut off 1 s (here) after its first byte with 408, however often bytes come; a head
     * that ends in time is decoded and leaves no timer behind. The embedded loop's clock also counts real time, so
     * the steps stay far from the limit.
     */
    @Test
    void aHeadThatDoesNotEndInTimeIs408() {
        EmbeddedChannel slow = new EmbeddedChannel(new HttpRequestDecoder(HttpRequestDecoder.MAX_HEAD_BYTES, 10_000));
        slow.writeInbound(ascii("GET /metrics HTTP/1.1\r\n"));
        slow.advanceTimeBy(6_000, java.util.concurrent.TimeUnit.MILLISECONDS);
        slow.writeInbound(ascii("Host: x\r\n"));
        slow.runPendingTasks();
        assertNull(slow.readInbound(), "6 s after the first byte: still waiting");
        slow.advanceTimeBy(4_100, java.util.concurrent.TimeUnit.MILLISECONDS);
        slow.runPendingTasks();
        Rejection r = assertInstanceOf(Rejection.class, slow.readInbound());
        assertEquals(408, r.status());
        assertEquals("the request head did not end within 10000 ms of its first byte", r.reason());
        slow.writeInbound(ascii("\r\n"));
        assertNull(slow.readInbound(), "after the 408 everything is discarded");
        slow.finishAndReleaseAll();

        EmbeddedChannel quick = new EmbeddedChannel(new HttpRequestDecoder(HttpRequestDecoder.MAX_HEAD_BYTES, 10_000));
        quick.writeInbound(ascii("GET /metrics HTTP/1.1\r\n"));
        quick.writeInbound(ascii("Host: x\r\n\r\n"));
        assertInstanceOf(Request.class, quick.readInbound());
        quick.advanceTimeBy(20_000, java.util.concurrent.TimeUnit.MILLISECONDS);
        quick.runPendingTasks();
        assertNull(quick.readInbound(), "no 408 for a head that ended in time");
        quick.finishAndReleaseAll();
    }

    @Test
    void requestsOfScrapersAndCurlAreDecoded() {
        assertEquals(new Request("GET", "/metrics", true, true),
                parse("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nUser-Agent: Prometheus/2.45.0\r\n"
                        + "Accept: text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\n\r\n"));
        assertEquals(new Request("GET", "/health", true, false),
                parse("GET /health?verbose=1 HTTP/1.1\r\nhost: x\r\nConnection: Close\r\n\r\n"));
        assertEquals(new Request("HEAD", "/metrics", false, false), parse("HEAD /metrics HTTP/1.0\n\n"));
        assertEquals(new Request("GET", "/metrics", false, true),
                parse("GET /metrics HTTP/1.0\nConnection: keep-alive\n\n"));
        assertEquals(new Request("GET", "/metrics", true, true),
                parse("GET http://127.0.0.1:9464/metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\n"
                        + "Content-Length: 0\r\n\r\n"));
    }

    @Test
    void malformedOrUnsupportedRequestsAreRejectedWithTheirStatus() {
        assertEquals(400, ((Rejection) parse("GET /metrics\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("G(T /metrics HTTP/1.1\r\nHost: x\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET /metrics HTTX/1.1\r\nHost: x\r\n\r\n")).status());
        assertEquals(505, ((Rejection) parse("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET /metrics HTTP/1.1\r\n\r\n")).status(), "no Host");
        assertEquals(400, ((Rejection) parse("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET / HTTP/1.1\r\nHost : a\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("GET / HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n")).status());
        assertEquals(400, ((Rejection) parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"))
                .status());
        StringBuilder many = new StringBuilder("GET / HTTP/1.1\r\nHost: a\r\n");
        for (int i = 0; i < HttpRequestDecoder.MAX_FIELDS; i++) {
            many.append("X-").append(i).append(": y\r\n");
        }
        assertEquals(431, ((Rejection) parse(many.append("\r\n").toString())).status());
    }

    @Test
    void pipelinedRequestsSplitAnywhereComeOutInOrder() {
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder());
        String two = "\r\nGET /metrics HTTP/1.1\r\nHost: a\r\n\r\nGET /health HTTP/1.1\r\nHost: a\r\n\r\n";
        for (int i = 0; i < two.length(); i++) { // one byte at a time
            ch.writeInbound(ascii(two.substring(i, i + 1)));
        }
        assertEquals(new Request("GET", "/metrics", true, true), ch.readInbound());
        assertEquals(new Request("GET", "/health", true, true), ch.readInbound());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void aHeadLongerThanTheBoundIsRejectedOnceAndTheRestDiscarded() {
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder(64));
        ch.writeInbound(ascii("GET /" + "x".repeat(40) + " HTTP/1.1\r\n"));
        assertNull(ch.readInbound(), "still under the bound: waits");
        ch.writeInbound(ascii("Host: " + "y".repeat(40)));
        Rejection r = assertInstanceOf(Rejection.class, ch.readInbound());
        assertEquals(431, r.status());
        ch.writeInbound(ascii("\r\n\r\nGET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertNull(ch.readInbound(), "nothing after a rejection");
        assertEquals(0, ((HttpRequestDecoder) ch.pipeline().first()).bufferedBytes(), "and nothing is held");
        ch.finishAndReleaseAll();
    }

    @Test
    void garbageIsOneRejection() {
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder());
        ch.writeInbound(ascii("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003\n\n"));
        assertEquals(400, ((Rejection) ch.readInbound()).status());
        ch.writeInbound(ascii("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }
}
