package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.handler.ssl.TlsContext;
import io.conduit.handler.ssl.TlsHandshakeCompletionEvent;
import io.conduit.testsuite.TlsCertificates;
import org.junit.jupiter.api.Test;

/**
 * A plain-text client on a TLS listener: the TLS handler's failed handshake is counted once on the client side, the
 * event still reaches later handlers, and the scrape shows it in {@code conduit_gateway_tls_handshake_failures_total}.
 */
class TlsFailureCounterTest {

    /** Records the user events that reach it. */
    private static final class Events implements ChannelHandler {
        final List<Object> seen = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            seen.add(event);
        }
    }

    @Test
    void aFailedHandshakeIsCountedAndPassedOn() throws Exception {
        TlsCertificates certs = TlsCertificates.make();
        TlsContext server = TlsContext.forServer(certs.serverCert(), certs.serverKey(), null).build();
        EndpointCounters counters = new EndpointCounters();
        Events events = new Events();
        EmbeddedChannel ch = new EmbeddedChannel(server.newServerHandler(),
                new TlsFailureCounter(counters, EndpointCounters.Side.CLIENT), events);
        Buffer plain = BufferAllocator.unpooled().buffer(64);
        plain.writeBytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        ch.writeInbound(plain);
        ch.runPendingTasks();
        assertFalse(ch.isOpen(), "the TLS handler closes a plain-text client");
        assertEquals(1, counters.snapshot().clientTlsFailures());
        assertEquals(0, counters.snapshot().upstreamTlsFailures());
        assertTrue(events.seen.stream().anyMatch(e -> e instanceof TlsHandshakeCompletionEvent t && !t.isSuccess()),
                "the event reaches later handlers: " + events.seen);
        ch.finishAndReleaseAll();
    }
}
