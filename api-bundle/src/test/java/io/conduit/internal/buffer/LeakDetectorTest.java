package io.conduit.internal.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeakDetectorTest {

    private final List<String> reports = new CopyOnWriteArrayList<>();

    private PooledAllocator pooled(LeakDetector.Mode mode) {
        return new PooledAllocator(1, 8192, 1 << 20, new DirectMemoryCounter(1L << 30),
                new LeakDetector(mode, reports::add));
    }

    private static void leakOneBuffer(BufferAllocator allocator) {
        Buffer b = allocator.buffer(32);
        b.writeInt(1);
        b.touch("decoded by handler-one");
        b.retainedSlice(0, 2).touch("handed to handler-two"); // the slice leaks with its parent
        b.touch();
    }

    /** Collects garbage and allocates (which polls the queue) until a report arrives, at most ~5 s. */
    private void awaitReport(BufferAllocator allocator) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (reports.isEmpty() && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
            allocator.buffer(8).release();
        }
    }

    @Test
    void paranoidModeReportsALeakedBufferWithAllocationAndTouchSites() throws Exception {
        PooledAllocator allocator = pooled(LeakDetector.Mode.PARANOID);
        leakOneBuffer(allocator);
        awaitReport(allocator);
        assertEquals(1, reports.size(), "one report per leaked buffer: " + reports);
        assertEquals(1, allocator.leakDetector().reportCount(), "the leak-report metric counts it");
        String report = reports.get(0);
        assertTrue(report.startsWith("LEAK"), report);
        assertTrue(report.contains("without being released"), report);
        int allocated = report.indexOf("Allocated at:");
        assertTrue(allocated > 0, report);
        assertTrue(report.indexOf("leakOneBuffer", allocated) > 0, "allocation site named: " + report);
        assertTrue(report.contains("paranoidModeReportsALeakedBufferWithAllocationAndTouchSites"),
                "the test method appears in the stack: " + report);
        assertTrue(report.contains("hint: handed to handler-two"), report);
        assertTrue(report.contains("#1 hint: null\n\tat io.conduit.internal.buffer.LeakDetectorTest.leakOneBuffer"),
                "touch() without hint, its default-method frame skipped: " + report);
        assertTrue(report.contains("hint: decoded by handler-one"), report);
        assertTrue(report.indexOf("handler-two") < report.indexOf("handler-one"), "newest touch first: " + report);
        assertTrue(report.contains("\tat io.conduit.internal.buffer.LeakDetectorTest.leakOneBuffer"),
                "allocator frames are skipped, the caller is the first frame: " + report);
        assertEquals(0, allocator.leakDetector().liveCount());
    }

    @Test
    void releasedBuffersAreNeverReported() throws Exception {
        PooledAllocator allocator = pooled(LeakDetector.Mode.PARANOID);
        for (int i = 0; i < 100; i++) {
            Buffer b = allocator.buffer(64);
            b.touch(i);
            b.retainedSlice(0, 1).release();
            b.release();
        }
        Buffer heap = allocator.heapBuffer(8);
        heap.release();
        assertEquals(0, allocator.leakDetector().liveCount());
        for (int i = 0; i < 5; i++) {
            System.gc();
            allocator.buffer(8).release();
        }
        assertTrue(reports.isEmpty(), reports.toString());
    }

    @Test
    void aReleasedBufferThatStaysReachableIsNeverReportedWhenItIsCollectedLater() throws Exception {
        PooledAllocator allocator = pooled(LeakDetector.Mode.PARANOID);
        List<Buffer> kept = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Buffer b = allocator.buffer(64);
            b.touch("kept after release");
            b.release();
            kept.add(b); // released, still strongly reachable: its record must not outlive the release
        }
        assertEquals(0, allocator.leakDetector().liveCount());
        for (int i = 0; i < 3; i++) {
            System.gc();
            allocator.buffer(8).release();
        }
        kept.clear();
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(10);
            allocator.buffer(8).release();
        }
        assertTrue(reports.isEmpty(), reports.toString());
    }

    @Test
    void simpleModeReportsASampledLeakWithItsAllocationSite() throws Exception {
        PooledAllocator allocator = pooled(LeakDetector.Mode.SIMPLE);
        for (int i = 0; i < LeakDetector.SAMPLING_INTERVAL * 40; i++) {
            allocator.buffer(16).writeByte(i); // never released: about 40 of them are tracked
        }
        // leaks are reported when a later allocation is sampled: keep allocating (and releasing) until one is
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reports.isEmpty() && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
            for (int i = 0; i < LeakDetector.SAMPLING_INTERVAL * 4; i++) {
                allocator.buffer(8).release();
            }
        }
        assertTrue(!reports.isEmpty(), "no leak reported in simple mode");
        String report = reports.get(0);
        assertTrue(report.contains("conduit.leakDetection=simple"), report);
        assertTrue(report.contains("Last touched (0 newest of 0 touches, newest first): never"), report);
        assertTrue(report.contains("simpleModeReportsASampledLeakWithItsAllocationSite"), report);
    }

    /** @return how many of {@code n} allocations {@code detector} tracked */
    private static int trackAndRelease(LeakDetector detector, Object referent, int n) {
        int tracked = 0;
        for (int i = 0; i < n; i++) {
            LeakDetector.Record r = detector.track(referent);
            if (r != null) {
                tracked++;
                r.close();
            }
        }
        return tracked;
    }

    @Test
    void simpleModeTakesAtMostTheCappedNumberOfStacksASecond() throws Exception {
        LeakDetector simple = new LeakDetector(LeakDetector.Mode.SIMPLE, reports::add);
        Object referent = new Object();
        long started = System.nanoTime();
        int tracked = trackAndRelease(simple, referent, 128 * 2_000); // ~2,000 sampled in a burst
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(tracked >= 1, "the first sampled allocation is tracked");
        assertTrue(tracked <= 1 + Math.ceil(seconds * LeakDetector.MAX_SAMPLES_PER_SECOND),
                tracked + " tracked in " + seconds + " s, cap " + LeakDetector.MAX_SAMPLES_PER_SECOND + "/s");
        Thread.sleep(1_000 / LeakDetector.MAX_SAMPLES_PER_SECOND + 5);
        assertTrue(trackAndRelease(simple, referent, 128 * 64) >= 1, "after a pause sampling resumes");
    }

    @Test
    void unpooledBuffersAreTrackedToo() throws Exception {
        UnpooledAllocator allocator = new UnpooledAllocator(new LeakDetector(LeakDetector.Mode.PARANOID, reports::add));
        leakOneBuffer(allocator);
        awaitReport(allocator);
        assertEquals(1, reports.size(), reports.toString());
        assertTrue(reports.get(0).contains("unpooledBuffersAreTrackedToo"), reports.get(0));
    }

    @Test
    void disabledTracksNothingAndSimpleSamplesAFewBuffers() {
        LeakDetector disabled = new LeakDetector(LeakDetector.Mode.DISABLED, reports::add);
        assertNull(disabled.track(new Object()));
        LeakDetector simple = new LeakDetector(LeakDetector.Mode.SIMPLE, reports::add, 0);
        Object referent = new Object();
        int tracked = trackAndRelease(simple, referent, 128 * 200);
        assertTrue(tracked > 100 && tracked < 400, "about 1 in 128 of 25600 tracked: " + tracked);
        LeakDetector paranoid = new LeakDetector(LeakDetector.Mode.PARANOID, reports::add);
        LeakDetector.Record r = paranoid.track(referent);
        assertNotNull(r);
        assertEquals(1, paranoid.liveCount());
        r.close();
        assertEquals(0, paranoid.liveCount());
    }

    @Test
    void modeParsingAcceptsTheThreeValuesAndRejectsOthersListingThem() {
        assertEquals(LeakDetector.Mode.SIMPLE, LeakDetector.Mode.parse(null));
        assertThrows(IllegalArgumentException.class, () -> LeakDetector.Mode.parse(" "), "set but empty");
        assertEquals(LeakDetector.Mode.DISABLED, LeakDetector.Mode.parse("disabled"));
        assertEquals(LeakDetector.Mode.PARANOID, LeakDetector.Mode.parse("PARANOID"));
        assertEquals(LeakDetector.Mode.SIMPLE, LeakDetector.Mode.parse("Simple"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LeakDetector.Mode.parse("advanced"));
        assertTrue(e.getMessage().contains("conduit.leakDetection='advanced'")
                && e.getMessage().contains("disabled, simple, paranoid"), e.getMessage());
    }

    @Test
    void invalidMaxDirectMemoryIsRejectedWithThePropertyName() {
        String old = System.getProperty(DirectMemoryCounter.PROPERTY);
        try {
            System.setProperty(DirectMemoryCounter.PROPERTY, "lots");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    DirectMemoryCounter::capFromSystemProperty);
            assertTrue(e.getMessage().contains("conduit.maxDirectMemory='lots'"), e.getMessage());
            System.setProperty(DirectMemoryCounter.PROPERTY, "12345");
            assertEquals(12345, DirectMemoryCounter.capFromSystemProperty());
        } finally {
            if (old == null) {
                System.clearProperty(DirectMemoryCounter.PROPERTY);
            } else {
                System.setProperty(DirectMemoryCounter.PROPERTY, old);
            }
        }
    }
}
