package io.conduit.internal.buffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A set of chunks shared by several threads, behind one lock (held for a bitmap search, never for I/O or for
 * {@code allocateDirect} of anything but a new chunk).
 *
 * <p>Invariants (under {@link #lock}):
 * <ul>
 *   <li>{@code partial[sizeIdx]} holds exactly the subpages of that size class that have a free element;</li>
 *   <li>an empty subpage gives its page back to the chunk unless it is the only partial one of its class
 *       (so a steady small-buffer workload does not re-split a page on every allocation);</li>
 *   <li>at most one chunk with no used page is kept; a further empty chunk is dropped and its bytes are
 *       unreserved from the {@link DirectMemoryCounter};</li>
 *   <li>{@link #usedBytes} = the sum of the lengths of the blocks handed out by this arena and not yet freed to
 *       it (blocks sitting in loop caches count as used).</li>
 * </ul>
 */
final class PoolArena {

    final PooledAllocator parent;
    final int index;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayList<PoolChunk> chunks = new ArrayList<>();        // guarded by lock
    private final ArrayDeque<PoolChunk.Subpage>[] partial;                // guarded by lock
    private long usedBytes;                                               // guarded by lock

    @SuppressWarnings("unchecked")
    PoolArena(PooledAllocator parent, int index, int smallClasses) {
        this.parent = parent;
        this.index = index;
        this.partial = new ArrayDeque[smallClasses];
        for (int i = 0; i < smallClasses; i++) {
            partial[i] = new ArrayDeque<>();
        }
    }

    /**
     * @param size a size class (power of two, at most the chunk size)
     * @throws OutOfMemoryError when a new chunk would exceed the direct-memory cap
     */
    PoolBlock allocate(int size, int sizeIdx) {
        lock.lock();
        try {
            PoolBlock block = size < parent.pageSize ? allocateSmall(size, sizeIdx) : allocateRun(size >>> parent.pageShift);
            usedBytes += block.length;
            return block;
        } finally {
            lock.unlock();
        }
    }

    private PoolBlock allocateSmall(int size, int sizeIdx) {
        ArrayDeque<PoolChunk.Subpage> list = partial[sizeIdx];
        PoolChunk.Subpage subpage = list.peekFirst();
        if (subpage == null) {
            PoolBlock page = allocateRun(1);
            subpage = page.chunk.newSubpage(page.offset >>> parent.pageShift, size, sizeIdx);
            list.addFirst(subpage);
        }
        int offset = subpage.allocate();
        if (subpage.isFull()) {
            list.removeFirst();
        }
        PoolChunk chunk = subpage.chunk();
        return new PoolBlock(chunk, chunk.memory, offset, size);
    }

    private PoolBlock allocateRun(int runPages) {
        for (PoolChunk chunk : chunks) {
            int page = chunk.allocateRun(runPages);
            if (page >= 0) {
                return new PoolBlock(chunk, chunk.memory, page << parent.pageShift, runPages << parent.pageShift);
            }
        }
        PoolChunk chunk = parent.newChunk(this); // reserves against the cap; may throw OutOfMemoryError
        chunks.add(chunk);
        int page = chunk.allocateRun(runPages);
        return new PoolBlock(chunk, chunk.memory, page << parent.pageShift, runPages << parent.pageShift);
    }

    /** Takes back a block this arena handed out (from any thread). */
    void free(PoolBlock block) {
        PoolChunk chunk = block.chunk;
        lock.lock();
        try {
            if (block.length < parent.pageSize) {
                PoolChunk.Subpage subpage = chunk.subpageAt(block.offset);
                ArrayDeque<PoolChunk.Subpage> list = partial[subpage.sizeIdx];
                boolean wasFull = subpage.isFull();
                subpage.free(block.offset);
                if (wasFull) {
                    list.addFirst(subpage);
                }
                if (subpage.isEmpty() && list.size() > 1) {
                    list.remove(subpage);
                    chunk.removeSubpage(subpage);
                }
            } else {
                chunk.freeRun(block.offset >>> parent.pageShift, block.length >>> parent.pageShift);
            }
            usedBytes -= block.length;
            if (chunk.isEmpty()) {
                dropIfAnotherEmpty(chunk);
            }
        } finally {
            lock.unlock();
        }
    }

    private void dropIfAnotherEmpty(PoolChunk emptied) {
        for (PoolChunk other : chunks) {
            if (other != emptied && other.isEmpty()) {
                chunks.remove(emptied);
                parent.dropChunk(emptied);
                return;
            }
        }
    }

    long usedBytes() {
        lock.lock();
        try {
            return usedBytes;
        } finally {
            lock.unlock();
        }
    }

    int chunkCount() {
        lock.lock();
        try {
            return chunks.size();
        } finally {
            lock.unlock();
        }
    }
}
