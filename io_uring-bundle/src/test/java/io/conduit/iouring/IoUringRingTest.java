package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The rings read and written from Java: submission, completion order, a full SQ, CQ overflow, timeouts. */
class IoUringRingTest {

    private IoUringRing ring;
    private final List<long[]> completions = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        IoUring.ensureAvailability();
        ring = IoUringRing.create();
    }

    @AfterEach
    void tearDown() {
        ring.close();
    }

    private int reap() {
        return ring.reap((userData, res, flags) -> completions.add(new long[] {userData, res, flags}));
    }

    private void nop(long userData) throws Exception {
        ring.add(NativeAbi.IORING_OP_NOP, -1, 0, 0, 0, 0, 0, userData);
    }

    @Test
    void aNopComesBackWithItsUserData() throws Exception {
        nop(0x1234_5678_9abc_def0L);
        assertEquals(1, ring.unsubmitted());
        assertEquals(0, ring.submitAndWait(1_000_000_000L));
        assertEquals(0, ring.unsubmitted());
        assertEquals(1, reap());
        assertEquals(0x1234_5678_9abc_def0L, completions.get(0)[0]);
        assertEquals(0, completions.get(0)[1]);
        assertFalse(ring.hasCompletions());
    }

    @Test
    void aWaitWithNothingInFlightEndsAtItsTimeout() {
        long start = System.nanoTime();
        assertEquals(-NativeAbi.ETIME, ring.submitAndWait(50_000_000L));
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMillis >= 40 && tookMillis < 2_000, tookMillis + " ms");
    }

    @Test
    void moreEntriesThanTheSqHoldsAreSubmittedAsItFills() throws Exception {
        int n = IoUringRing.SQ_ENTRIES * 3 + 7;
        for (int i = 0; i < n; i++) {
            nop(i);
            if (ring.hasCompletions()) {
                reap(); // the CQ holds 8 SQs' worth; reap as a loop would
            }
        }
        ring.submitAndFlush();
        while (completions.size() < n) {
            reap();
            if (completions.size() < n) {
                assertEquals(0, ring.submitAndWait(1_000_000_000L));
            }
        }
        for (int i = 0; i < n; i++) {
            assertEquals(i, completions.get(i)[0], "completions in submission order");
        }
    }

    @Test
    void anOverflowingCqLosesNothing() throws Exception {
        int n = IoUringRing.SQ_ENTRIES * IoUringRing.CQ_FACTOR + 3 * IoUringRing.SQ_ENTRIES;
        for (int i = 0; i < n; i++) {
            nop(i); // never reaped meanwhile: the CQ overflows
        }
        ring.submit();
        assertTrue(ring.overflowed(), "the kernel kept completions aside");
        while (completions.size() < n) {
            reap();
            ring.submitAndFlush();
        }
        assertFalse(ring.overflowed());
        assertEquals(n, completions.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i, completions.get(i)[0]);
        }
    }

    @Test
    void aReadCompletesIntoTheBufferItNamed() throws Exception {
        int ev = Native.eventfd(0, NativeAbi.EFD_CLOEXEC);
        ByteBuffer target = ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.nativeOrder());
        try {
            ring.add(NativeAbi.IORING_OP_READ, ev, Native.addressOf(target), 8, 0, 0, 0, 77);
            ring.submit();
            assertEquals(-NativeAbi.ETIME, ring.submitAndWait(20_000_000L), "nothing to read yet");
            assertEquals(0, Native.eventfdWrite(ev, 5));
            assertEquals(0, ring.submitAndWait(1_000_000_000L));
            assertEquals(1, reap());
            assertEquals(77, completions.get(0)[0]);
            assertEquals(8, completions.get(0)[1]);
            assertEquals(5, target.getLong(0));
        } finally {
            Native.close(ev);
        }
    }

    /**
     * With deferred task work (Linux 6.1) a completion that waited for an event is posted only by an
     * {@code io_uring_enter} with {@code GETEVENTS}; until then the ring's flag says work waits, which is what the
     * loop checks before it decides not to enter the kernel.
     */
    @Test
    void deferredTaskWorkIsFlaggedAndRunByTheNextEnter() throws Exception {
        assertEquals(IoUringTestSupport.kernelAtLeast(6, 1), ring.deferTaskrun(),
                "Linux 6.1+ defers task work: " + ring);
        int ev = Native.eventfd(0, NativeAbi.EFD_CLOEXEC);
        ByteBuffer target = ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.nativeOrder());
        try {
            ring.add(NativeAbi.IORING_OP_READ, ev, Native.addressOf(target), 8, 0, 0, 0, 78);
            ring.submit(); // nothing to read: the read waits for the eventfd
            assertEquals(0, Native.eventfdWrite(ev, 9));
            if (ring.deferTaskrun()) {
                assertFalse(ring.hasCompletions(), "the read's completion waits for the loop's next enter");
                assertTrue(ring.taskWorkPending(), "and the ring says so");
            }
            assertEquals(0, ring.submitAndFlush());
            assertEquals(1, reap());
            assertEquals(78, completions.get(0)[0]);
            assertEquals(8, completions.get(0)[1]);
            assertFalse(ring.taskWorkPending());
        } finally {
            Native.close(ev);
        }
    }

    /**
     * A ring registers its descriptor with the thread that made it (Linux 5.18), which then enters it by index
     * ({@code IORING_ENTER_REGISTERED_RING}); a thread has 16 such slots, so the rings beyond them enter by descriptor
     * and work the same, and a closed ring gives its slot back.
     */
    @Test
    void ringsBeyondTheThreadsRegisteredSlotsEnterByDescriptorAndClosedRingsGiveTheirSlotsBack() throws Exception {
        assertEquals(IoUringTestSupport.kernelAtLeast(5, 18), ring.registered(),
                "Linux 5.18+ registers the ring: " + ring);
        List<IoUringRing> more = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                more.add(IoUringRing.create());
            }
            assertTrue(more.stream().anyMatch(r -> !r.registered()), "16 slots per thread, 21 rings");
            for (int i = 0; i < more.size(); i++) {
                IoUringRing r = more.get(i);
                r.add(NativeAbi.IORING_OP_NOP, -1, 0, 0, 0, 0, 0, 100 + i);
                assertEquals(0, r.submitAndWait(1_000_000_000L), r.toString());
                List<Long> seen = new ArrayList<>();
                r.reap((userData, res, flags) -> seen.add(userData));
                assertEquals(List.of(100L + i), seen, r.toString());
                assertEquals(-NativeAbi.ETIME, r.submitAndWait(1_000_000L), "a timed wait on " + r);
            }
        } finally {
            more.forEach(IoUringRing::close);
        }
        IoUringRing again = IoUringRing.create();
        try {
            assertEquals(ring.registered(), again.registered(), "the closed rings gave their slots back: " + again);
        } finally {
            again.close();
        }
    }

    @Test
    void aProvidedBufferRingHandsOutItsBuffersUntilEmptyAndTakesThemBack() throws Exception {
        IoUringBufferRing buffers = IoUringBufferRing.register(ring, 2);
        org.junit.jupiter.api.Assertions.assertNotNull(buffers, "Linux 5.19+ has provided buffer rings");
        int ev = Native.eventfd(0, NativeAbi.EFD_CLOEXEC | NativeAbi.EFD_NONBLOCK);
        try {
            for (int i = 0; i < 3; i++) { // three reads, two buffers: the third finds the ring empty
                assertEquals(0, Native.eventfdWrite(ev, 40 + i));
                ring.add(NativeAbi.IORING_OP_READ, NativeAbi.IOSQE_BUFFER_SELECT, IoUringBufferRing.GROUP, ev, 0,
                        8, 0, 0, 0, i);
                assertEquals(0, ring.submitAndWait(1_000_000_000L));
                reap();
            }
            assertEquals(3, completions.size());
            int[] bids = new int[2];
            for (int i = 0; i < 2; i++) {
                long[] c = completions.get(i);
                assertEquals(8, c[1], "read " + i);
                assertTrue((c[2] & NativeAbi.IORING_CQE_F_BUFFER) != 0, "the kernel named the buffer it picked");
                bids[i] = (int) (c[2] >>> NativeAbi.IORING_CQE_BUFFER_SHIFT);
                long counter = buffers.buffers().order(java.nio.ByteOrder.nativeOrder())
                        .getLong(buffers.offset(bids[i]));
                assertEquals(40 + i, counter, "the bytes are in the buffer the completion names");
            }
            assertTrue(bids[0] != bids[1]);
            assertEquals(-NativeAbi.ENOBUFS, completions.get(2)[1], "an empty ring answers ENOBUFS");
            buffers.provide(bids[0]); // given back: the next read gets it
            ring.add(NativeAbi.IORING_OP_READ, NativeAbi.IOSQE_BUFFER_SELECT, IoUringBufferRing.GROUP, ev, 0, 8, 0,
                    0, 0, 9);
            assertEquals(0, ring.submitAndWait(1_000_000_000L));
            reap();
            long[] last = completions.get(3);
            assertEquals(8, last[1], "the pending count 42 of the failed read is read now");
            assertEquals(bids[0], (int) (last[2] >>> NativeAbi.IORING_CQE_BUFFER_SHIFT));
        } finally {
            Native.close(ev);
        }
    }
}
