package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PipelineExecutorHandOffTest {

    private static final int EVENTS = 5_000;

    /** Records reads, read-completes, writes and flushes in the order it sees them, with the thread. */
    static final class Log implements ChannelHandler {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<Thread> threads = Collections.synchronizedList(new ArrayList<>());

        private void record(String e) {
            events.add(e);
            threads.add(Thread.currentThread());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            record("r" + msg);
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            record("c");
            ctx.fireChannelReadComplete();
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
            record("w" + msg);
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            record("f");
            ctx.flush();
        }

        boolean allOn(Thread t) {
            synchronized (threads) {
                return threads.stream().allMatch(x -> x == t);
            }
        }
    }

    private static void runUntil(EmbeddedChannel ch, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for events to arrive");
            ch.runPendingTasks();
            Thread.sleep(1);
        }
        ch.runPendingTasks();
    }

    @Test
    void inboundEventsKeepTheirOrderAcrossHandOffsToHandlerExecutorsAndBack() throws Exception {
        try (EventLoopGroup g1 = EventExecutors.newGroup(1, "executor-1");
                EventLoopGroup g2 = EventExecutors.newGroup(1, "executor-2")) {
            EventLoop e1 = g1.next();
            EventLoop e2 = g2.next();
            EmbeddedChannel ch = new EmbeddedChannel();
            Log a = new Log();
            Log h1 = new Log();
            Log b = new Log();
            Log h2 = new Log();
            Log c = new Log();
            ch.pipeline().addLast("a", a).addLast(e1, "h1", h1).addLast("b", b).addLast(e2, "h2", h2).addLast("c", c);

            List<String> expected = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                ch.pipeline().fireChannelRead(i);
                expected.add("r" + i);
                if (i % 10 == 9) {
                    ch.pipeline().fireChannelReadComplete();
                    expected.add("c");
                }
            }
            runUntil(ch, () -> ch.inboundMessages().size() == EVENTS && c.events.size() == expected.size());

            for (Log log : List.of(a, h1, b, h2, c)) {
                assertEquals(expected, log.events);
            }
            Thread loop = Thread.currentThread();
            assertTrue(a.allOn(loop) && b.allOn(loop) && c.allOn(loop), "loop-bound handlers run on the loop");
            assertTrue(h1.allOn(TestChannel.threadOf(e1)), "h1 runs on its executor");
            assertTrue(h2.allOn(TestChannel.threadOf(e2)), "h2 runs on its executor");
            for (int i = 0; i < EVENTS; i++) {
                assertEquals(i, (Integer) ch.readInbound());
            }
        }
    }

    @Test
    void outboundOperationsKeepTheirOrderAcrossHandOffs() throws Exception {
        try (EventLoopGroup g1 = EventExecutors.newGroup(1, "executor-1")) {
            EventLoop e1 = g1.next();
            EmbeddedChannel ch = new EmbeddedChannel();
            Log nearHead = new Log();
            Log offloaded = new Log();
            Log nearTail = new Log();
            ch.pipeline().addLast("nearHead", nearHead).addLast(e1, "offloaded", offloaded).addLast("nearTail", nearTail);
            ch.config().setAutoRead(false); // keep read() calls out of the log

            List<String> expected = new ArrayList<>();
            List<Future<Void>> futures = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                futures.add(ch.write(i));
                expected.add("w" + i);
                if (i % 7 == 6 || i == EVENTS - 1) {
                    ch.flush();
                    expected.add("f");
                }
            }
            runUntil(ch, () -> ch.outboundMessages().size() == EVENTS);

            assertEquals(expected, nearTail.events);
            assertEquals(expected, offloaded.events);
            assertEquals(expected, nearHead.events);
            assertTrue(offloaded.allOn(TestChannel.threadOf(e1)));
            assertTrue(nearHead.allOn(Thread.currentThread()), "back on the channel's loop after the hand-off");
            for (int i = 0; i < EVENTS; i++) {
                assertEquals(i, (Integer) ch.readOutbound());
                assertTrue(futures.get(i).isSuccess());
            }
        }
    }

    @Test
    void handlerAddedRemovedAndExceptionCaughtRunOnTheHandlersExecutor() throws Exception {
        try (EventLoopGroup g1 = EventExecutors.newGroup(1, "executor-1")) {
            EventLoop e1 = g1.next();
            EmbeddedChannel ch = new EmbeddedChannel();
            List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
            List<String> calls = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch removed = new CountDownLatch(1);
            ChannelHandler h = new ChannelHandler() {
                @Override
                public void handlerAdded(ChannelHandlerContext ctx) {
                    calls.add("added");
                    threads.add(Thread.currentThread());
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    throw new IllegalStateException("read " + msg);
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    calls.add("caught " + cause.getMessage());
                    threads.add(Thread.currentThread());
                }

                @Override
                public void handlerRemoved(ChannelHandlerContext ctx) {
                    calls.add("removed");
                    threads.add(Thread.currentThread());
                    removed.countDown();
                }
            };
            ch.pipeline().addLast(e1, "h", h);
            assertSame(e1, ch.pipeline().context("h").executor());
            ch.pipeline().fireChannelRead("x");
            ch.pipeline().remove(h);
            assertTrue(removed.await(10, TimeUnit.SECONDS));
            assertEquals(List.of("added", "caught read x", "removed"), calls);
            for (Thread t : threads) {
                assertSame(TestChannel.threadOf(e1), t);
            }
            ch.checkException();
        }
    }

    @Test
    void aContextWithoutItsOwnExecutorUsesTheChannelsLoop() {
        EmbeddedChannel ch = new EmbeddedChannel(new DefaultChannelPipelineTest.Plain());
        EventExecutor ex = ch.pipeline().context("Plain#0").executor();
        assertSame(ch.eventLoop(), ex);
    }
}
