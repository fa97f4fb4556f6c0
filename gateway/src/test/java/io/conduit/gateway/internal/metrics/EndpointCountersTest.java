package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.gateway.internal.metrics.EndpointCounters.Side;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class EndpointCountersTest {

    /** Runs {@code task} on {@code loop} and waits for it. */
    private static void on(EventLoop loop, Runnable task) throws Exception {
        loop.submit(task).get(10, TimeUnit.SECONDS);
    }

    @Test
    void eachLoopCountsIntoItsOwnCellAndASnapshotSumsThem() throws Exception {
        EventLoopGroup group = EventExecutors.newGroup(2, "counters-test");
        try {
            EventLoop a = group.next();
            EventLoop b = group.next();
            EndpointCounters counters = new EndpointCounters();
            on(a, () -> {
                EndpointCounters.Cell c = counters.cell(a);
                c.connectionOpened();
                c.connectionOpened();
                c.received(Side.CLIENT, 100);
                c.sent(Side.CLIENT, 40);
                c.received(Side.UPSTREAM, 7);
                c.sent(Side.UPSTREAM, 100);
                c.connectionClosed();
            });
            on(b, () -> {
                EndpointCounters.Cell c = counters.cell(b);
                c.connectionOpened();
                c.received(Side.CLIENT, 1);
                c.datagramReceived(5);
                c.datagramSent(6);
                c.connectFailed();
            });
            EndpointCounters.Snapshot s = counters.snapshot();
            assertEquals(2, s.connectionsOpen());
            assertEquals(3, s.connectionsTotal());
            assertEquals(106, s.clientReceivedBytes(), "stream bytes and datagram payloads");
            assertEquals(46, s.clientSentBytes());
            assertEquals(1, s.clientReceivedDatagrams());
            assertEquals(1, s.clientSentDatagrams());
            assertEquals(7, s.upstreamReceivedBytes());
            assertEquals(100, s.upstreamSentBytes());
            assertEquals(1, s.connectFailures());
            assertEquals(0, s.connects());
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void connectDurationsFallIntoTheBucketOfTheirUpperBound() throws Exception {
        EventLoopGroup group = EventExecutors.newGroup(1, "counters-test");
        try {
            EventLoop loop = group.next();
            EndpointCounters counters = new EndpointCounters();
            on(loop, () -> {
                EndpointCounters.Cell c = counters.cell(loop);
                c.connected(0);                               // <= 0.0001 s
                c.connected(100_000);                         // = 0.0001 s: still the first bucket (le is inclusive)
                c.connected(100_001);                         // the second
                c.connected(TimeUnit.MILLISECONDS.toNanos(3)); // <= 0.005 s
                c.connected(TimeUnit.SECONDS.toNanos(11));     // above 10 s: +Inf
            });
            EndpointCounters.Snapshot s = counters.snapshot();
            long[] expected = new long[EndpointCounters.CONNECT_SECONDS_BOUNDS.length + 1];
            expected[0] = 2;
            expected[1] = 1;
            expected[5] = 1;
            expected[expected.length - 1] = 1;
            assertArrayEquals(expected, s.connectBuckets());
            assertEquals(5, s.connects());
            assertEquals((100_000 + 100_001 + 3_000_000 + 11_000_000_000L) / 1e9, s.connectSeconds(), 1e-12);
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aTerminatedLoopIsForgottenAndItsCountsStay() throws Exception {
        EndpointCounters counters = new EndpointCounters();
        EventLoopGroup old = EventExecutors.newGroup(1, "counters-old");
        EventLoop gone = old.next();
        on(gone, () -> {
            counters.cell(gone).connectionOpened();
            counters.cell(gone).received(Side.CLIENT, 1000);
            counters.cell(gone).connectionClosed();
        });
        assertEquals(1, counters.cellCount());
        old.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        assertTrue(gone.isTerminated());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (counters.cellCount() != 0) { // the termination listener may run just after await returns
            assertTrue(System.nanoTime() - deadline < 0, "the terminated loop's cell is still there");
            Thread.sleep(5);
        }
        assertEquals(1000, counters.snapshot().clientReceivedBytes(), "its counts stay");
        EventLoopGroup now = EventExecutors.newGroup(1, "counters-new");
        try {
            EventLoop loop = now.next();
            on(loop, () -> counters.cell(loop).received(Side.CLIENT, 24));
            EndpointCounters.Snapshot s = counters.snapshot();
            assertEquals(1024, s.clientReceivedBytes());
            assertEquals(1, s.connectionsTotal());
            assertEquals(0, s.connectionsOpen());
        } finally {
            now.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Four loops open, count and close connections while another thread takes snapshots: every snapshot's gauge is
     * between 0 and the loops' count, each counter only grows, and the last snapshot is exact.
     */
    @Test
    @Timeout(60)
    void snapshotsWhileLoopsCountAreNeverNegativeNeverShrinkAndEndExact() throws Exception {
        int loops = 4;
        int perLoop = 200_000;
        EventLoopGroup group = EventExecutors.newGroup(loops, "counters-stress");
        EndpointCounters counters = new EndpointCounters();
        AtomicBoolean done = new AtomicBoolean();
        List<String> wrong = new ArrayList<>();
        AtomicLong snapshots = new AtomicLong();
        Thread reader = new Thread(() -> {
            long lastTotal = 0;
            long lastBytes = 0;
            while (!done.get()) {
                EndpointCounters.Snapshot s = counters.snapshot();
                snapshots.incrementAndGet();
                if (s.connectionsOpen() < 0 || s.connectionsOpen() > loops) {
                    wrong.add("open " + s.connectionsOpen());
                }
                if (s.connectionsTotal() < lastTotal || s.clientReceivedBytes() < lastBytes) {
                    wrong.add("went back: " + s);
                }
                lastTotal = s.connectionsTotal();
                lastBytes = s.clientReceivedBytes();
            }
        }, "counters-reader");
        try {
            reader.start();
            CountDownLatch finished = new CountDownLatch(loops);
            for (int i = 0; i < loops; i++) {
                EventLoop loop = group.next();
                loop.execute(() -> {
                    EndpointCounters.Cell c = counters.cell(loop);
                    for (int n = 0; n < perLoop; n++) {
                        c.connectionOpened();
                        c.received(Side.CLIENT, 3);
                        c.sent(Side.UPSTREAM, 3);
                        c.connectionClosed();
                    }
                    finished.countDown();
                });
            }
            assertTrue(finished.await(50, TimeUnit.SECONDS));
        } finally {
            done.set(true);
            reader.join(10_000);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
        assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())));
        assertTrue(snapshots.get() > 0);
        EndpointCounters.Snapshot s = counters.snapshot();
        assertEquals((long) loops * perLoop, s.connectionsTotal());
        assertEquals(0, s.connectionsOpen());
        assertEquals(3L * loops * perLoop, s.clientReceivedBytes());
        assertEquals(3L * loops * perLoop, s.upstreamSentBytes());
    }
}
