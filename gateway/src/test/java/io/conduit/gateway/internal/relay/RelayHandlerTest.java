package io.conduit.gateway.internal.relay;

import static io.conduit.gateway.internal.echo.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.echo.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.gateway.internal.TestDuplexChannel;
import org.junit.jupiter.api.Test;

class RelayHandlerTest {

    /** A relayed pair: client side and upstream side, each relaying to the other. */
    private static TestDuplexChannel[] pair() {
        TestDuplexChannel client = new TestDuplexChannel();
        TestDuplexChannel upstream = new TestDuplexChannel(new RelayHandler(client));
        client.pipeline().addLast(new RelayHandler(upstream));
        return new TestDuplexChannel[] {client, upstream};
    }

    @Test
    void bytesFlowBothWays() {
        TestDuplexChannel[] p = pair();
        p[0].writeInbound(bytes("GET / HTTP/1.0\r\n\r\n"));
        assertEquals("GET / HTTP/1.0\r\n\r\n", text(p[1].readOutbound()));
        p[1].writeInbound(bytes("HTTP/1.0 200 OK\r\n"));
        assertEquals("HTTP/1.0 200 OK\r\n", text(p[0].readOutbound()));
        assertNull(p[0].readInbound(), "nothing falls off the end of the pipeline");
    }

    @Test
    void slowPeerStopsReadingTheFastSideUntilItDrains() {
        TestDuplexChannel[] p = pair();
        TestDuplexChannel client = p[0];
        TestDuplexChannel upstream = p[1];
        upstream.setWritable(false);
        client.writeInbound(bytes("a lot"));
        assertFalse(client.config().isAutoRead(), "upstream above its high water mark: client not read");
        assertTrue(upstream.config().isAutoRead(), "the other direction keeps flowing");
        upstream.setWritable(true);
        client.runPendingTasks(); // resumed in a task of the client's loop, not inside the upstream's write loop
        assertTrue(client.config().isAutoRead(), "upstream drained: client read again");
        text(upstream.readOutbound());
    }

    @Test
    void halfCloseIsForwardedBothWaysThenBothClose() {
        TestDuplexChannel[] p = pair();
        TestDuplexChannel client = p[0];
        TestDuplexChannel upstream = p[1];
        client.writeInbound(bytes("request"));
        client.receiveEof();
        assertTrue(upstream.isOutputShutdown(), "client FIN forwarded as upstream SHUT_WR");
        assertEquals(1, upstream.flushedAtOutputShutdown, "after the request was flushed");
        assertTrue(client.isOpen() && upstream.isOpen(), "the response direction still flows");

        upstream.writeInbound(bytes("response"));
        assertEquals("response", text(client.readOutbound()));
        upstream.receiveEof();
        assertTrue(client.isOutputShutdown(), "upstream FIN forwarded to the client");
        assertFalse(client.isOpen(), "client: both directions done");
        assertFalse(upstream.isOpen(), "upstream: both directions done");
        assertEquals("request", text(upstream.readOutbound()));
    }

    @Test
    void closeOfOneSideClosesTheOtherAfterFlushing() {
        TestDuplexChannel[] p = pair();
        p[1].writeInbound(bytes("bye"));
        p[0].close();
        p[0].runPendingTasks();
        p[1].runPendingTasks();
        assertFalse(p[1].isOpen());
        assertEquals("bye", text(p[0].readOutbound()));
    }

    /**
     * From a user's trial: a client died while its upstream (socat echoing into a pipe) was backed up. The relay had
     * stopped reading the upstream (the client could take nothing), the upstream stopped reading the relay (its own
     * output was not read), and the close-after-flush of the upstream waited for good: the upstream socket stayed
     * established with megabytes queued both ways. Now the upstream is read again (its bytes are dropped) and
     * closed after 30 s at the latest.
     */
    @Test
    void aPeerThatTakesNothingMoreIsReadAgainAndClosedAfterTheFlushTimeout() {
        TestDuplexChannel client = new TestDuplexChannel();
        TestDuplexChannel upstream = new TestDuplexChannel(new RelayHandler(client));
        client.pipeline().addLast(new RelayHandler(upstream));
        java.util.List<io.conduit.concurrent.Promise<Void>> neverWritten = new java.util.ArrayList<>();
        upstream.pipeline().addFirst("black-hole", new io.conduit.channel.ChannelHandler() { // reads nothing more
            @Override
            public void write(io.conduit.channel.ChannelHandlerContext ctx, Object msg,
                    io.conduit.concurrent.Promise<Void> promise) {
                io.conduit.buffer.ReferenceCounted.release(msg);
                neverWritten.add(promise);
            }

            @Override
            public void flush(io.conduit.channel.ChannelHandlerContext ctx) {
            }
        });
        client.setWritable(false);
        upstream.writeInbound(bytes("echoed back"));
        assertFalse(upstream.config().isAutoRead(), "the client takes nothing: the upstream is not read");
        client.writeInbound(bytes("request"));
        text(client.readOutbound());

        client.close();
        client.runPendingTasks();
        upstream.runPendingTasks();
        assertTrue(upstream.isOpen(), "the upstream's last bytes are still being flushed");
        assertTrue(upstream.config().isAutoRead(), "read again: what it sends now has nowhere to go");
        io.conduit.buffer.Buffer late = bytes("late");
        upstream.writeInbound(late);
        assertEquals(0, late.refCnt(), "dropped");

        upstream.advanceTimeBy(29, java.util.concurrent.TimeUnit.SECONDS);
        upstream.runScheduledPendingTasks();
        assertTrue(upstream.isOpen(), "before the flush timeout");
        upstream.advanceTimeBy(1, java.util.concurrent.TimeUnit.SECONDS);
        upstream.runScheduledPendingTasks();
        assertFalse(upstream.isOpen(), "closed after 30 s although the flush never completed");
        assertFalse(neverWritten.isEmpty());
    }

    @Test
    void readsAfterThePeerClosedAreReleased() {
        TestDuplexChannel upstream = new TestDuplexChannel();
        TestDuplexChannel client = new TestDuplexChannel(new RelayHandler(upstream));
        upstream.close();
        io.conduit.buffer.Buffer late = bytes("late");
        client.writeInbound(late);
        assertEquals(0, late.refCnt());
    }
}
