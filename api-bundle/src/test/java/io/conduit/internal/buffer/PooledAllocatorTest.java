package io.conduit.internal.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.conduit.buffer.Buffer;
import io.conduit.internal.concurrent.LoopThread;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PooledAllocatorTest {

    private static final int PAGE = 8192;
    private static final int CHUNK = 1 << 20;

    private static PooledAllocator allocator(int arenas, long capBytes) {
        return new PooledAllocator(arenas, PAGE, CHUNK, new DirectMemoryCounter(capBytes),
                new LeakDetector(LeakDetector.Mode.DISABLED, null));
    }

    /** Runs {@code body} on a fresh loop thread and returns its result; the thread then ends without hooks. */
    private static <T> T onLoop(LoopThread[] holder, java.util.function.Supplier<T> body) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        LoopThread loop = new LoopThread(null, () -> {
            try {
                result.complete(body.get());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, "test-loop");
        if (holder != null) {
            holder[0] = loop;
        }
        loop.start();
        T value = result.get(10, TimeUnit.SECONDS);
        loop.join(10_000);
        return value;
    }

    @Test
    void sizeClassesArePowersOfTwoFromSixteenBytes() {
        assertEquals(16, PooledAllocator.sizeClass(0));
        assertEquals(16, PooledAllocator.sizeClass(16));
        assertEquals(32, PooledAllocator.sizeClass(17));
        assertEquals(8192, PooledAllocator.sizeClass(8000));
        assertEquals(1 << 20, PooledAllocator.sizeClass((1 << 19) + 1));
        assertEquals(0, PooledAllocator.sizeIdx(16));
        assertEquals(9, PooledAllocator.sizeIdx(8192));
    }

    @Test
    void releasedMemoryIsReusedForTheSameSize() {
        PooledAllocator pool = allocator(1, 64L * CHUNK);
        for (int size : new int[] {1, 100, 4096, 8192, 20_000, CHUNK}) {
            Buffer first = pool.buffer(size);
            String location = PooledAllocator.location(first);
            assertTrue(location.startsWith("chunk "), location);
            first.release();
            Buffer second = pool.buffer(size);
            assertEquals(location, PooledAllocator.location(second), "size " + size);
            Buffer third = pool.buffer(size);
            assertNotEquals(location, PooledAllocator.location(third), "two live buffers never share memory");
            second.release();
            third.release();
        }
        assertEquals(0, pool.usedBytes());
        assertTrue(pool.chunkCount() <= 2, "chunks kept: " + pool.chunkCount());
    }

    @Test
    void smallBuffersOfOnePageDoNotOverlap() {
        PooledAllocator pool = allocator(1, 4L * CHUNK);
        List<Buffer> buffers = new ArrayList<>();
        for (int i = 0; i < PAGE / 64 * 3; i++) {
            Buffer b = pool.buffer(64);
            b.writeLong(i);
            buffers.add(b);
        }
        for (int i = 0; i < buffers.size(); i++) {
            assertEquals(i, buffers.get(i).getLong(0));
        }
        assertEquals(buffers.size() * 64L, pool.usedBytes());
        buffers.forEach(Buffer::release);
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void growthMovesToABiggerBlockAndFreesTheOldOne() {
        PooledAllocator pool = allocator(1, 8L * CHUNK);
        Buffer b = pool.buffer(10);
        assertEquals(16, pool.usedBytes());
        b.writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        b.writeBytes(new byte[5]); // fits in the 16-byte class: no move
        assertEquals(16, pool.usedBytes());
        b.writeBytes(new byte[3000]);
        assertEquals(4096, pool.usedBytes(), "only the grown block is held: " + PooledAllocator.location(b));
        assertEquals(10, b.getByte(9));
        b.release();
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void exceedingTheCapThrowsOutOfMemoryErrorWithCapAndUsage() {
        PooledAllocator pool = allocator(1, 2L * CHUNK);
        Buffer a = pool.buffer(CHUNK);
        Buffer b = pool.buffer(CHUNK);
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> pool.buffer(1));
        assertTrue(e.getMessage().contains("cap") && e.getMessage().contains(String.valueOf(2L * CHUNK))
                && e.getMessage().contains(DirectMemoryCounter.PROPERTY), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(2L * CHUNK) + " of the"), "usage given: " + e.getMessage());
        OutOfMemoryError huge = assertThrows(OutOfMemoryError.class, () -> pool.buffer(CHUNK + 1));
        assertTrue(huge.getMessage().contains(String.valueOf(CHUNK + 1)), huge.getMessage());
        a.release();
        Buffer c = pool.buffer(1); // a freed chunk makes room again
        c.release();
        b.release();
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void hugeBuffersAreCountedAgainstTheCapAndGivenBack() {
        PooledAllocator pool = allocator(1, 8L * CHUNK);
        Buffer huge = pool.buffer(3 * CHUNK);
        assertTrue(PooledAllocator.location(huge).startsWith("huge"));
        assertEquals(3L * CHUNK, pool.reservedBytes());
        huge.writerIndex(3 * CHUNK - 8).writeLong(5);
        assertEquals(5, huge.getLong(3 * CHUNK - 8));
        huge.release();
        assertEquals(0, pool.reservedBytes());
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void loopCacheIsHandedBackToTheArenaWhenTheLoopTerminates() throws Exception {
        PooledAllocator pool = allocator(2, 16L * CHUNK);
        AtomicReference<String> sameRegion = new AtomicReference<>();
        long[] usedDuring = onLoop(null, () -> {
            Buffer small = pool.buffer(100);
            Buffer normal = pool.buffer(20_000);
            String smallLocation = PooledAllocator.location(small);
            small.release();
            normal.release();
            long cachedUsed = pool.usedBytes(); // both blocks sit in this loop's cache
            Buffer again = pool.buffer(100);
            sameRegion.set(smallLocation.equals(PooledAllocator.location(again)) ? "yes" : PooledAllocator.location(again));
            again.release();
            LoopThread.current().runTerminationHooks();
            return new long[] {cachedUsed, pool.usedBytes()};
        });
        assertEquals(128 + 32768, usedDuring[0], "released blocks stay in the loop cache");
        assertEquals("yes", sameRegion.get(), "the cache hands the block back to its loop");
        assertEquals(0, usedDuring[1], "runTerminationHooks drains the cache into the arena");
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void aBufferFreedOnAnotherThreadGoesBackToItsArena() throws Exception {
        PooledAllocator pool = allocator(3, 16L * CHUNK);
        SynchronousQueue<Buffer> handOff = new SynchronousQueue<>();
        CountDownLatch freed = new CountDownLatch(1);
        LoopThread loop = new LoopThread(null, () -> {
            try {
                Buffer b = pool.buffer(500);
                b.writeInt(123);
                handOff.put(b);
                freed.await(10, TimeUnit.SECONDS);
                // this loop's cache never saw the block: nothing to drain
                LoopThread.current().runTerminationHooks();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "allocating-loop");
        loop.start();
        Buffer b = handOff.poll(10, TimeUnit.SECONDS);
        assertEquals(123, b.readInt());
        assertEquals(512, pool.usedBytes());
        assertTrue(b.release()); // on the test thread, not a loop
        assertEquals(0, pool.usedBytes(), "freed straight to the arena while the allocating loop still runs");
        freed.countDown();
        loop.join(10_000);
        assertFalse(loop.isAlive());

        // freed on a loop: cached there only when that loop's cache uses the block's arena, otherwise straight
        // to the block's own arena; either way nothing is left once that loop's termination hooks ran
        for (int i = 0; i < 3; i++) { // three loops: round-robin covers every arena
            Buffer plain = pool.buffer(500);
            long after = onLoop(null, () -> {
                plain.release();
                LoopThread.current().runTerminationHooks();
                return pool.usedBytes();
            });
            assertEquals(0, after);
        }
    }

    @Test
    void concurrentAllocateAndFreeLeavesThePoolBalanced() throws Exception {
        PooledAllocator pool = allocator(2, 64L * CHUNK);
        int threads = 4;
        int iterations = 3000;
        ConcurrentLinkedQueue<Buffer> exchange = new ConcurrentLinkedQueue<>();
        ExecutorService plainThreads = Executors.newFixedThreadPool(threads);
        List<Future<?>> results = new ArrayList<>();
        List<LoopThread> loops = new ArrayList<>();
        CompletableFuture<Void> loopsDone = new CompletableFuture<>();
        CountDownLatch loopLatch = new CountDownLatch(2);
        Runnable work = () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<Buffer> held = new ArrayList<>();
            for (int i = 0; i < iterations; i++) {
                int size = random.nextInt(4) == 0 ? random.nextInt(70_000) : random.nextInt(600);
                Buffer b = pool.buffer(size);
                b.writeInt(i);
                held.add(b);
                if (random.nextInt(5) == 0) {
                    exchange.add(held.remove(held.size() - 1)); // freed by someone else
                }
                if (held.size() > 8) {
                    Buffer victim = held.remove(random.nextInt(held.size()));
                    assertTrue(victim.getInt(0) >= 0);
                    victim.release();
                }
                Buffer foreign = exchange.poll();
                if (foreign != null) {
                    foreign.release();
                }
            }
            held.forEach(Buffer::release);
        };
        for (int i = 0; i < threads; i++) {
            results.add(plainThreads.submit(work));
        }
        for (int i = 0; i < 2; i++) {
            LoopThread loop = new LoopThread(null, () -> {
                try {
                    work.run();
                } catch (Throwable t) {
                    loopsDone.completeExceptionally(t);
                } finally {
                    LoopThread.current().runTerminationHooks();
                    loopLatch.countDown();
                }
            }, "stress-loop-" + i);
            loops.add(loop);
            loop.start();
        }
        for (Future<?> f : results) {
            try {
                f.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError(e.getCause());
            }
        }
        assertTrue(loopLatch.await(30, TimeUnit.SECONDS));
        assertFalse(loopsDone.isCompletedExceptionally());
        plainThreads.shutdown();
        for (Buffer b; (b = exchange.poll()) != null; ) {
            b.release();
        }
        assertEquals(0, pool.usedBytes(), "every block is back in its arena");
        assertEquals((long) pool.chunkCount() * CHUNK, pool.reservedBytes(), "only chunks stay reserved");
        assertNull(exchange.poll());
    }
}
