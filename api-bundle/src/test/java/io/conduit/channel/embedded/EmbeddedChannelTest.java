package io.conduit.channel.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EmbeddedChannelTest {

    /** Upper-cases strings inbound, adds a prefix outbound. */
    static final class Codec implements ChannelHandler {
        final List<String> lifecycle = new ArrayList<>();

        @Override
        public void channelRegistered(ChannelHandlerContext ctx) {
            lifecycle.add("registered");
            ctx.fireChannelRegistered();
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            lifecycle.add("active");
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            lifecycle.add("inactive");
            ctx.fireChannelInactive();
        }

        @Override
        public void channelUnregistered(ChannelHandlerContext ctx) {
            lifecycle.add("unregistered");
            ctx.fireChannelUnregistered();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.fireChannelRead(((String) msg).toUpperCase());
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
            ctx.write("> " + msg, promise);
        }
    }

    @Test
    void inboundAndOutboundRoundTrip() {
        Codec codec = new Codec();
        EmbeddedChannel ch = new EmbeddedChannel(codec);
        assertTrue(ch.isOpen() && ch.isRegistered() && ch.isActive());
        assertEquals(List.of("registered", "active"), codec.lifecycle);

        assertTrue(ch.writeInbound("hello", "world"));
        assertEquals("HELLO", ch.readInbound());
        assertEquals("WORLD", ch.readInbound());
        assertNull(ch.readInbound());

        assertTrue(ch.writeOutbound("ping"));
        assertEquals("> ping", ch.readOutbound());
        assertNull(ch.readOutbound());

        assertFalse(ch.finish());
        assertEquals(List.of("registered", "active", "inactive", "unregistered"), codec.lifecycle);
    }

    @Test
    void writeWithoutFlushStaysPendingAndFailsWhenTheChannelCloses() {
        EmbeddedChannel ch = new EmbeddedChannel();
        Future<Void> pending = ch.write("unflushed");
        assertFalse(pending.isDone());
        assertNull(ch.readOutbound());
        assertFalse(ch.finish());
        assertInstanceOf(ChannelClosedException.class, pending.cause());
        assertTrue(pending.cause().getMessage().contains(ch.id()), pending.cause().getMessage());
    }

    @Test
    void finishReportsWhatIsLeftAndCloseCompletesTheCloseFuture() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.writeInbound("left");
        assertFalse(ch.closeFuture().isDone());
        assertTrue(ch.finish());
        assertTrue(ch.closeFuture().isSuccess());
        assertFalse(ch.isOpen());
        assertFalse(ch.isActive());
        assertEquals("left", ch.readInbound());
        assertTrue(ch.close().isSuccess(), "closing twice succeeds");
        assertThrows(IllegalStateException.class, () -> ch.writeInbound("late"));
        Future<Void> late = ch.writeAndFlush("late");
        assertInstanceOf(ChannelClosedException.class, late.cause());
    }

    @Test
    void checkExceptionRethrowsCheckedExceptionsThatReachedTheTail() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().fireExceptionCaught(new IOException("disk on fire"));
        ch.pipeline().fireExceptionCaught(new IOException("second"));
        Throwable t = assertThrows(IOException.class, ch::checkException);
        assertEquals("disk on fire", t.getMessage());
        assertEquals("second", t.getSuppressed()[0].getMessage());
        ch.checkException(); // only once
    }

    @Test
    void tasksFromOtherThreadsRunWhenTheTestRunsPendingTasks() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel();
        AtomicInteger ran = new AtomicInteger();
        Thread other = new Thread(() -> ch.eventLoop().execute(ran::incrementAndGet));
        other.start();
        other.join(5_000);
        assertTrue(ch.eventLoop().hasPendingTasks());
        assertEquals(0, ran.get());
        ch.runPendingTasks();
        assertEquals(1, ran.get());
        assertTrue(ch.eventLoop().inEventLoop());
        assertFalse(ch.eventLoop().inEventLoop(other));
    }

    @Test
    void scheduledTasksRunWhenTheClockIsAdvanced() {
        EmbeddedChannel ch = new EmbeddedChannel();
        List<String> ran = new ArrayList<>();
        ScheduledFuture<?> later = ch.eventLoop().schedule(() -> ran.add("30s"), 30, TimeUnit.SECONDS);
        ch.eventLoop().schedule(() -> ran.add("10s"), 10, TimeUnit.SECONDS);
        ScheduledFuture<?> never = ch.eventLoop().schedule(() -> ran.add("never"), Long.MAX_VALUE, TimeUnit.DAYS);
        ScheduledFuture<?> cancelled = ch.eventLoop().schedule(() -> ran.add("cancelled"), 1, TimeUnit.SECONDS);
        assertTrue(cancelled.cancel(false));

        long next = ch.runScheduledPendingTasks();
        assertTrue(next > TimeUnit.SECONDS.toNanos(9) && next <= TimeUnit.SECONDS.toNanos(10), "next in " + next);
        assertEquals(List.of(), ran);
        ch.advanceTimeBy(31, TimeUnit.SECONDS);
        ch.runPendingTasks();
        assertEquals(List.of("10s", "30s"), ran);
        assertTrue(later.isSuccess());
        assertFalse(never.isDone());
        assertTrue(never.getDelay(TimeUnit.DAYS) > 100_000, "saturated at about 292 years");
    }

    @Test
    void fixedRateTasksRepeatUntilCancelled() {
        EmbeddedEventLoop loop = new EmbeddedEventLoop();
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> f = loop.scheduleAtFixedRate(runs::incrementAndGet, 1, 1, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            loop.advanceTimeBy(1, TimeUnit.SECONDS);
            loop.runScheduledPendingTasks();
        }
        assertEquals(3, runs.get());
        f.cancel(false);
        loop.advanceTimeBy(5, TimeUnit.SECONDS);
        assertEquals(-1, loop.runScheduledPendingTasks());
        assertEquals(3, runs.get());
    }

    @Test
    void submitCompletesTheFutureAndShutdownRejectsNewTasks() throws Exception {
        EmbeddedEventLoop loop = new EmbeddedEventLoop();
        Future<Integer> f = loop.submit(() -> 42);
        assertFalse(f.isDone());
        assertEquals(1, loop.runPendingTasks());
        assertEquals(42, f.getNow());
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        assertTrue(loop.isShuttingDown() && loop.terminationFuture().isSuccess());
        assertThrows(RejectedExecutionException.class, () -> loop.execute(() -> { }));
        assertSame(loop, loop.next());
    }

    @Test
    void runningTasksFromAnotherThreadIsRejected() throws Exception {
        EmbeddedEventLoop loop = new EmbeddedEventLoop();
        Throwable[] thrown = new Throwable[1];
        Thread other = new Thread(() -> {
            try {
                loop.runPendingTasks();
            } catch (Throwable t) {
                thrown[0] = t;
            }
        });
        other.start();
        other.join(5_000);
        assertInstanceOf(IllegalStateException.class, thrown[0]);
    }
}
