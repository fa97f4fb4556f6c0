package io.conduit.internal.buffer;

import java.nio.ByteBuffer;

/**
 * One {@link ByteBuffer#allocateDirect direct} region of {@code pages * pageSize} bytes, carved into runs of
 * pages (normal sizes) and into subpages (one page split into equal small elements).
 *
 * <p>Runs: a run is {@code 2^k} pages starting at a multiple of {@code 2^k} (buddy alignment), found by first-fit
 * over a page bitmap ({@code 1} = used). Alignment keeps fragmentation bounded and makes every freed run
 * reusable by any request of its size or smaller. Subpages: a page holding elements of one size class (16 bytes up
 * to {@code pageSize / 2}), with an element bitmap.
 *
 * <p>Threading: every method is called with the owning {@link PoolArena}'s lock held; the fields are guarded by it.
 */
final class PoolChunk {

    final PoolArena arena;
    final int id;
    final ByteBuffer memory;
    final int pageSize;
    final int pageShift;
    final int pages;

    private final long[] usedPages;      // guarded by arena lock; bit p = page p is used
    private final Subpage[] subpages;    // guarded by arena lock; the subpage living on page p, else null
    private int freePages;               // guarded by arena lock

    PoolChunk(PoolArena arena, int id, int pageSize, int pages) {
        this.arena = arena;
        this.id = id;
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.pages = pages;
        this.memory = ByteBuffer.allocateDirect(pageSize * pages);
        this.usedPages = new long[(pages + 63) >>> 6];
        this.subpages = new Subpage[pages];
        this.freePages = pages;
    }

    int chunkSize() {
        return pageSize * pages;
    }

    boolean isEmpty() {
        return freePages == pages;
    }

    /** @return the first page of a free, aligned run of {@code runPages} (a power of two), or -1 */
    int allocateRun(int runPages) {
        if (freePages < runPages) {
            return -1;
        }
        for (int p = 0; p + runPages <= pages; p += runPages) {
            if (isFree(p, runPages)) {
                mark(p, runPages, true);
                freePages -= runPages;
                return p;
            }
        }
        return -1;
    }

    void freeRun(int page, int runPages) {
        mark(page, runPages, false);
        freePages += runPages;
    }

    private boolean isFree(int page, int runPages) {
        if (runPages < 64) { // aligned, so the run lies inside one word
            long mask = ((1L << runPages) - 1) << (page & 63);
            return (usedPages[page >>> 6] & mask) == 0;
        }
        for (int w = page >>> 6, end = (page + runPages) >>> 6; w < end; w++) {
            if (usedPages[w] != 0) {
                return false;
            }
        }
        return true;
    }

    private void mark(int page, int runPages, boolean used) {
        if (runPages < 64) {
            long mask = ((1L << runPages) - 1) << (page & 63);
            usedPages[page >>> 6] = used ? usedPages[page >>> 6] | mask : usedPages[page >>> 6] & ~mask;
            return;
        }
        for (int w = page >>> 6, end = (page + runPages) >>> 6; w < end; w++) {
            usedPages[w] = used ? -1L : 0L;
        }
    }

    Subpage newSubpage(int page, int elementSize, int sizeIdx) {
        Subpage subpage = new Subpage(page, elementSize, sizeIdx);
        subpages[page] = subpage;
        return subpage;
    }

    Subpage subpageAt(int offset) {
        return subpages[offset >>> pageShift];
    }

    void removeSubpage(Subpage subpage) {
        subpages[subpage.page] = null;
        freeRun(subpage.page, 1);
    }

    /** A page split into {@code pageSize / elementSize} equal elements. Guarded by the arena lock. */
    final class Subpage {
        final int page;
        final int elementSize;
        final int sizeIdx;
        private final int elements;
        private final long[] used; // bit e = element e is handed out
        private int free;

        Subpage(int page, int elementSize, int sizeIdx) {
            this.page = page;
            this.elementSize = elementSize;
            this.sizeIdx = sizeIdx;
            this.elements = pageSize / elementSize;
            this.used = new long[(elements + 63) >>> 6];
            this.free = elements;
        }

        PoolChunk chunk() {
            return PoolChunk.this;
        }

        /** @return the byte offset in the chunk of a newly taken element; the subpage must not be full */
        int allocate() {
            for (int w = 0; w < used.length; w++) {
                long word = used[w];
                if (word != -1L) {
                    int bit = Long.numberOfTrailingZeros(~word);
                    int element = (w << 6) + bit;
                    if (element < elements) {
                        used[w] = word | (1L << bit);
                        free--;
                        return (page << pageShift) + element * elementSize;
                    }
                }
            }
            throw new IllegalStateException("subpage of chunk " + id + " page " + page + " is full");
        }

        void free(int offset) {
            int element = (offset - (page << pageShift)) / elementSize;
            long bit = 1L << (element & 63);
            if ((used[element >>> 6] & bit) == 0) {
                throw new IllegalStateException("double free of chunk " + id + " offset " + offset);
            }
            used[element >>> 6] &= ~bit;
            free++;
        }

        boolean isFull() {
            return free == 0;
        }

        boolean isEmpty() {
            return free == elements;
        }
    }
}
