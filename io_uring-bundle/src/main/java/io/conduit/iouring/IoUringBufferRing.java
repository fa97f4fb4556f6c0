package io.conduit.iouring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A provided buffer ring (Linux 5.19, {@code IORING_REGISTER_PBUF_RING}): receive buffers the loop shares among its
 * sockets. A receive submitted with {@code IOSQE_BUFFER_SELECT} names the group, not a buffer; the kernel picks a
 * buffer when bytes arrive and names it in the completion ({@code IORING_CQE_F_BUFFER}, the buffer id in the upper 16
 * bits of the flags). So an idle connection holds no receive memory.
 *
 * <p><b>Ownership.</b> A buffer in the ring is the kernel's. One named by a completion is the socket's until
 * {@link #provide} gives it back, once the channel core has read its bytes. When the ring is empty, a receive
 * completes with {@code -ENOBUFS}; the socket then receives into a buffer of its own, so it never stalls.
 *
 * <p><b>Memory ordering.</b> An entry is written with plain stores, then the ring's tail is published with a release
 * store, as for the submission queue.
 *
 * <p>Not thread-safe: loop-confined, like its {@link IoUringRing}.
 */
final class IoUringBufferRing {

    /** bytes per buffer */
    static final int BUFFER_BYTES = 16 * 1024;
    /** the buffer group id of every loop's ring */
    static final int GROUP = 0;
    private static final int PAGE = 4096;
    private static final VarHandle SHORT = MethodHandles.byteBufferViewVarHandle(short[].class,
            ByteOrder.nativeOrder());

    private final int entries;
    private final int mask;
    /** the ring of {@code struct io_uring_buf}, page aligned; the kernel reads it */
    private final ByteBuffer ring;
    /** the buffers, {@link #BUFFER_BYTES} each, buffer id {@code i} at {@code i * BUFFER_BYTES} */
    private final ByteBuffer buffers;
    private final long buffersAddress;
    private int tail;

    private IoUringBufferRing(int entries, ByteBuffer ring, ByteBuffer buffers) {
        this.entries = entries;
        this.mask = entries - 1;
        this.ring = ring;
        this.buffers = buffers;
        this.buffersAddress = Native.addressOf(buffers);
    }

    /**
     * Registers a ring of {@code entries} buffers with {@code uring} and provides them all.
     *
     * @param entries a power of two, at most 32,768
     * @return the ring, or {@code null} when the kernel has no provided buffer rings (before 5.19) or refuses this one
     */
    static IoUringBufferRing register(IoUringRing uring, int entries) {
        if (Integer.bitCount(entries) != 1 || entries > 32_768) {
            throw new IllegalArgumentException("entries must be a power of two up to 32768, got " + entries);
        }
        // whole pages, page aligned: alignedSlice rounds the start up and the end down to a page
        int ringBytes = (entries * NativeAbi.BUF_SIZE + PAGE - 1) / PAGE * PAGE;
        ByteBuffer ring = ByteBuffer.allocateDirect(ringBytes + PAGE).alignedSlice(PAGE).order(ByteOrder.nativeOrder());
        ByteBuffer buffers = ByteBuffer.allocateDirect(entries * BUFFER_BYTES);
        if (Native.ioUringRegisterBufRing(uring.fd(), Native.addressOf(ring), entries, GROUP) < 0) {
            return null;
        }
        IoUringBufferRing r = new IoUringBufferRing(entries, ring, buffers);
        for (int bid = 0; bid < entries; bid++) {
            r.provide(bid);
        }
        return r;
    }

    /** Gives buffer {@code bid} to the kernel (again): its bytes are no longer needed. */
    void provide(int bid) {
        int base = (tail & mask) * NativeAbi.BUF_SIZE;
        ring.putLong(base + NativeAbi.BUF_ADDR_OFFSET, buffersAddress + (long) bid * BUFFER_BYTES);
        ring.putInt(base + NativeAbi.BUF_LEN_OFFSET, BUFFER_BYTES);
        ring.putShort(base + NativeAbi.BUF_BID_OFFSET, (short) bid);
        tail++;
        SHORT.setRelease(ring, NativeAbi.BUF_RING_TAIL_OFFSET, (short) tail);
    }

    /** @return the memory of every buffer; buffer {@code bid} starts at {@link #offset(int)} */
    ByteBuffer buffers() {
        return buffers;
    }

    /** @return where buffer {@code bid} starts in {@link #buffers()} */
    static int offset(int bid) {
        return bid * BUFFER_BYTES;
    }

    /** @return the number of buffers */
    int entries() {
        return entries;
    }
}
