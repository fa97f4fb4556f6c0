package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelPipeline;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stress: a producer thread fires reads while another thread adds, replaces and removes handlers (on the
 * channel's loop and on a handler executor). Handlers present throughout see every event once, in order; a
 * handler present for a while sees a strictly increasing subsequence; nothing is lost or duplicated.
 */
@Timeout(60)
class PipelineConcurrencyTest {

    private static final int EVENTS = 30_000;

    /** Records the integers it sees. */
    static final class Seq implements ChannelHandler {
        final List<Integer> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            seen.add((Integer) msg);
            ctx.fireChannelRead(msg);
        }

        List<Integer> snapshot() {
            synchronized (seen) {
                return new ArrayList<>(seen);
            }
        }
    }

    /** Compares without printing 30,000 numbers: size, first difference, duplicates. */
    private static void assertAll(String who, List<?> expected, List<?> actual) {
        if (expected.equals(actual)) {
            return;
        }
        int i = 0;
        while (i < Math.min(expected.size(), actual.size()) && expected.get(i).equals(actual.get(i))) {
            i++;
        }
        long distinct = actual.stream().distinct().count();
        throw new AssertionError(who + " saw " + actual.size() + " events (" + distinct + " distinct), expected "
                + expected.size() + "; first difference at index " + i + ": expected "
                + (i < expected.size() ? expected.get(i) : "end") + ", got " + (i < actual.size() ? actual.get(i) : "end"));
    }

    @Test
    void mutatingWithLoopBoundHandlersKeepsEveryEventOnceAndInOrder() throws Exception {
        stress(false);
    }

    /**
     * Removing a handler that runs on its own executor while events are queued there lets later events (which no
     * longer pass through that executor) overtake them downstream: each event still arrives exactly once.
     */
    @Test
    void mutatingWithOffloadedHandlersKeepsEveryEventExactlyOnce() throws Exception {
        stress(true);
    }

    private void stress(boolean offloadedTransients) throws Exception {
        try (EventLoopGroup loops = EventExecutors.newGroup(1, "channel-loop");
                EventLoopGroup executors = EventExecutors.newGroup(1, "handler-executor")) {
            EventLoop loop = loops.next();
            EventLoop executor = executors.next();
            List<Object> atTail = Collections.synchronizedList(new ArrayList<>());
            TestChannel ch = new TestChannel(loop, (c, io) -> new DefaultChannelPipeline(c, io) {
                @Override
                protected void onUnhandledMessage(Object msg) {
                    atTail.add(msg);
                }
            });
            ChannelPipeline p = ch.pipeline;
            Seq first = new Seq();
            Seq middle = new Seq();
            Seq last = new Seq();
            p.addLast("first", first).addLast(executor, "middle", middle).addLast("last", last);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger mutations = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Seq> transients = new CopyOnWriteArrayList<>();
            Thread mutator = new Thread(() -> {
                Random rnd = new Random(7);
                try {
                    for (int k = 0; !stop.get(); k++) {
                        Seq t = new Seq();
                        transients.add(t);
                        String name = "t" + k;
                        switch (rnd.nextInt(offloadedTransients ? 4 : 3)) {
                            case 0 -> p.addAfter("first", name, t);
                            case 1 -> p.addBefore("last", name, t);
                            case 2 -> p.addFirst(name, t);
                            default -> p.addLast(executor, name, t);
                        }
                        Thread.yield();
                        if (rnd.nextBoolean()) {
                            Seq r = new Seq();
                            transients.add(r);
                            p.replace(name, name + "r", r);
                            name += "r";
                            Thread.yield();
                        }
                        p.remove(name);
                        mutations.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "mutator");
            Thread producer = new Thread(() -> {
                for (int i = 0; i < EVENTS; i++) {
                    p.fireChannelRead(i);
                    // pace the producer so that structural changes overlap the whole stream
                    while (i % 64 == 0 && mutations.get() < i / 256 && failure.get() == null) {
                        Thread.yield();
                    }
                }
            }, "producer");
            mutator.start();
            producer.start();
            producer.join(TimeUnit.SECONDS.toMillis(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (atTail.size() < EVENTS && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            stop.set(true);
            mutator.join(TimeUnit.SECONDS.toMillis(10));
            loop.submit(() -> { }).sync();
            executor.submit(() -> { }).sync();

            if (failure.get() != null) {
                throw new AssertionError("mutator failed", failure.get());
            }
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                all.add(i);
            }
            assertAll("first", all, first.snapshot());
            assertAll("middle", all, middle.snapshot());
            assertAll("last", all, last.snapshot());
            List<Object> tail;
            synchronized (atTail) {
                tail = new ArrayList<>(atTail);
            }
            if (offloadedTransients) {
                tail.sort(null);
            }
            assertAll("tail", all, tail);
            assertTrue(mutations.get() > 0, "the pipeline was mutated");
            int sawSome = 0;
            for (Seq t : transients) {
                List<Integer> s = t.snapshot();
                for (int i = 1; i < s.size(); i++) {
                    assertTrue(s.get(i - 1) < s.get(i), "a transient handler saw " + s.get(i - 1) + " then " + s.get(i));
                }
                sawSome += s.isEmpty() ? 0 : 1;
            }
            assertEquals(List.of("first", "middle", "last"), p.names());
            System.out.println("pipeline stress: " + mutations.get() + " add/replace/remove cycles, "
                    + sawSome + " of " + transients.size() + " transient handlers saw events");
        }
    }
}
