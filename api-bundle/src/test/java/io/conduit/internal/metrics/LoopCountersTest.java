package io.conduit.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What one loop's counters add up to, and how {@code io.conduit.metrics} is read. */
class LoopCountersTest {

    @Test
    void countsAddUpAndAWaitInProgressCountsAsWaiting() throws Exception {
        LoopCounters c = new LoopCounters("test-loop", "test", () -> 7);
        IoValues before = new IoValues("test-loop", "test");
        c.addTo(before, System.nanoTime());
        assertEquals(0, before.getBusyNanos() + before.getWaitNanos(), "no time before the loop started");

        c.started();
        c.bytesRead(100);
        c.bytesRead(23);
        c.bytesWritten(50);
        c.datagramRead(10);
        c.datagramWritten(20);
        c.accepted();
        c.ioError();
        c.waitStarting();
        Thread.sleep(50);
        IoValues v = new IoValues("test-loop", "test");
        c.addTo(v, System.nanoTime());
        assertEquals(133, v.getBytesRead());
        assertEquals(70, v.getBytesWritten());
        assertEquals(1, v.getDatagramsRead());
        assertEquals(1, v.getDatagramsWritten());
        assertEquals(1, v.getAcceptedConnections());
        assertEquals(1, v.getIoErrors());
        assertEquals(7, v.getPendingTasks());
        assertTrue(v.getWaitNanos() >= 40_000_000L, "the wait in progress counts: " + v);
        c.waitEnded();
        c.stopped();
        IoValues end = new IoValues("test-loop", "test");
        c.addTo(end, System.nanoTime() + 1_000_000_000L);
        assertEquals(0, end.getPendingTasks(), "a stopped loop has no pending task");
        long running = end.getBusyNanos() + end.getWaitNanos();
        assertTrue(running < 1_000_000_000L, "a stopped loop's time ends when it stopped: " + end);
        assertEquals(Thread.currentThread().getName(), end.getThreadName());
    }

    @Test
    void onlyFalseTurnsCountingOff() {
        assertTrue(LoopCounters.counting(null));
        assertTrue(LoopCounters.counting("true"));
        assertFalse(LoopCounters.counting(" FALSE "));
        assertTrue(LoopCounters.counting("off"), "not a boolean: logged, counting stays on");
    }
}
