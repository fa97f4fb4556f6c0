package io.conduit.handler.timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Idle, read and write timeouts on the embedded loop's clock: no sleeps, time moves only when the test says. */
@Timeout(30)
class TimeoutHandlersTest {

    /** Records user events and exceptions. */
    static final class Recorder implements ChannelHandler {
        final List<Object> events = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            events.add(event);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    /**
     * Moves the channel's clock and runs what became due. The embedded loop's clock also counts real time since the
     * channel was made, so a check that nothing fired yet leaves half a timeout of margin: with 1 ms (999 of 1000),
     * a loaded CI run's real milliseconds made the event fire early.
     */
    static void advance(EmbeddedChannel ch, long millis) {
        ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        ch.runPendingTasks();
    }

    @Test
    void readerIdleFiresAfterTheTimeRepeatsAndARestartsTheRun() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new IdleStateHandler(1000, 0, 0, TimeUnit.MILLISECONDS), r);
        advance(ch, 500);
        assertEquals(List.of(), r.events);
        advance(ch, 500);
        assertEquals(List.of(IdleStateEvent.FIRST_READER_IDLE), r.events);
        advance(ch, 1000);
        assertEquals(List.of(IdleStateEvent.FIRST_READER_IDLE, IdleStateEvent.READER_IDLE), r.events);
        r.events.clear();
        advance(ch, 500);
        ch.writeInbound("data");
        ch.readInbound();
        advance(ch, 500); // the pending check, due 500 ms after the read, reschedules for the rest
        assertEquals(List.of(), r.events);
        advance(ch, 500);
        assertEquals(List.of(IdleStateEvent.FIRST_READER_IDLE), r.events);
        ch.finish();
    }

    @Test
    void writerIdleCountsCompletedWritesOnly() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new IdleStateHandler(0, 1000, 0, TimeUnit.MILLISECONDS), r);
        advance(ch, 600);
        ch.writeOutbound("flushed");
        ch.readOutbound();
        advance(ch, 500);
        assertEquals(List.of(), r.events);
        ch.write("never flushed"); // its promise stays pending: the writer is idle regardless
        advance(ch, 500);
        assertEquals(List.of(IdleStateEvent.FIRST_WRITER_IDLE), r.events);
        advance(ch, 1000);
        assertEquals(IdleStateEvent.WRITER_IDLE, r.events.get(1));
        ch.finishAndReleaseAll();
    }

    @Test
    void allIdleNeedsNeitherReadNorWrite() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new IdleStateHandler(0, 0, 1000, TimeUnit.MILLISECONDS), r);
        advance(ch, 700);
        ch.writeInbound("in");
        ch.readInbound();
        advance(ch, 700);
        ch.writeOutbound("out");
        ch.readOutbound();
        advance(ch, 500);
        assertEquals(List.of(), r.events);
        advance(ch, 500);
        assertEquals(List.of(IdleStateEvent.FIRST_ALL_IDLE), r.events);
        ch.finish();
    }

    @Test
    void timersStopWhenTheChannelClosesOrTheHandlerIsRemoved() {
        Recorder r = new Recorder();
        IdleStateHandler idle = new IdleStateHandler(1, 1, 1);
        EmbeddedChannel ch = new EmbeddedChannel(idle, r);
        assertTrue(ch.eventLoop().nextScheduledTaskNanos() >= 0);
        ch.pipeline().remove(idle);
        ch.runPendingTasks();
        advance(ch, 5000);
        assertEquals(List.of(), r.events);
        assertEquals(-1, ch.eventLoop().nextScheduledTaskNanos(), "cancelled checks leave the queue");
        ch.finish();

        Recorder r2 = new Recorder();
        EmbeddedChannel ch2 = new EmbeddedChannel(new IdleStateHandler(1, 0, 0), r2);
        ch2.close();
        advance(ch2, 5000);
        assertEquals(List.of(), r2.events);
        assertEquals(-1, ch2.eventLoop().nextScheduledTaskNanos());
    }

    @Test
    void readTimeoutFiresOnceAndCloses() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new ReadTimeoutHandler(2, TimeUnit.SECONDS), r);
        advance(ch, 1500);
        assertTrue(ch.isOpen());
        advance(ch, 500);
        assertFalse(ch.isOpen());
        assertEquals(1, r.errors.size());
        ReadTimeoutException e = assertInstanceOf(ReadTimeoutException.class, r.errors.get(0));
        assertTrue(e.getMessage().startsWith("no read for 2000 ms on EmbeddedChannel["), e.getMessage());
        advance(ch, 10_000);
        assertEquals(1, r.errors.size());
        assertThrows(IllegalArgumentException.class, () -> new ReadTimeoutHandler(0));
    }

    @Test
    void writeTimeoutClosesWhenAWriteIsStuckAndNotWhenItCompletes() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new WriteTimeoutHandler(1000, TimeUnit.MILLISECONDS), r);
        ch.writeOutbound("fast");
        ch.readOutbound();
        advance(ch, 5000);
        assertTrue(ch.isOpen(), "a completed write cancels its timer");
        assertEquals(-1, ch.eventLoop().nextScheduledTaskNanos());
        Future<Void> stuck = ch.write("stuck"); // never flushed
        advance(ch, 500);
        assertTrue(ch.isOpen());
        advance(ch, 500);
        assertFalse(ch.isOpen());
        assertInstanceOf(WriteTimeoutException.class, r.errors.get(0));
        assertEquals(1, r.errors.size());
        assertInstanceOf(ChannelClosedException.class, stuck.cause());
    }
}
