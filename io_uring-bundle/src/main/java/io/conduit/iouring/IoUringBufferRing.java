package io.conduit.iouring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A provided buffer ring (Linux 5.19, {@code IORING_REGISTER_PBUF_RING}): receive buffers of one size the loop shares
 * among its sockets, registered as one buffer group. A receive submitted with {@code IOSQE_BUFFER_SELECT} names the
 * group, not a buffer; the kernel picks a buffer when bytes arrive and names it in the completion
 * ({@code IORING_CQE_F_BUFFER}, the buffer id in the upper 16 bits of the flags). So an idle connection holds no
 * receive memory. A loop has two: {@link #GROUP} of {@link #BUFFER_BYTES} buffers for every receive, and
 * {@link #LARGE_GROUP} of {@link #LARGE_BUFFER_BYTES} buffers for connections that stream
 * ({@link IoUringStreamSocket}).
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

    /** bytes per buffer of the ring every receive starts with ({@link #GROUP}) */
    static final int BUFFER_BYTES = 16 * 1024;
    /** the buffer group id of the ring of {@link #BUFFER_BYTES} buffers */
    static final int GROUP = 0;
    /** bytes per buffer of the ring of streaming receives ({@link #LARGE_GROUP}) */
    static final int LARGE_BUFFER_BYTES = 128 * 1024;
    /** the buffer group id of the ring of {@link #LARGE_BUFFER_BYTES} buffers */
    static final int LARGE_GROUP = 1;
    private static final int PAGE = 4096;
    private static final VarHandle SHORT = MethodHandles.byteBufferViewVarHandle(short[].class,
            ByteOrder.nativeOrder());

    private final int entries;
    private final int mask;
    /** bytes per buffer */
    private final int bufferBytes;
    /** the buffer group id the kernel knows this ring by ({@code sqe.buf_group}) */
    private final int group;
    /** the ring of {@code struct io_uring_buf}, page aligned; the kernel reads it */
    private final ByteBuffer ring;
    /** the buffers, {@link #bufferBytes} each, buffer id {@code i} at {@code i * bufferBytes} */
    private final ByteBuffer buffers;
    private final long buffersAddress;
    private int tail;

    private IoUringBufferRing(int entries, int bufferBytes, int group, ByteBuffer ring, ByteBuffer buffers) {
        this.entries = entries;
        this.mask = entries - 1;
        this.bufferBytes = bufferBytes;
        this.group = group;
        this.ring = ring;
        this.buffers = buffers;
        this.buffersAddress = Native.addressOf(buffers);
    }

    /**
     * Registers a ring of {@code entries} buffers of {@link #BUFFER_BYTES} as group {@link #GROUP} with {@code uring}
     * and provides them all.
     *
     * @param entries a power of two, at most 32,768
     * @return the ring, or {@code null} when the kernel has no provided buffer rings (before 5.19) or refuses this one
     */
    static IoUringBufferRing register(IoUringRing uring, int entries) {
        return register(uring, entries, BUFFER_BYTES, GROUP);
    }

    /**
     * Registers a ring of {@code entries} buffers of {@code bufferBytes} each as buffer group {@code group} with
     * {@code uring} and provides them all.
     *
     * @param entries     a power of two, at most 32,768
     * @param bufferBytes bytes per buffer, positive; {@code entries * bufferBytes} at most {@link Integer#MAX_VALUE}
     * @param group       the buffer group id, 0 to 65,535, not yet registered with {@code uring}
     * @return the ring, or {@code null} when the kernel has no provided buffer rings (before 5.19) or refuses this one
     */
    static IoUringBufferRing register(IoUringRing uring, int entries, int bufferBytes, int group) {
        if (Integer.bitCount(entries) != 1 || entries > 32_768) {
            throw new IllegalArgumentException("entries must be a power of two up to 32768, got " + entries);
        }
        if (bufferBytes <= 0 || (long) entries * bufferBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(entries + " buffers of " + bufferBytes + " bytes do not fit one buffer");
        }
        // whole pages, page aligned: alignedSlice rounds the start up and the end down to a page
        int ringBytes = (entries * NativeAbi.BUF_SIZE + PAGE - 1) / PAGE * PAGE;
        ByteBuffer ring = ByteBuffer.allocateDirect(ringBytes + PAGE).alignedSlice(PAGE).order(ByteOrder.nativeOrder());
        ByteBuffer buffers = ByteBuffer.allocateDirect(entries * bufferBytes);
        if (Native.ioUringRegisterBufRing(uring.fd(), Native.addressOf(ring), entries, group) < 0) {
            return null;
        }
        IoUringBufferRing r = new IoUringBufferRing(entries, bufferBytes, group, ring, buffers);
        for (int bid = 0; bid < entries; bid++) {
            r.provide(bid);
        }
        return r;
    }

    /** Gives buffer {@code bid} to the kernel (again): its bytes are no longer needed. */
    void provide(int bid) {
        int base = (tail & mask) * NativeAbi.BUF_SIZE;
        ring.putLong(base + NativeAbi.BUF_ADDR_OFFSET, buffersAddress + (long) bid * bufferBytes);
        ring.putInt(base + NativeAbi.BUF_LEN_OFFSET, bufferBytes);
        ring.putShort(base + NativeAbi.BUF_BID_OFFSET, (short) bid);
        tail++;
        SHORT.setRelease(ring, NativeAbi.BUF_RING_TAIL_OFFSET, (short) tail);
    }

    /** @return the memory of every buffer; buffer {@code bid} starts at {@link #offset(int)} */
    ByteBuffer buffers() {
        return buffers;
    }

    /** @return where buffer {@code bid} starts in {@link #buffers()} */
    int offset(int bid) {
        return bid * bufferBytes;
    }

    /** @return bytes per buffer */
    int bufferBytes() {
        return bufferBytes;
    }

    /** @return the buffer group id a receive names ({@code sqe.buf_group}) */
    int group() {
        return group;
    }

    /** @return the number of buffers */
    int entries() {
        return entries;
    }
}
