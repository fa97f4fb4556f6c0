package io.conduit.internal.buffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.internal.concurrent.LoopThread;

/**
 * The pooled direct allocator.
 *
 * <p>Design goals: (1) reuse direct memory, because {@code allocateDirect} is slow and its memory is only
 * returned by the garbage collector; (2) no lock on an event loop's steady-state path; (3) nothing that pins a
 * class loader after a bundle stops — no {@code ThreadLocal}, no thread of our own; (4) no
 * {@code sun.misc.Unsafe}; (5) a hard cap on the direct memory the pool holds.
 *
 * <p>Algorithm: a request is rounded up to a size class, a power of two from 16 bytes:
 * <ul>
 *   <li><em>small</em> ({@code < pageSize}): an element of a subpage (a page split into equal elements);</li>
 *   <li><em>normal</em> ({@code pageSize..chunkSize}): an aligned run of {@code 2^k} pages of a chunk;</li>
 *   <li><em>huge</em> ({@code > chunkSize}): its own {@code allocateDirect} of the exact size, not pooled.</li>
 * </ul>
 * Chunks ({@code chunkSize} bytes of {@code allocateDirect}) belong to arenas; an arena is a lock plus its chunks
 * (see {@link PoolArena}). On an event loop ({@link LoopThread}) allocations first look in that loop's
 * {@link LoopCache}, kept as a {@link LoopThread#attachment} keyed by this allocator and drained back to the arena
 * by {@link LoopThread#onTermination}; a loop's cache is bound to one arena chosen round-robin. Any other thread
 * (platform or virtual) uses the arena picked by its identity hash directly. A loop thread that allocates or
 * frees after its {@code runTerminationHooks()} gets a new cache (and a new hook), like any first use.
 *
 * <p>Invariants: a block is owned by exactly one of a live buffer, a loop cache, or its arena's free structures;
 * a freed block goes to the current thread's loop cache only when the current thread is a loop whose cache uses
 * the block's arena (so a buffer released on another thread, loop or not, goes back to its own arena, under that
 * arena's lock); {@link DirectMemoryCounter#usedBytes()} = bytes of live chunks + live huge blocks
 * {@code <= cap}. Waste: power-of-two rounding loses up to half of a block; an arena keeps at most one empty
 * chunk (see {@link PoolArena}).
 *
 * <p>Thread-safe. Memory ordering: blocks move between threads only through the arena lock or through the
 * hand-off of the buffer object by the application (which must publish it safely anyway).
 */
final class PooledAllocator implements BufferAllocator {

    static final int MIN_SIZE = 16;
    static final int DEFAULT_PAGE_SIZE = 8192;
    static final int DEFAULT_CHUNK_SIZE = 1 << 20;
    /** Normal sizes up to this many bytes are kept in loop caches. */
    static final int MAX_CACHED_SIZE = 64 * 1024;
    static final int CACHE_SMALL_ENTRIES = 64;
    static final int CACHE_NORMAL_ENTRIES = 8;

    final int pageSize;
    final int pageShift;
    final int chunkSize;
    private final int smallClasses;  // size classes 16 .. pageSize/2
    private final int cachedClasses; // size classes 16 .. MAX_CACHED_SIZE
    private final PoolArena[] arenas;
    private final DirectMemoryCounter counter;
    private final LeakDetector leakDetector;
    private final BufferAllocator heap;
    private final AtomicInteger nextLoopArena = new AtomicInteger(); // round-robin for new loop caches
    private final AtomicInteger nextChunkId = new AtomicInteger();
    private final AtomicLong hugeBytes = new AtomicLong(); // bytes of live huge blocks
    private final Supplier<LoopCache> newLoopCache = this::newLoopCache;

    /**
     * @param arenaCount number of arenas, {@code >= 1}
     * @param pageSize bytes, a power of two {@code >= 2 * MIN_SIZE}
     * @param chunkSize bytes, a power of two {@code >= pageSize}
     */
    PooledAllocator(int arenaCount, int pageSize, int chunkSize, DirectMemoryCounter counter, LeakDetector leakDetector) {
        if (arenaCount < 1) {
            throw new IllegalArgumentException("arenaCount " + arenaCount + " must be >= 1");
        }
        if (Integer.bitCount(pageSize) != 1 || pageSize < 2 * MIN_SIZE) {
            throw new IllegalArgumentException("pageSize " + pageSize + " must be a power of two >= " + 2 * MIN_SIZE);
        }
        if (Integer.bitCount(chunkSize) != 1 || chunkSize < pageSize) {
            throw new IllegalArgumentException("chunkSize " + chunkSize + " must be a power of two >= pageSize " + pageSize);
        }
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.chunkSize = chunkSize;
        this.smallClasses = sizeIdx(pageSize); // classes below pageSize
        this.cachedClasses = sizeIdx(Math.min(MAX_CACHED_SIZE, chunkSize)) + 1;
        this.counter = counter;
        this.leakDetector = leakDetector;
        this.heap = new UnpooledAllocator(leakDetector);
        this.arenas = new PoolArena[arenaCount];
        for (int i = 0; i < arenaCount; i++) {
            arenas[i] = new PoolArena(this, i, smallClasses);
        }
    }

    /** The default arena count: twice the processors, fewer when the cap cannot hold 4 chunks per arena. */
    static int defaultArenaCount(long capBytes, int chunkSize) {
        long byCap = capBytes / chunkSize / 4;
        return (int) Math.max(1, Math.min(2L * Runtime.getRuntime().availableProcessors(), byCap));
    }

    static int sizeIdx(int sizeClass) {
        return Integer.numberOfTrailingZeros(sizeClass) - Integer.numberOfTrailingZeros(MIN_SIZE);
    }

    static int sizeClass(int size) {
        return size <= MIN_SIZE ? MIN_SIZE : Integer.highestOneBit(size - 1) << 1;
    }

    @Override
    public Buffer buffer() {
        return buffer(UnpooledAllocator.DEFAULT_INITIAL_CAPACITY, Integer.MAX_VALUE);
    }

    @Override
    public Buffer buffer(int initialCapacity) {
        return buffer(initialCapacity, Integer.MAX_VALUE);
    }

    @Override
    public Buffer buffer(int initialCapacity, int maxCapacity) {
        UnpooledAllocator.checkCapacities(initialCapacity, maxCapacity);
        PooledBuffer buffer = new PooledBuffer(this, allocate(initialCapacity), initialCapacity, maxCapacity);
        buffer.attachLeakRecord(leakDetector.track(buffer));
        return buffer;
    }

    /** Heap buffers are not pooled: the garbage collector handles heap memory well. */
    @Override
    public Buffer heapBuffer(int initialCapacity) {
        UnpooledAllocator.checkCapacities(initialCapacity, Integer.MAX_VALUE);
        UnpooledBuffer buffer = new UnpooledBuffer(this, false, initialCapacity, Integer.MAX_VALUE);
        buffer.attachLeakRecord(leakDetector.track(buffer));
        return buffer;
    }

    @Override
    public boolean isPooled() {
        return true;
    }

    /** @return a block of at least {@code size} bytes */
    PoolBlock allocate(int size) {
        if (size > chunkSize) {
            counter.reserve(size);
            try {
                PoolBlock block = new PoolBlock(null, ByteBuffer.allocateDirect(size), 0, size);
                hugeBytes.addAndGet(size);
                return block;
            } catch (Throwable t) {
                counter.unreserve(size);
                throw t;
            }
        }
        int sizeClass = sizeClass(size);
        int sizeIdx = sizeIdx(sizeClass);
        LoopThread loop = LoopThread.current();
        if (loop != null) {
            LoopCache cache = loopCache(loop);
            PoolBlock cached = cache.poll(sizeIdx);
            return cached != null ? cached : cache.arena.allocate(sizeClass, sizeIdx);
        }
        return arenaOf(Thread.currentThread()).allocate(sizeClass, sizeIdx);
    }

    /** Takes back a block on any thread. */
    void free(PoolBlock block) {
        if (block.chunk == null) {
            hugeBytes.addAndGet(-block.length);
            counter.unreserve(block.length);
            return;
        }
        LoopThread loop = LoopThread.current();
        if (loop != null && loopCache(loop).offer(block, sizeIdx(block.length))) {
            return;
        }
        block.chunk.arena.free(block);
    }

    private LoopCache loopCache(LoopThread loop) {
        return loop.attachment(this, newLoopCache); // no capturing lambda: nothing allocated per call
    }

    /** Runs on the loop thread (attachment factories do), on its first allocation or free. */
    private LoopCache newLoopCache() {
        PoolArena arena = arenas[Math.floorMod(nextLoopArena.getAndIncrement(), arenas.length)];
        LoopCache cache = new LoopCache(arena, smallClasses, cachedClasses, CACHE_SMALL_ENTRIES, CACHE_NORMAL_ENTRIES);
        LoopThread.current().onTermination(cache::drain);
        return cache;
    }

    private PoolArena arenaOf(Thread thread) {
        return arenas[Math.floorMod(System.identityHashCode(thread), arenas.length)];
    }

    /** Called by an arena under its lock. @throws OutOfMemoryError at the cap */
    PoolChunk newChunk(PoolArena arena) {
        counter.reserve(chunkSize);
        try {
            return new PoolChunk(arena, nextChunkId.incrementAndGet(), pageSize, chunkSize >>> pageShift);
        } catch (Throwable t) {
            counter.unreserve(chunkSize);
            throw t;
        }
    }

    /** Called by an arena under its lock: the chunk is no longer referenced; the GC frees its memory. */
    void dropChunk(PoolChunk chunk) {
        counter.unreserve(chunk.chunkSize());
    }

    // ---- metrics (for tests and diagnostics) ----

    /** @return bytes handed out of the arenas (blocks in loop caches included) plus live huge blocks */
    long usedBytes() {
        long used = hugeBytes.get();
        for (PoolArena arena : arenas) {
            used += arena.usedBytes();
        }
        return used;
    }

    /** @return bytes of direct memory reserved against the cap (chunks and huge blocks) */
    long reservedBytes() {
        return counter.usedBytes();
    }

    /** @return the cap on {@link #reservedBytes()}, in bytes */
    long capBytes() {
        return counter.capBytes();
    }

    int chunkCount() {
        int n = 0;
        for (PoolArena arena : arenas) {
            n += arena.chunkCount();
        }
        return n;
    }

    int arenaCount() {
        return arenas.length;
    }

    LeakDetector leakDetector() {
        return leakDetector;
    }

    /** @return where a buffer of this allocator lies, e.g. {@code "chunk 1 offset 0 length 16"} */
    static String location(Buffer buffer) {
        if (buffer instanceof PooledBuffer pooled) {
            return pooled.location();
        }
        throw new IllegalArgumentException("not a pooled direct buffer: " + buffer);
    }

    @Override
    public String toString() {
        return "PooledAllocator(" + arenas.length + " arenas, chunk " + chunkSize + " B, page " + pageSize
                + " B, reserved " + counter.usedBytes() + " of cap " + counter.capBytes() + " B, leakDetection "
                + leakDetector.mode() + ")";
    }
}
