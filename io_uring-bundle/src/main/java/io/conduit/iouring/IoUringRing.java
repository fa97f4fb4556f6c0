package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One io_uring instance: its submission queue (SQ) and completion queue (CQ), mapped into this process and read and
 * written from Java through direct {@link ByteBuffer}s (no {@code Unsafe}).
 *
 * <p><b>Memory ordering</b> (io_uring(7)): the application owns the SQ tail and the CQ head, the kernel the SQ head
 * and the CQ tail. Entries are written with plain stores, then the SQ tail is published with a release store
 * ({@link VarHandle#setRelease}), so the kernel never sees the new tail before the entries. The CQ tail is read with
 * an acquire load ({@link VarHandle#getAcquire}), so the completions before it are read after the kernel wrote them;
 * the CQ head is released once they are read, so the kernel reuses their slots only afterwards. Offsets inside the
 * rings come from {@code io_uring_setup(2)}, the entry layouts from {@link NativeAbi}.
 *
 * <p>The SQ's index array is filled once with the identity ({@code array[i] = i}), so an entry's slot is its tail
 * position masked. Entries are zeroed before they are filled.
 *
 * <p><b>Set-up.</b> {@code IORING_SETUP_SINGLE_ISSUER} (Linux 6.0) is asked for, since only the loop thread submits,
 * and {@code IORING_SETUP_COOP_TASKRUN} with {@code IORING_SETUP_TASKRUN_FLAG} (5.19): completions wait until the loop
 * enters the kernel instead of interrupting it, and a flag says they wait ({@link #taskWorkPending()}). With
 * {@code IORING_SETUP_DEFER_TASKRUN} (6.1, single issuer only) that work waits further, until the loop's next
 * {@code io_uring_enter} with {@code IORING_ENTER_GETEVENTS}, which runs it in one batch: every wait and flush of the
 * loop passes that flag, and the loop enters without waiting while the flag says work waits, so nothing is left
 * pending. A kernel that rejects a flag with {@code EINVAL} gets a ring without it. The CQ has {@value #CQ_FACTOR} times the SQ's
 * entries ({@code IORING_SETUP_CQSIZE}); a CQ that still overflows is kept by the kernel
 * ({@code IORING_FEAT_NODROP}, required) and flushed by the next {@code io_uring_enter} with
 * {@code IORING_ENTER_GETEVENTS} ({@link #overflowed()}).
 *
 * <p><b>Entering.</b> The ring registers its descriptor with the thread that creates it
 * ({@code IORING_REGISTER_RING_FDS}, Linux 5.18; io_uring_register(2)), and every {@code io_uring_enter} names it by
 * that index with {@code IORING_ENTER_REGISTERED_RING}, so the kernel neither looks the descriptor up nor takes
 * and drops a reference to its file (two atomic operations) on each call. A thread has 16 such slots; a ring that
 * gets none, or a kernel that refuses, enters by descriptor. {@link #close()} gives the slot back.
 *
 * <p>Not thread-safe: confined to the thread that created it (the loop thread), except {@link #fd()}.
 */
final class IoUringRing {

    /** SQ entries per ring */
    static final int SQ_ENTRIES = 1024;
    /** CQ entries per SQ entry: room for multishot accepts and completions of several requests per socket */
    static final int CQ_FACTOR = 8;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    /** Receives one completion. */
    interface CompletionHandler {
        void complete(long userData, int res, int flags);
    }

    private final int fd;
    /**
     * what {@code io_uring_enter} names the ring by: its index among the creating thread's registered rings, or
     * {@link #fd} when it is not registered ({@link #registeredIndex} -1)
     */
    private final int enterFd;
    /** {@code IORING_ENTER_REGISTERED_RING} when {@link #enterFd} is a registered index, else 0 */
    private final int enterFlags;
    /** the ring's index among the creating thread's registered rings, or -1 */
    private final int registeredIndex;
    private final boolean singleIssuer;
    private final boolean deferTaskrun;
    private final ByteBuffer sqRing;
    private final ByteBuffer cqRing;
    private final ByteBuffer sqes;
    private final long sqRingAddress;
    private final long sqRingLength;
    private final long cqRingAddress; // 0 when one mapping holds both rings (IORING_FEAT_SINGLE_MMAP)
    private final long cqRingLength;
    private final long sqesAddress;
    private final long sqesLength;
    private final int sqEntries;
    private final int sqMask;
    private final int cqMask;
    private final int sqHeadOffset;
    private final int sqTailOffset;
    private final int sqFlagsOffset;
    private final int cqHeadOffset;
    private final int cqTailOffset;
    private final int cqesOffset;
    /** the SQ tail as written so far (published at {@link #submit}) */
    private int sqTail;
    /** entries written since the last {@code io_uring_enter} */
    private int unsubmitted;
    /** the CQ head (ours) */
    private int cqHead;
    private boolean closed;

    private IoUringRing(int fd, boolean singleIssuer, boolean deferTaskrun, int[] p) throws IOException {
        this.fd = fd;
        this.singleIssuer = singleIssuer;
        this.deferTaskrun = deferTaskrun;
        sqEntries = p[NativeAbi.PARAMS_SQ_ENTRIES];
        int cqEntries = p[NativeAbi.PARAMS_CQ_ENTRIES];
        int arrayOffset = p[NativeAbi.PARAMS_SQ_ARRAY];
        long sqLength = arrayOffset + 4L * sqEntries;
        long cqLength = p[NativeAbi.PARAMS_CQES] + (long) NativeAbi.CQE_SIZE * cqEntries;
        boolean single = (p[NativeAbi.PARAMS_FEATURES] & NativeAbi.IORING_FEAT_SINGLE_MMAP) != 0;
        if (single) {
            sqLength = Math.max(sqLength, cqLength);
            cqLength = sqLength;
        }
        long sqAddr = 0;
        long cqAddr = 0;
        long sqeAddr = 0;
        try {
            sqAddr = ERRORS.check("mmap(IORING_OFF_SQ_RING)", Native.mmap(fd, NativeAbi.IORING_OFF_SQ_RING, sqLength));
            if (!single) {
                cqAddr = ERRORS.check("mmap(IORING_OFF_CQ_RING)",
                        Native.mmap(fd, NativeAbi.IORING_OFF_CQ_RING, cqLength));
            }
            sqeAddr = ERRORS.check("mmap(IORING_OFF_SQES)",
                    Native.mmap(fd, NativeAbi.IORING_OFF_SQES, (long) NativeAbi.SQE_SIZE * sqEntries));
        } catch (IOException e) {
            unmap(sqAddr, sqLength);
            unmap(cqAddr, cqLength);
            throw e;
        }
        sqRingAddress = sqAddr;
        sqRingLength = sqLength;
        cqRingAddress = cqAddr;
        cqRingLength = cqLength;
        sqesAddress = sqeAddr;
        sqesLength = (long) NativeAbi.SQE_SIZE * sqEntries;
        sqRing = Native.directBuffer(sqAddr, (int) sqLength).order(ByteOrder.nativeOrder());
        cqRing = single ? sqRing : Native.directBuffer(cqAddr, (int) cqLength).order(ByteOrder.nativeOrder());
        sqes = Native.directBuffer(sqeAddr, (int) sqesLength).order(ByteOrder.nativeOrder());
        sqMask = sqRing.getInt(p[NativeAbi.PARAMS_SQ_RING_MASK]);
        cqMask = cqRing.getInt(p[NativeAbi.PARAMS_CQ_RING_MASK]);
        sqHeadOffset = p[NativeAbi.PARAMS_SQ_HEAD];
        sqTailOffset = p[NativeAbi.PARAMS_SQ_TAIL];
        sqFlagsOffset = p[NativeAbi.PARAMS_SQ_FLAGS];
        cqHeadOffset = p[NativeAbi.PARAMS_CQ_HEAD];
        cqTailOffset = p[NativeAbi.PARAMS_CQ_TAIL];
        cqesOffset = p[NativeAbi.PARAMS_CQES];
        for (int i = 0; i < sqEntries; i++) {
            sqRing.putInt(arrayOffset + 4 * i, i);
        }
        sqTail = (int) INT.getAcquire(sqRing, sqTailOffset);
        cqHead = (int) INT.getAcquire(cqRing, cqHeadOffset);
        // last, so nothing after it can fail and leave the registration behind
        int index = Native.ioUringRegisterRingFd(fd);
        registeredIndex = Math.max(index, -1); // refused (before 5.18, or 16 registered already): enter by descriptor
        enterFd = registeredIndex >= 0 ? registeredIndex : fd;
        enterFlags = registeredIndex >= 0 ? NativeAbi.IORING_ENTER_REGISTERED_RING : 0;
    }

    /**
     * Sets up a ring of {@value #SQ_ENTRIES} SQ entries, single issuer where the kernel has it.
     *
     * @throws IOException naming {@code io_uring_setup} and the errno
     */
    static IoUringRing create() throws IOException {
        int[] p = new int[NativeAbi.PARAMS_LENGTH];
        int base = NativeAbi.IORING_SETUP_CQSIZE;
        int cq = SQ_ENTRIES * CQ_FACTOR;
        int coop = NativeAbi.IORING_SETUP_COOP_TASKRUN | NativeAbi.IORING_SETUP_TASKRUN_FLAG;
        boolean single = true;
        boolean defer = true;
        int fd = Native.ioUringSetup(SQ_ENTRIES, base | NativeAbi.IORING_SETUP_SINGLE_ISSUER | coop
                | NativeAbi.IORING_SETUP_DEFER_TASKRUN, cq, p);
        if (fd == -NativeAbi.EINVAL) {
            defer = false; // before Linux 6.1
            fd = Native.ioUringSetup(SQ_ENTRIES, base | NativeAbi.IORING_SETUP_SINGLE_ISSUER | coop, cq, p);
        }
        if (fd == -NativeAbi.EINVAL) {
            single = false; // before Linux 6.0
            fd = Native.ioUringSetup(SQ_ENTRIES, base | coop, cq, p);
        }
        if (fd == -NativeAbi.EINVAL) {
            fd = Native.ioUringSetup(SQ_ENTRIES, base, cq, p); // before Linux 5.19
        }
        if (fd < 0) {
            throw new IOException(IoUring.setupFailure(fd, IoUring.readDisabledSysctl()).getMessage());
        }
        try {
            return new IoUringRing(fd, single, defer, p);
        } catch (IOException | RuntimeException e) {
            Native.close(fd);
            throw e;
        }
    }

    private static void unmap(long address, long length) {
        if (address > 0) {
            Native.munmap(address, length);
        }
    }

    /** @return the ring's descriptor */
    int fd() {
        return fd;
    }

    /** @return whether the ring was set up with {@code IORING_SETUP_SINGLE_ISSUER} */
    boolean singleIssuer() {
        return singleIssuer;
    }

    /** @return whether the ring was set up with {@code IORING_SETUP_DEFER_TASKRUN} */
    boolean deferTaskrun() {
        return deferTaskrun;
    }

    /** @return entries written and not yet handed to the kernel */
    int unsubmitted() {
        return unsubmitted;
    }

    // ------------------------------------------------------------------------------------------ submission

    /**
     * Writes one SQE. When the SQ is full, the entries written so far are submitted first.
     *
     * @param opcode   {@code IORING_OP_*}
     * @param fd       the descriptor it works on
     * @param address  {@code sqe.addr}: a buffer or sockaddr address, or a user_data to cancel
     * @param length   {@code sqe.len}
     * @param offset   {@code sqe.off} (also {@code addr2}: the accept address length pointer)
     * @param opFlags  the per-opcode flags word ({@code msg_flags}, {@code accept_flags}, {@code cancel_flags})
     * @param ioprio   {@code sqe.ioprio} (e.g. {@code IORING_ACCEPT_MULTISHOT})
     * @param userData returned in the CQE
     * @throws IOException when the SQ is full and submitting it failed
     */
    void add(int opcode, int fd, long address, int length, long offset, int opFlags, int ioprio, long userData)
            throws IOException {
        add(opcode, 0, -1, fd, address, length, offset, opFlags, ioprio, userData);
    }

    /**
     * Writes one SQE with SQE flags ({@code IOSQE_*}) and a buffer group ({@code -1}: none), e.g. a receive into a
     * buffer the kernel selects from a provided buffer ring ({@code IOSQE_BUFFER_SELECT}).
     *
     * @throws IOException when the SQ is full and submitting it failed
     */
    void add(int opcode, int sqeFlags, int bufferGroup, int fd, long address, int length, long offset, int opFlags,
            int ioprio, long userData) throws IOException {
        if (sqTail - (int) INT.getAcquire(sqRing, sqHeadOffset) >= sqEntries) {
            submit();
        }
        int base = (sqTail & sqMask) * NativeAbi.SQE_SIZE;
        for (int i = 0; i < NativeAbi.SQE_SIZE; i += 8) {
            sqes.putLong(base + i, 0L);
        }
        sqes.put(base + NativeAbi.SQE_OPCODE, (byte) opcode);
        sqes.putShort(base + NativeAbi.SQE_IOPRIO, (short) ioprio);
        sqes.putInt(base + NativeAbi.SQE_FD, fd);
        sqes.putLong(base + NativeAbi.SQE_OFF, offset);
        sqes.putLong(base + NativeAbi.SQE_ADDR, address);
        sqes.putInt(base + NativeAbi.SQE_LEN, length);
        sqes.putInt(base + NativeAbi.SQE_MSG_FLAGS, opFlags); // the same word as accept_flags and cancel_flags
        sqes.putLong(base + NativeAbi.SQE_USER_DATA, userData);
        if (sqeFlags != 0) {
            sqes.put(base + NativeAbi.SQE_FLAGS, (byte) sqeFlags);
        }
        if (bufferGroup >= 0) {
            sqes.putShort(base + NativeAbi.SQE_BUF_GROUP, (short) bufferGroup);
        }
        sqTail++;
        unsubmitted++;
    }

    /** Publishes the SQ tail (release): every entry written before it is visible to the kernel first. */
    private void publishTail() {
        INT.setRelease(sqRing, sqTailOffset, sqTail);
    }

    /**
     * Hands the written entries to the kernel without waiting.
     *
     * @throws IOException when {@code io_uring_enter} fails
     */
    void submit() throws IOException {
        if (unsubmitted == 0) {
            return;
        }
        publishTail();
        int r;
        do {
            r = Native.ioUringEnter(enterFd, unsubmitted, 0, enterFlags, -1);
        } while (r == -NativeAbi.EINTR);
        if (r < 0) {
            throw ERRORS.newIoException("io_uring_enter", r);
        }
        unsubmitted -= r;
    }

    /**
     * Submits the written entries and waits for at least one completion, at most {@code timeoutNanos}.
     *
     * @param timeoutNanos the longest wait, or {@code -1} for no limit
     * @return 0, or -errno ({@code -ETIME} after the timeout, {@code -EINTR})
     */
    int submitAndWait(long timeoutNanos) {
        publishTail();
        int r = Native.ioUringEnter(enterFd, unsubmitted, 1, NativeAbi.IORING_ENTER_GETEVENTS | enterFlags,
                timeoutNanos);
        if (r >= 0) {
            unsubmitted -= Math.min(r, unsubmitted);
            return 0;
        }
        return r;
    }

    /**
     * Submits the written entries and flushes completions the kernel kept aside (CQ overflow), without waiting.
     *
     * @return 0 or -errno
     */
    int submitAndFlush() {
        publishTail();
        int r = Native.ioUringEnter(enterFd, unsubmitted, 0, NativeAbi.IORING_ENTER_GETEVENTS | enterFlags, -1);
        if (r >= 0) {
            unsubmitted -= Math.min(r, unsubmitted);
            return 0;
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------ completion

    /** @return {@code true} when completions wait in the CQ */
    boolean hasCompletions() {
        return (int) INT.getAcquire(cqRing, cqTailOffset) != cqHead;
    }

    /**
     * @return {@code true} when completions wait as task work (the ring is set up with
     *         {@code IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG}: the kernel does not interrupt the loop
     *         thread for them, it raises this flag; an {@code io_uring_enter} with {@code GETEVENTS} runs them; with
     *         {@code IORING_SETUP_DEFER_TASKRUN} only such an enter does)
     */
    boolean taskWorkPending() {
        return (sqRing.getInt(sqFlagsOffset) & NativeAbi.IORING_SQ_TASKRUN) != 0;
    }

    /** @return {@code true} when the kernel kept completions aside because the CQ was full */
    boolean overflowed() {
        return (sqRing.getInt(sqFlagsOffset) & NativeAbi.IORING_SQ_CQ_OVERFLOW) != 0;
    }

    /**
     * Hands every waiting completion to {@code handler}, in order. Each entry is copied out and its slot released
     * before the handler runs, so the handler may submit and reap again.
     *
     * @return the number of completions handled
     */
    int reap(CompletionHandler handler) {
        int n = 0;
        int tail = (int) INT.getAcquire(cqRing, cqTailOffset);
        while (cqHead != tail) {
            int base = cqesOffset + (cqHead & cqMask) * NativeAbi.CQE_SIZE;
            long userData = cqRing.getLong(base + NativeAbi.CQE_USER_DATA);
            int res = cqRing.getInt(base + NativeAbi.CQE_RES);
            int flags = cqRing.getInt(base + NativeAbi.CQE_FLAGS);
            cqHead++;
            INT.setRelease(cqRing, cqHeadOffset, cqHead);
            handler.complete(userData, res, flags);
            n++;
            if (cqHead == tail) {
                tail = (int) INT.getAcquire(cqRing, cqTailOffset);
            }
        }
        return n;
    }

    /**
     * Takes the successful results of request {@code userData} out of the CQ ahead of {@link #reap}: first an
     * {@code io_uring_enter} runs the kernel's pending work for the ring, so completions it holds are posted; then
     * each waiting entry of that request with a result {@code >= 0} hands the result to {@code taker} and keeps its
     * slot with the result replaced by {@code -ECANCELED}, so reaping it later keeps the request's accounting
     * ({@code IORING_CQE_F_MORE}) and hands nothing over twice. The entries between the CQ head and tail are the
     * application's until the head passes them.
     *
     * @return the number of results taken
     */
    int takeCompleted(long userData, java.util.function.IntConsumer taker) {
        submitAndFlush();
        int n = 0;
        int tail = (int) INT.getAcquire(cqRing, cqTailOffset);
        for (int i = cqHead; i != tail; i++) {
            int base = cqesOffset + (i & cqMask) * NativeAbi.CQE_SIZE;
            int res = cqRing.getInt(base + NativeAbi.CQE_RES);
            if (cqRing.getLong(base + NativeAbi.CQE_USER_DATA) == userData && res >= 0) {
                cqRing.putInt(base + NativeAbi.CQE_RES, -NativeAbi.ECANCELED);
                taker.accept(res);
                n++;
            }
        }
        return n;
    }

    /**
     * Unmaps the rings, drops the thread's registration and closes the ring; the kernel cancels what is still in
     * flight. Idempotent. On the creating thread: a registration is that thread's, and it would otherwise keep the
     * ring alive until the thread ends.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        unmap(sqesAddress, sqesLength);
        unmap(cqRingAddress, cqRingLength);
        unmap(sqRingAddress, sqRingLength);
        unregister();
        Native.close(fd);
    }

    private void unregister() {
        if (registeredIndex >= 0) {
            Native.ioUringUnregisterRingFd(fd, registeredIndex);
        }
    }

    /** @return whether {@code io_uring_enter} names the ring by its registered index ({@code IORING_REGISTER_RING_FDS}) */
    boolean registered() {
        return registeredIndex >= 0;
    }

    @Override
    public String toString() {
        return "IoUringRing[fd " + fd + (registeredIndex >= 0 ? ", registered " + registeredIndex : "") + ", "
                + sqEntries + " SQ entries" + (singleIssuer ? ", single issuer" : "")
                + (deferTaskrun ? ", deferred task work" : "") + "]";
    }
}
