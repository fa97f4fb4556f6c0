package io.conduit.handler.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.handler.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LimitHandlersTest {

    /** Records whether it saw the channel become active and inactive. */
    static final class Seen implements ChannelHandler {
        boolean active;
        boolean inactive;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active = true;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive = true;
        }
    }

    @Test
    void connectionsBeyondTheLimitAreClosedAtOnceAndLoggedOncePerTenSeconds() {
        AtomicLong clock = new AtomicLong();
        ConnectionLimit limit = new ConnectionLimit(2, null, clock::get);
        try (LogCapture log = new LogCapture(ConnectionLimit.class.getName())) {
            List<EmbeddedChannel> open = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Seen seen = new Seen();
                open.add(new EmbeddedChannel(limit.newHandler(), seen));
                assertTrue(seen.active);
            }
            assertEquals(2, limit.openConnections());
            for (int i = 0; i < 5; i++) {
                Seen seen = new Seen();
                EmbeddedChannel rejected = new EmbeddedChannel(limit.newHandler(), seen);
                assertFalse(rejected.isOpen(), "connection " + (3 + i) + " is over the limit");
                assertFalse(seen.active);
                assertFalse(seen.inactive, "later handlers never see a rejected connection");
                clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
            }
            assertEquals(1, log.records().size(), "one line for 5 rejections within 10 s");
            assertTrue(log.records().get(0).getMessage().startsWith("connection limit 2 reached on listener (none):"
                    + " closed the connection from embedded at once"), log.records().get(0).getMessage());
            clock.addAndGet(TimeUnit.SECONDS.toNanos(10));
            new EmbeddedChannel(limit.newHandler());
            assertEquals(2, log.records().size());
            assertTrue(log.records().get(1).getMessage().endsWith("(the latest of 5 in the last 15 s)"), log.records().get(1).getMessage());
            open.get(0).close();
            assertEquals(1, limit.openConnections());
            EmbeddedChannel again = new EmbeddedChannel(limit.newHandler());
            assertTrue(again.isOpen(), "a closed connection frees its place");
            assertEquals(2, limit.openConnections());
        }
        assertThrows(IllegalArgumentException.class, () -> new ConnectionLimit(0));
    }

    @Test
    void theRejectionLineNamesTheLimitsOwnerBeforeTheListener() {
        ConnectionLimit limit = new ConnectionLimit(1, "relay io.conduit.gateway.relay-redis.cfg");
        try (LogCapture log = new LogCapture(ConnectionLimit.class.getName())) {
            EmbeddedChannel first = new EmbeddedChannel(limit.newHandler());
            EmbeddedChannel second = new EmbeddedChannel(limit.newHandler());
            assertTrue(first.isOpen());
            assertFalse(second.isOpen());
            assertEquals(1, log.records().size());
            assertTrue(log.records().get(0).getMessage().startsWith("connection limit 1 reached on relay"
                    + " io.conduit.gateway.relay-redis.cfg (listener (none)): closed the connection from embedded"),
                    log.records().get(0).getMessage());
        }
    }

    static Buffer bytes(int n) {
        Buffer b = BufferAllocator.unpooled().buffer(n);
        b.writeBytes(new byte[n]);
        return b;
    }

    @Test
    void aConnectionOverItsRateTurnsAutoReadOffUntilTheDebtIsRepaid() {
        TokenBucket own = new TokenBucket(1000, 1000); // 1000 B/s, burst 1000 B
        ByteRateLimitHandler limiter = new ByteRateLimitHandler(own);
        EmbeddedChannel ch = new EmbeddedChannel(limiter);
        ch.writeInbound(bytes(800));
        assertTrue(ch.config().isAutoRead(), "within the burst");
        ch.writeInbound(bytes(100_500)); // 100,300 B of debt: about 100 s (the loop's clock also runs in real time)
        Buffer passed = ch.readInbound();
        passed.release();
        ((Buffer) ch.readInbound()).release();
        assertFalse(ch.config().isAutoRead(), "in debt: auto-read off, nothing buffered");
        assertTrue(limiter.isPaused());
        ch.advanceTimeBy(90, TimeUnit.SECONDS);
        ch.runPendingTasks();
        assertFalse(ch.config().isAutoRead());
        ch.advanceTimeBy(10_300, TimeUnit.MILLISECONDS);
        ch.runPendingTasks();
        assertTrue(ch.config().isAutoRead(), "debt repaid");
        assertFalse(limiter.isPaused());
        ch.finish();
    }

    @Test
    void aListenerBucketHoldsBackEveryConnectionAndExplicitReadsWait() {
        TokenBucket listener = new TokenBucket(1000, 1000);
        EmbeddedChannel a = new EmbeddedChannel(new ByteRateLimitHandler(new TokenBucket(1_000_000), listener));
        EmbeddedChannel b = new EmbeddedChannel(new ByteRateLimitHandler(new TokenBucket(1_000_000), listener));
        b.config().setAutoRead(false); // b reads on demand
        a.writeInbound(bytes(1500));
        ((Buffer) a.readInbound()).release();
        assertFalse(a.config().isAutoRead());
        b.writeInbound(bytes(1));
        ((Buffer) b.readInbound()).release();
        long before = b.readRequests();
        b.read();
        assertEquals(before, b.readRequests(), "the shared bucket is in debt: b's read waits");
        b.advanceTimeBy(1, TimeUnit.SECONDS);
        b.runPendingTasks();
        assertEquals(before + 1, b.readRequests(), "the held read is passed on");
        assertFalse(b.config().isAutoRead(), "b's own auto-read setting is left alone");
        a.finish();
        b.finish();
    }

    @Test
    void tokenBucketArithmetic() {
        TokenBucket t = new TokenBucket(100, 50);
        assertEquals(0, t.take(50, 0));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(100), t.take(10, 0));
        assertEquals(0, t.debtNanos(TimeUnit.MILLISECONDS.toNanos(100)));
        assertEquals(0, t.take(50, TimeUnit.SECONDS.toNanos(100)), "refill is capped at the burst");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(10), t.take(1, TimeUnit.SECONDS.toNanos(100)));
        assertThrows(IllegalArgumentException.class, () -> new TokenBucket(0));
    }
}
