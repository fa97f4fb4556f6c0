package io.conduit.internal.concurrent;

import java.util.Arrays;

/**
 * A binary min-heap of {@link ScheduledFutureTask}s ordered by deadline, then scheduling order. Each task
 * records its index so that cancellation removes it in O(log n) instead of leaving it behind until its
 * (possibly never reached) deadline.
 *
 * <p>Threading: confined to the owning executor's thread; not thread-safe.
 */
final class ScheduledTaskQueue {

    private ScheduledFutureTask<?>[] heap = new ScheduledFutureTask<?>[16];
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    ScheduledFutureTask<?> peek() {
        return size == 0 ? null : heap[0];
    }

    void add(ScheduledFutureTask<?> task) {
        if (task.queueIndex >= 0) {
            throw new IllegalStateException("task already queued at index " + task.queueIndex + ": " + task);
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        siftUp(size++, task);
    }

    ScheduledFutureTask<?> poll() {
        if (size == 0) {
            return null;
        }
        ScheduledFutureTask<?> head = heap[0];
        removeAt(0);
        return head;
    }

    /** @return {@code true} when {@code task} was queued here and has been removed */
    boolean remove(ScheduledFutureTask<?> task) {
        int i = task.queueIndex;
        if (i < 0 || i >= size || heap[i] != task) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /** Removes and returns every task. */
    ScheduledFutureTask<?>[] drain() {
        ScheduledFutureTask<?>[] all = Arrays.copyOf(heap, size);
        for (ScheduledFutureTask<?> t : all) {
            t.queueIndex = -1;
        }
        Arrays.fill(heap, 0, size, null);
        size = 0;
        return all;
    }

    private void removeAt(int i) {
        ScheduledFutureTask<?> removed = heap[i];
        removed.queueIndex = -1;
        int last = --size;
        ScheduledFutureTask<?> moved = heap[last];
        heap[last] = null;
        if (i == last) {
            return;
        }
        siftDown(i, moved);
        if (heap[i] == moved) {
            siftUp(i, moved);
        }
    }

    private void siftUp(int i, ScheduledFutureTask<?> task) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            ScheduledFutureTask<?> p = heap[parent];
            if (task.compareTo(p) >= 0) {
                break;
            }
            heap[i] = p;
            p.queueIndex = i;
            i = parent;
        }
        heap[i] = task;
        task.queueIndex = i;
    }

    private void siftDown(int i, ScheduledFutureTask<?> task) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            ScheduledFutureTask<?> c = heap[child];
            int right = child + 1;
            if (right < size && c.compareTo(heap[right]) > 0) {
                c = heap[child = right];
            }
            if (task.compareTo(c) <= 0) {
                break;
            }
            heap[i] = c;
            c.queueIndex = i;
            i = child;
        }
        heap[i] = task;
        task.queueIndex = i;
    }
}
