package io.conduit.internal.channel;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.channel.FileRegion;
import io.conduit.concurrent.Promise;

import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * The queue of messages written to a channel and not yet handed to the kernel.
 *
 * <p>Layout: a singly linked list {@code flushedHead → … → unflushedHead → … → tail}. Entries before
 * {@code unflushedHead} were flushed (they may be written); {@link #addFlush()} moves the boundary to the tail.
 * A continuation flush uses only the flushed part, so messages written after the flush that scheduled it
 * wait for their own flush.
 *
 * <p>Pending bytes count every queued message (flushed or not); crossing the high water mark upwards makes
 * the channel unwritable, crossing the low mark downwards writable again. The caller fires the writability
 * event when {@link #addMessage} or {@link #removeBytes}/{@link #removeHead} report a change, so events are
 * fired in the order the crossings happened.
 *
 * <p>Threading: confined to the channel's event loop, except {@link #pendingBytes()} and
 * {@link #isWritable()}, which any thread may read (volatile fields written only by the loop).
 */
public final class OutboundBuffer {

    /** Most buffers in one gathering write: Linux {@code IOV_MAX} (1024, {@code sysconf(_SC_IOV_MAX)}). */
    public static final int IOV_MAX = 1024;

    private static final class Entry {
        Object msg;              // Buffer, FileRegion or DatagramPacket
        Promise<Void> promise;
        long size;               // bytes counted in pendingBytes
        Entry next;
    }

    private Entry flushedHead;      // first flushed entry, or null; loop-confined
    private Entry unflushedHead;    // first unflushed entry, or null; loop-confined
    private Entry tail;             // last entry, or null; loop-confined
    private int flushedCount;       // entries from flushedHead up to unflushedHead; loop-confined
    private int unflushedCount;     // entries from unflushedHead to tail; loop-confined

    private volatile long pendingBytes;   // written by the loop only
    private volatile boolean unwritable;  // written by the loop only
    private volatile int lowWaterMark;     // written by any thread (config), read by the loop
    private volatile int highWaterMark;    // written by any thread (config), read by the loop

    private static final ByteBuffer[] NO_IOV = new ByteBuffer[0];
    /**
     * Scratch for gathering writes; loop-confined. Empty until the first gathering write and then grown on
     * demand up to {@link #IOV_MAX}: an idle connection holds no array (a 1,024-slot array per channel was
     * most of an idle connection's memory).
     */
    private ByteBuffer[] iov = NO_IOV;
    private int iovCount;                                       // entries of iov filled by nioBuffers()
    private long iovBytes;                                      // bytes in those entries

    public OutboundBuffer(int lowWaterMark, int highWaterMark) {
        waterMarks(lowWaterMark, highWaterMark);
    }

    /** Changes the water marks; takes effect at the next crossing. */
    public void waterMarks(int low, int high) {
        this.lowWaterMark = low;
        this.highWaterMark = high;
    }

    /** @return bytes of every queued message */
    public long pendingBytes() {
        return pendingBytes;
    }

    public boolean isWritable() {
        return !unwritable;
    }

    public long bytesBeforeUnwritable() {
        if (unwritable) {
            return 0;
        }
        return Math.max(0, highWaterMark - pendingBytes + 1);
    }

    public long bytesBeforeWritable() {
        if (!unwritable) {
            return 0;
        }
        return Math.max(0, pendingBytes - lowWaterMark + 1);
    }

    /** @return the size a message counts with: readable bytes of buffers, remaining count of file regions */
    public static long sizeOf(Object msg) {
        if (msg instanceof Buffer b) {
            return b.readableBytes();
        }
        if (msg instanceof FileRegion r) {
            return r.count() - r.transferred();
        }
        if (msg instanceof DatagramPacket p) {
            return p.content().readableBytes();
        }
        if (msg instanceof DomainDatagramPacket p) {
            return p.content().readableBytes();
        }
        return 0;
    }

    /**
     * Queues {@code msg} as unflushed.
     *
     * @return {@code true} when the channel just became unwritable
     */
    public boolean addMessage(Object msg, Promise<Void> promise) {
        Entry e = new Entry();
        e.msg = msg;
        e.promise = promise;
        e.size = sizeOf(msg);
        if (tail != null) {
            tail.next = e;
        }
        tail = e;
        if (unflushedHead == null) {
            unflushedHead = e;
        }
        unflushedCount++;
        return incrementPending(e.size);
    }

    /** Marks every queued message as flushed. */
    public void addFlush() {
        Entry e = unflushedHead;
        if (e == null) {
            return;
        }
        if (flushedHead == null) {
            flushedHead = e;
        }
        // counted as they were added: a flush of a read's worth of frames (thousands of entries) walks nothing
        flushedCount += unflushedCount;
        unflushedCount = 0;
        unflushedHead = null;
    }

    /** @return {@code true} when no flushed message waits */
    public boolean isFlushedEmpty() {
        return flushedCount == 0;
    }

    /** @return {@code true} when nothing at all is queued */
    public boolean isEmpty() {
        return tail == null;
    }

    /** @return the first flushed message, or {@code null} */
    public Object current() {
        return flushedCount == 0 ? null : flushedHead.msg;
    }

    /**
     * Copies the leading flushed messages (at most {@code out.length}) into {@code out}, for batch writes that
     * then remove them one by one with {@link #removeHead(Throwable)}.
     *
     * @return how many were copied
     */
    public int flushedMessages(Object[] out) {
        int n = 0;
        Entry e = flushedHead;
        for (int i = 0; i < flushedCount && n < out.length; i++, e = e.next) {
            out[n++] = e.msg;
        }
        return n;
    }

    /** @return the promise of the first flushed message */
    public Promise<Void> currentPromise() {
        return flushedCount == 0 ? null : flushedHead.promise;
    }

    /**
     * Fills the scratch array with {@link ByteBuffer}s of the leading flushed {@link Buffer} messages (stops at
     * the first non-buffer message), at most {@link #IOV_MAX} of them and at most {@code maxBytes} bytes in total
     * (at least one buffer, even if larger). Empty buffers are skipped.
     *
     * @return the scratch array; {@link #nioBufferCount()} and {@link #nioBufferSize()} tell how much is filled
     */
    public ByteBuffer[] nioBuffers(long maxBytes) {
        int count = 0;
        long bytes = 0;
        Entry e = flushedHead;
        for (int i = 0; i < flushedCount && count < IOV_MAX; i++, e = e.next) {
            if (!(e.msg instanceof Buffer b)) {
                break;
            }
            int readable = b.readableBytes();
            if (readable == 0) {
                continue;
            }
            if (count > 0 && bytes + readable > maxBytes) {
                break;
            }
            int n = b.nioBufferCount();
            if (count + n > IOV_MAX) {
                if (count > 0) {
                    break;
                }
            }
            if (n == 1) {
                ensureIov(count + 1);
                iov[count++] = b.nioBuffer(b.readerIndex(), readable);
            } else {
                for (ByteBuffer bb : b.nioBuffers(b.readerIndex(), readable)) {
                    if (count == IOV_MAX) {
                        break;
                    }
                    ensureIov(count + 1);
                    iov[count++] = bb;
                }
            }
            bytes += readable;
            if (bytes >= maxBytes) {
                break;
            }
        }
        iovCount = count;
        iovBytes = bytes;
        return iov;
    }

    private void ensureIov(int slots) {
        if (slots > iov.length) {
            iov = java.util.Arrays.copyOf(iov, Math.min(IOV_MAX, Math.max(slots, Math.max(8, iov.length << 1))));
        }
    }

    public int nioBufferCount() {
        return iovCount;
    }

    public long nioBufferSize() {
        return iovBytes;
    }

    /** Drops references to the scratch buffers (so freed memory is not kept reachable). */
    public void clearNioBuffers() {
        for (int i = 0; i < iovCount; i++) {
            iov[i] = null;
        }
        iovCount = 0;
        iovBytes = 0;
    }

    /**
     * Consumes {@code written} bytes from the leading flushed buffers: fully written ones are removed and their
     * promises succeed, a partly written one advances its reader index.
     *
     * @return {@code true} when the channel just became writable
     */
    public boolean removeBytes(long written) {
        boolean becameWritable = false;
        while (written > 0 || (flushedCount > 0 && flushedHead.msg instanceof Buffer b0 && b0.readableBytes() == 0)) {
            Entry e = flushedHead;
            if (e == null || flushedCount == 0 || !(e.msg instanceof Buffer b)) {
                break;
            }
            int readable = b.readableBytes();
            if (readable <= written) {
                written -= readable;
                becameWritable |= removeHead(null);
            } else {
                b.readerIndex(b.readerIndex() + (int) written);
                becameWritable |= decrementPending(written);
                e.size -= written;
                written = 0;
            }
        }
        return becameWritable;
    }

    /** Records {@code bytes} written from the head message (a file region) without removing it. */
    public boolean progressHead(long bytes) {
        flushedHead.size -= bytes;
        return decrementPending(bytes);
    }

    /**
     * Removes the first flushed message, releases it and completes its promise: success when {@code cause}
     * is {@code null}, else failure.
     *
     * @return {@code true} when the channel just became writable
     */
    public boolean removeHead(Throwable cause) {
        Entry e = flushedHead;
        flushedHead = e.next;
        flushedCount--;
        if (flushedCount == 0) {
            flushedHead = null;
        }
        if (tail == e) {
            tail = null;
            unflushedHead = null;
        }
        ReferenceCounted.safeRelease(e.msg);
        boolean changed = decrementPending(e.size);
        if (cause == null) {
            e.promise.trySuccess(null);
        } else {
            e.promise.tryFailure(cause);
        }
        e.msg = null;
        e.promise = null;
        return changed;
    }

    /**
     * Fails every queued message (flushed or not) with the exception {@code causeFactory} makes, releasing them.
     *
     * @return {@code true} when the channel became writable on the way
     */
    public boolean failAll(Supplier<Throwable> causeFactory) {
        addFlush();
        return failFlushed(causeFactory);
    }

    /**
     * Fails only the flushed messages (unflushed ones wait for their own flush) with the exception
     * {@code causeFactory} makes, releasing them.
     *
     * @return {@code true} when the channel became writable on the way
     */
    public boolean failFlushed(Supplier<Throwable> causeFactory) {
        boolean changed = false;
        while (flushedCount > 0) {
            changed |= removeHead(causeFactory.get());
        }
        return changed;
    }

    /** Fails only the unflushed messages (for {@code shutdownOutput}). */
    public boolean failUnflushed(Supplier<Throwable> causeFactory) {
        boolean changed = false;
        Entry e = unflushedHead;
        if (e == null) {
            return false;
        }
        // cut the list before the unflushed part
        if (flushedCount == 0) {
            flushedHead = null;
            tail = null;
        } else {
            Entry last = flushedHead;
            for (int i = 1; i < flushedCount; i++) {
                last = last.next;
            }
            last.next = null;
            tail = last;
        }
        unflushedHead = null;
        unflushedCount = 0;
        while (e != null) {
            Entry next = e.next;
            ReferenceCounted.safeRelease(e.msg);
            changed |= decrementPending(e.size);
            e.promise.tryFailure(causeFactory.get());
            e = next;
        }
        return changed;
    }

    private boolean incrementPending(long bytes) {
        long now = pendingBytes + bytes;
        pendingBytes = now;
        if (!unwritable && now > highWaterMark) {
            unwritable = true;
            return true;
        }
        return false;
    }

    private boolean decrementPending(long bytes) {
        long now = pendingBytes - bytes;
        pendingBytes = now;
        if (unwritable && now < lowWaterMark) {
            unwritable = false;
            return true;
        }
        return false;
    }
}
