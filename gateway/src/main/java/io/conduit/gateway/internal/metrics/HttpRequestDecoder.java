package io.conduit.gateway.internal.metrics;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.handler.codec.ByteToMessageDecoder;

/**
 * Decodes the HTTP/1.x requests of the metrics endpoint (RFC 9112) into {@link Request}s, or one {@link Rejection}
 * after which it discards all further input. It accepts what a scraper, a supervisor or curl sends: a request line,
 * header fields and no body.
 *
 * <ul>
 *   <li><b>Bounded</b>: a request head (request line and header fields) longer than {@code maxHeadBytes} is rejected
 *       with 431 once that many bytes arrived without its end, so a connection holds at most that plus one read.
 *       More than {@value #MAX_FIELDS} header fields is 431 too.</li>
 *   <li><b>Timely</b>: a request head must be complete {@code headTimeoutMillis} (default
 *       {@value #HEAD_TIMEOUT_MILLIS} ms) after its first byte arrived, else it is 408: a client sending a byte now
 *       and then cannot hold one of the endpoint's few connections (the idle timeout restarts on every byte).</li>
 *   <li><b>Strict</b>: a malformed request line, a field line without a name or with white space before its colon,
 *       an obsolete line folding, a bare CR, an HTTP/1.1 request without exactly one {@code Host}, and a body
 *       ({@code Content-Length} above 0, any {@code Transfer-Encoding}) are 400; a version other than 1.0 and 1.1
 *       is 505. Lines may end in CRLF or a bare LF; empty lines before a request line are skipped.</li>
 *   <li><b>Persistence</b>: an HTTP/1.1 request keeps the connection unless it says {@code Connection: close}; an
 *       HTTP/1.0 one closes it unless it says {@code Connection: keep-alive}.</li>
 * </ul>
 *
 * <p>Pipelined requests are decoded in order. One instance per connection; runs on its event loop.
 */
final class HttpRequestDecoder extends ByteToMessageDecoder {

    /** The longest request head accepted by default, in bytes. */
    static final int MAX_HEAD_BYTES = 8192;
    /** The most header fields a request may have. */
    static final int MAX_FIELDS = 100;
    /** How long a request head may take from its first byte to its end, by default, in milliseconds. */
    static final long HEAD_TIMEOUT_MILLIS = 10_000;

    /**
     * A request to answer.
     *
     * @param method    the method, e.g. {@code GET}
     * @param path      the target's path without its query, e.g. {@code /metrics}; {@code *} for the asterisk form
     * @param http11    whether it is HTTP/1.1 (else HTTP/1.0)
     * @param keepAlive whether the connection stays open after the response
     */
    record Request(String method, String path, boolean http11, boolean keepAlive) {
    }

    /**
     * A request that cannot be answered: reply with {@code status} and close the connection.
     *
     * @param status the response status: 400, 408, 431 or 505
     * @param reason why, one line for the response body
     */
    record Rejection(int status, String reason) {
    }

    private final int maxHeadBytes;
    private final long headTimeoutMillis;
    /** Runs out when a started head is not complete in time; {@code null} between heads; loop-confined. */
    private ScheduledFuture<?> headTimer;
    /** A {@link Rejection} was decoded: everything after it is discarded; loop-confined. */
    private boolean rejected;
    /** How many bytes after the reader index were searched for the end of the head already; loop-confined. */
    private int searched;

    HttpRequestDecoder() {
        this(MAX_HEAD_BYTES, HEAD_TIMEOUT_MILLIS);
    }

    /** @param maxHeadBytes the longest request head accepted, in bytes */
    HttpRequestDecoder(int maxHeadBytes) {
        this(maxHeadBytes, HEAD_TIMEOUT_MILLIS);
    }

    /**
     * @param maxHeadBytes      the longest request head accepted, in bytes
     * @param headTimeoutMillis how long a head may take from its first byte to its end, in milliseconds
     */
    HttpRequestDecoder(int maxHeadBytes, long headTimeoutMillis) {
        this.maxHeadBytes = maxHeadBytes;
        this.headTimeoutMillis = headTimeoutMillis;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) {
        if (rejected) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (searched == 0 && in.isReadable() && isLineEnd(in.getByte(in.readerIndex()))) {
            in.skipBytes(1); // RFC 9112 section 2.2: empty lines before a request line are ignored
        }
        int end = headEnd(in);
        if (end < 0) {
            if (in.readableBytes() > maxHeadBytes) {
                reject(in, out, new Rejection(431, "the request head is longer than " + maxHeadBytes + " bytes"));
            } else if (in.isReadable() && headTimer == null) {
                headTimer = ctx.executor().schedule(() -> headTimedOut(ctx), headTimeoutMillis, TimeUnit.MILLISECONDS);
            }
            return;
        }
        cancelHeadTimer();
        int length = end - in.readerIndex();
        if (length > maxHeadBytes) {
            reject(in, out, new Rejection(431, "the request head is longer than " + maxHeadBytes + " bytes"));
            return;
        }
        byte[] head = new byte[length];
        in.readBytes(head);
        searched = 0;
        Object decoded = parse(new String(head, StandardCharsets.ISO_8859_1));
        if (decoded instanceof Rejection r) {
            reject(in, out, r);
        } else {
            out.add(decoded);
        }
    }

    /** The head did not complete in time: 408 to the next handler, which answers and closes. */
    private void headTimedOut(ChannelHandlerContext ctx) {
        headTimer = null;
        if (rejected || !ctx.channel().isActive()) {
            return;
        }
        rejected = true;
        ctx.fireChannelRead(new Rejection(408, "the request head did not end within " + headTimeoutMillis
                + " ms of its first byte"));
        ctx.fireChannelReadComplete();
    }

    private void cancelHeadTimer() {
        if (headTimer != null) {
            headTimer.cancel(false);
            headTimer = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        cancelHeadTimer();
        super.handlerRemoved0(ctx);
    }

    private void reject(Buffer in, List<Object> out, Rejection r) {
        cancelHeadTimer();
        rejected = true;
        in.skipBytes(in.readableBytes());
        out.add(r);
    }

    private static boolean isLineEnd(byte b) {
        return b == '\r' || b == '\n';
    }

    /**
     * @return the index just after the empty line that ends the head ({@code LF LF} or {@code LF CR LF}), or -1 when
     *         it has not arrived; remembers how far it searched, so each byte is looked at about once
     */
    private int headEnd(Buffer in) {
        int start = in.readerIndex();
        int limit = in.writerIndex();
        for (int i = start + searched; i < limit; i++) {
            if (in.getByte(i) != '\n') {
                continue;
            }
            if (i - 1 >= start && in.getByte(i - 1) == '\n') {
                return i + 1;
            }
            if (i - 2 >= start && in.getByte(i - 1) == '\r' && in.getByte(i - 2) == '\n') {
                return i + 1;
            }
        }
        searched = limit - start;
        return -1;
    }

    /** @return the {@link Request} or {@link Rejection} of one head, its final empty line included */
    static Object parse(String head) {
        String[] lines = head.split("\n", -1);
        int count = lines.length - 2; // the head ends with an empty line, then the split's empty tail
        if (count < 1) {
            return new Rejection(400, "no request line");
        }
        for (int i = 0; i < count; i++) {
            String l = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
            if (l.indexOf('\r') >= 0) {
                return new Rejection(400, "a bare CR in line " + (i + 1));
            }
            lines[i] = l;
        }
        String[] parts = lines[0].split(" ", -1);
        if (parts.length != 3 || !isToken(parts[0]) || parts[1].isEmpty() || hasControlOrSpace(parts[1])) {
            return new Rejection(400, "malformed request line (expected e.g. 'GET /metrics HTTP/1.1')");
        }
        String version = parts[2];
        boolean http11;
        if (version.equals("HTTP/1.1")) {
            http11 = true;
        } else if (version.equals("HTTP/1.0")) {
            http11 = false;
        } else if (version.matches("HTTP/[0-9]\\.[0-9]")) {
            return new Rejection(505, "HTTP version " + version.substring(5) + " is not supported: use HTTP/1.1");
        } else {
            return new Rejection(400, "malformed HTTP version '" + version + "'");
        }
        if (count - 1 > MAX_FIELDS) {
            return new Rejection(431, "more than " + MAX_FIELDS + " header fields");
        }
        int hosts = 0;
        boolean close = false;
        boolean keepAlive = false;
        String contentLength = null;
        for (int i = 1; i < count; i++) {
            String line = lines[i];
            if (line.startsWith(" ") || line.startsWith("\t")) {
                return new Rejection(400, "obsolete line folding in header field line " + (i + 1));
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || !isToken(line.substring(0, colon))) {
                return new Rejection(400, "malformed header field line " + (i + 1));
            }
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            switch (name) {
                case "host" -> hosts++;
                case "connection" -> {
                    for (String option : value.split(",")) {
                        String o = option.strip().toLowerCase(Locale.ROOT);
                        close |= o.equals("close");
                        keepAlive |= o.equals("keep-alive");
                    }
                }
                case "content-length" -> {
                    if (!value.matches("[0-9]+") || (contentLength != null && !contentLength.equals(value))) {
                        return new Rejection(400, "malformed Content-Length");
                    }
                    contentLength = value;
                }
                case "transfer-encoding" -> {
                    return new Rejection(400, "a request body is not accepted");
                }
                default -> {
                    // not needed to answer
                }
            }
        }
        if (contentLength != null && !contentLength.matches("0+")) {
            return new Rejection(400, "a request body is not accepted");
        }
        if (http11 && hosts != 1) {
            return new Rejection(400, hosts == 0 ? "an HTTP/1.1 request needs a Host header field"
                    : "more than one Host header field");
        }
        return new Request(parts[0], path(parts[1]), http11, http11 ? !close : keepAlive && !close);
    }

    /** @return the path of a request target: origin form without its query, absolute form's path, or {@code *} */
    private static String path(String target) {
        String t = target;
        int scheme = t.indexOf("://");
        if (!t.startsWith("/") && scheme > 0) {
            int slash = t.indexOf('/', scheme + 3);
            t = slash < 0 ? "/" : t.substring(slash);
        }
        int query = t.indexOf('?');
        return query < 0 ? t : t.substring(0, query);
    }

    /** @return whether {@code s} is an RFC 9110 token: one or more tchar */
    private static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasControlOrSpace(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                return true;
            }
        }
        return false;
    }
}
