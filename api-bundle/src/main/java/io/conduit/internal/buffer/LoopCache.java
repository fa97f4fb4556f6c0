package io.conduit.internal.buffer;

import java.util.ArrayDeque;

import io.conduit.internal.concurrent.LoopThread;

/**
 * Recently freed blocks of one event loop, per size class, so a loop that allocates and frees the same sizes
 * (read buffers, small headers) does not take its arena's lock. Lives in {@link LoopThread#attachment} (never in
 * a {@code ThreadLocal}) and is drained back to the arena by a {@link LoopThread#onTermination} hook.
 *
 * <p>Invariants: every cached block belongs to {@link #arena} (blocks of other arenas go straight back to their
 * own arena); at most {@code maxSmall} blocks per small class and {@code maxNormal} per cached normal class;
 * after {@link #drain()} the cache is empty and refuses new blocks.
 *
 * <p>Threading: confined to its loop thread; no field needs a guard.
 */
final class LoopCache {

    final PoolArena arena;
    private final ArrayDeque<PoolBlock>[] queues; // index = size class; null = class not cached
    private final int[] limits;
    private boolean drained;

    @SuppressWarnings("unchecked")
    LoopCache(PoolArena arena, int smallClasses, int cachedClasses, int maxSmall, int maxNormal) {
        this.arena = arena;
        this.queues = new ArrayDeque[cachedClasses];
        this.limits = new int[cachedClasses];
        for (int i = 0; i < cachedClasses; i++) {
            limits[i] = i < smallClasses ? maxSmall : maxNormal;
            queues[i] = new ArrayDeque<>();
        }
    }

    /** @return a cached block of size class {@code sizeIdx}, or {@code null} */
    PoolBlock poll(int sizeIdx) {
        return sizeIdx < queues.length ? queues[sizeIdx].pollLast() : null;
    }

    /** @return {@code false} when the caller must free the block to its arena instead */
    boolean offer(PoolBlock block, int sizeIdx) {
        if (drained || block.chunk.arena != arena || sizeIdx >= queues.length) {
            return false;
        }
        ArrayDeque<PoolBlock> queue = queues[sizeIdx];
        if (queue.size() >= limits[sizeIdx]) {
            return false;
        }
        queue.addLast(block);
        return true;
    }

    /** Gives every cached block back to the arena; the loop is ending. */
    void drain() {
        drained = true;
        for (ArrayDeque<PoolBlock> queue : queues) {
            for (PoolBlock block; (block = queue.pollFirst()) != null; ) {
                arena.free(block);
            }
        }
    }

    int cachedBlocks() {
        int n = 0;
        for (ArrayDeque<PoolBlock> queue : queues) {
            n += queue.size();
        }
        return n;
    }
}
