package io.conduit.gateway.internal.metrics;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.function.Supplier;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.gateway.internal.network.Streams;

/**
 * Answers the requests an {@link HttpRequestDecoder} decodes on a connection to the metrics endpoint:
 *
 * <ul>
 *   <li>{@code GET /metrics}: 200, the scrape in the Prometheus text format ({@value Exposition#CONTENT_TYPE});</li>
 *   <li>{@code GET /health}: 200 {@code ok} when every configured endpoint listens, else 503 with one line per
 *       reason ({@link Health});</li>
 *   <li>{@code HEAD} of either: the same status and header fields without the body; any other method on them: 405
 *       with {@code Allow: GET, HEAD};</li>
 *   <li>any other path: 404, naming the path as received ({@link #shownPath}); a
 *       {@link HttpRequestDecoder.Rejection}: its status (400, 408, 431, 505), then the connection closes.</li>
 * </ul>
 *
 * <p>Every response has {@code Content-Length}, {@code Date} and {@code Cache-Control: no-store}. The connection stays
 * open after a response when the request asked for it (HTTP/1.1 by default, HTTP/1.0 with
 * {@code Connection: keep-alive}); otherwise the response says {@code Connection: close} and the connection closes once
 * it is flushed. Pipelined requests are answered in order. When the client shuts its output down, what was answered is
 * flushed and the connection closes. Back-pressure: a client that sends requests faster than it reads responses is not
 * read until the responses drain below the low water mark.
 *
 * <p>One instance per connection; runs on its event loop, where the scrape is made.
 */
final class MetricsHttpHandler implements ChannelHandler {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
    private static final String TEXT = "text/plain; charset=utf-8";

    private final Supplier<String> metrics;
    private final Supplier<Health> health;
    /** A response that closes the connection was written: later requests are not answered; loop-confined. */
    private boolean closing;

    /**
     * @param metrics makes one scrape ({@link Exposition#text()})
     * @param health  tells the gateway's health now
     */
    MetricsHttpHandler(Supplier<String> metrics, Supplier<Health> health) {
        this.metrics = metrics;
        this.health = health;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCounted.safeRelease(msg);
            return;
        }
        if (msg instanceof HttpRequestDecoder.Request r) {
            answer(ctx, r);
        } else if (msg instanceof HttpRequestDecoder.Rejection r) {
            respond(ctx, r.status(), TEXT, r.reason() + "\n", null, true, false);
        } else {
            ReferenceCounted.safeRelease(msg);
        }
        if (!ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void answer(ChannelHandlerContext ctx, HttpRequestDecoder.Request r) {
        boolean close = !r.keepAlive();
        boolean head = r.method().equals("HEAD");
        boolean known = r.path().equals("/metrics") || r.path().equals("/health");
        if (!known) {
            respond(ctx, 404, TEXT, "not found: " + shownPath(r.path())
                    + " (this endpoint serves /metrics and /health)\n", null, close, head);
        } else if (!head && !r.method().equals("GET")) {
            respond(ctx, 405, TEXT, "method " + r.method() + " is not allowed: use GET or HEAD\n", "Allow: GET, HEAD",
                    close, false);
        } else if (r.path().equals("/metrics")) {
            respond(ctx, 200, Exposition.CONTENT_TYPE, metrics.get(), null, close, head);
        } else {
            Health h = health.get();
            respond(ctx, h.healthy() ? 200 : 503, TEXT, h.text(), null, close, head);
        }
    }

    /**
     * @param path a request's path as the decoder read it: one {@code char} per byte received (ISO-8859-1)
     * @return the path as the client sent it, with every byte outside printable ASCII percent-encoded: a raw UTF-8
     *         {@code /m\u00e9trics} and {@code /m%C3%A9trics} both show as {@code /m%C3%A9trics}; a {@code %} received
     *         stays one (never {@code %25}), so what the client escaped is escaped once
     */
    static String shownPath(String path) {
        StringBuilder b = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c > ' ' && c < 0x7f) {
                b.append(c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit((c >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return b.toString();
    }

    /**
     * Writes one response; with {@code close}, flushes it and closes the connection after it.
     *
     * @param extraField one more header field line without its line end, or {@code null}
     * @param omitBody   a response to {@code HEAD}: the fields of the full response, no body
     */
    private void respond(ChannelHandlerContext ctx, int status, String contentType, String body, String extraField,
            boolean close, boolean omitBody) {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder h = new StringBuilder(160);
        h.append("HTTP/1.1 ").append(status).append(' ').append(reasonPhrase(status)).append("\r\n");
        h.append("Content-Type: ").append(contentType).append("\r\n");
        h.append("Content-Length: ").append(content.length).append("\r\n");
        h.append("Date: ").append(IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC))).append("\r\n");
        h.append("Cache-Control: no-store\r\n");
        if (extraField != null) {
            h.append(extraField).append("\r\n");
        }
        h.append(close ? "Connection: close\r\n" : "Connection: keep-alive\r\n");
        h.append("\r\n");
        byte[] fields = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        int length = fields.length + (omitBody ? 0 : content.length);
        Buffer out = ctx.alloc().buffer(length);
        out.writeBytes(fields);
        if (!omitBody) {
            out.writeBytes(content);
        }
        if (close) {
            closing = true;
            ctx.writeAndFlush(out).addListener(f -> ctx.close());
        } else {
            ctx.write(out);
        }
    }

    /** @return the reason phrase of the statuses this handler sends */
    static String reasonPhrase(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 431 -> "Request Header Fields Too Large";
            case 503 -> "Service Unavailable";
            case 505 -> "HTTP Version Not Supported";
            default -> throw new IllegalArgumentException("no reason phrase for status " + status);
        };
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && !closing) {
            Streams.resumeReading(ctx.channel());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof InputShutdownEvent && !closing) {
            closing = true;
            Streams.closeAfterFlush(ctx.channel()); // the client sent all it will: answer what came, then close
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "metrics: closing " + ctx.channel() + " after " + cause);
        ctx.close();
    }
}
