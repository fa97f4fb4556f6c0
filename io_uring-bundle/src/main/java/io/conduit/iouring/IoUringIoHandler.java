package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;

import io.conduit.transport.spi.IoHandler;
import io.conduit.transport.spi.IoHandlerContext;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The event loop of one io_uring ring: it submits the SQEs its sockets wrote, waits for completions and hands each
 * CQE to the socket its {@code user_data} names.
 *
 * <p><b>user_data</b> is {@code slot << 8 | op}: a socket's slot in {@link #sockets} (1 and up, handed out at
 * registration and taken back only once the socket has no request in flight, so a late CQE never reaches another
 * socket) and the socket's operation ({@code IoUringSocket.OP_*}). Slot 0 is the handler's own wake-up read.
 *
 * <p><b>Waiting.</b> One {@code io_uring_enter(GETEVENTS)} submits what was written and waits for a completion,
 * at most until the context's deadline ({@code IORING_ENTER_EXT_ARG} with a timeout: no timer descriptor).
 * <b>Wake-ups</b> from other threads write an eventfd on which a read request is always pending; its completion
 * ends the wait, and the read is submitted again.
 *
 * <p><b>Ready list.</b> A socket that still holds input (or can take output) after its event was handled, because
 * the channel core read less than it held, is handed its events again on the next round, like epoll's more-input
 * list, so the core sees level-triggered readiness.
 *
 * <p>Threading: every method except {@link #wakeup()} runs on the loop thread ({@link #thread}); fields are
 * loop-confined unless stated otherwise. The ring is single issuer: only that thread submits.
 */
final class IoUringIoHandler implements IoHandler {

    private static final System.Logger LOG = System.getLogger(IoUringIoHandler.class.getName());

    static {
        // Load what a loop may first need long after it started: a connection kept on an old revision's loop
        // through a bundle update + refresh got NoClassDefFoundError for IoUringBufferRing at its first receive,
        // and a loop whose first round came after the refresh for the interface of its reap callback, since a
        // withdrawn revision's class loader loads nothing more (IoUringSwapTortureTest).
        for (Class<?> c : new Class<?>[] {IoUringBufferRing.class, IoUringStreamSocket.class,
            IoUringRing.CompletionHandler.class, DatagramScratch.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }
    /** the wake-up read's user_data: slot 0 */
    private static final long WAKEUP_DATA = 1;
    /** a wait longer than this is cut (the loop re-arms): 1 hour */
    private static final long MAX_WAIT_NANOS = 3_600_000_000_000L;
    /** how long {@link #destroy()} waits for the kernel to finish cancelled requests */
    private static final long DESTROY_DRAIN_NANOS = 2_000_000_000L;
    /** how long a loop that ends lets closed connections go on sending their staged output (5 s) */
    private static final long DESTROY_OUTPUT_NANOS = 5_000_000_000L;

    private final IoUringRing ring;
    /** {@link #complete}, linked while the handler is made, when the bundle's classes can still be loaded */
    private final IoUringRing.CompletionHandler completer = this::complete;
    private final int eventFd;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean(); // any thread reads (wakeup)
    /** the wake-up read's 8-byte target; owned by the kernel while the read is pending */
    private final ByteBuffer wakeupBuffer = ByteBuffer.allocateDirect(8);
    /**
     * Direct buffers the loop's stream sockets stage sends in and receive into when the provided ring is empty,
     * lent while bytes are in them and given back after (loop-confined): an idle connection holds none, and a
     * closed one gives its buffers back here instead of leaving them to the garbage collector. Small send buffers
     * ({@link IoUringStreamSocket#SMALL_SEND_BYTES}) apart from the larger ones, so a lend never searches far.
     */
    private final java.util.ArrayDeque<ByteBuffer> spareSmallBuffers = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<ByteBuffer> spareBuffers = new java.util.ArrayDeque<>();
    /** bytes of every spare buffer (loop-confined) */
    private long spareBytes;
    /** socket buffers {@link #lendBuffer} allocated, all loops (test hook) */
    static final java.util.concurrent.atomic.AtomicLong BUFFERS_ALLOCATED = new java.util.concurrent.atomic.AtomicLong();
    /**
     * most bytes of buffers kept for reuse per loop (4 MiB: a small send buffer for each of 512 connections busy at
     * once, or 32 large ones); more are left to the garbage collector
     */
    static final long SPARE_BYTES_MAX = 4L << 20;
    private final long wakeupAddress;
    private boolean wakeupPending;
    /** sockets by slot; slot 0 is never used */
    private IoUringSocket[] sockets = new IoUringSocket[64];
    /** free slots, a stack */
    private int[] freeSlots = new int[0];
    private int freeCount;
    private int nextSlot = 1;
    private int socketCount;
    /**
     * buffers of a provided buffer ring per loop (test hook: a test sets fewer to exhaust the ring); read when a loop
     * makes its ring
     */
    static volatile int bufferRingEntries = 256;
    /** the native memory the loop's datagram sockets share, made on the first datagram received or sent */
    private DatagramScratch datagramScratch;
    /** the loop's provided buffer ring, made on the first receive; {@code null} before or when the kernel has none */
    private IoUringBufferRing bufferRing;
    private boolean bufferRingTried;
    /**
     * buffers of the loop's ring of large buffers for streaming connections (test hook: a test sets fewer to exhaust
     * it); read when a loop makes that ring
     */
    static volatile int largeBufferRingEntries = 16;
    /** the loop's ring of large buffers, made on the first streaming receive; {@code null} before or when refused */
    private IoUringBufferRing largeBufferRing;
    private boolean largeBufferRingTried;
    /** the {@code writev(2)} iovecs of the loop's stream sockets, made on the first large direct write */
    private io.conduit.transport.spi.unix.IovArray iov;
    /**
     * the handlers not yet destroyed, for {@link #onThisThread()} (tests); a set of this bundle's own, not a
     * {@code ThreadLocal}, which would pin the bundle's class loader to a loop thread
     */
    private static final java.util.Set<IoUringIoHandler> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();
    // Counters of the loop's stream sockets: plain fields, since only the loop thread updates or reads them (tests
    // read them with a task on the loop, onThisThread()); no atomic operation on the I/O path.
    /** receives submitted, single or multishot */
    long receivesSubmitted;
    /** provided-ring buffers the loop's stream sockets hold with received bytes in them (none kept for good) */
    long ringBuffersHeld;
    /** {@code writev(2)} calls straight from the core's buffers ({@link IoUringStreamSocket#write}) */
    long directWrites;
    /** bytes those calls wrote */
    long directWriteBytes;
    /** {@code read(2)} calls straight into the core's buffer that brought bytes ({@link IoUringStreamSocket#read}) */
    long inlineReads;
    /** bytes those calls read */
    long inlineReadBytes;
    /** {@code read(2)} calls straight into the core's buffer that found the socket empty ({@code EAGAIN}) */
    long inlineReadsDry;
    /** direct writes that found the socket full (took part or nothing) and armed the {@code POLLOUT} poll */
    long directWriteWaits;
    /** sockets whose events are handed out again on the next round */
    private List<IoUringSocket> ready = new ArrayList<>();
    private List<IoUringSocket> readySpare = new ArrayList<>();

    /**
     * Creates the ring and the wake-up eventfd. Called on the new loop's thread, which is the ring's single issuer.
     *
     * @throws IllegalStateException naming the failed call and errno
     */
    IoUringIoHandler() {
        IoUring.ensureAvailability();
        IoUringRing r = null;
        int ev = -1;
        try {
            r = IoUringRing.create();
            ev = ERRORS.check("eventfd", Native.eventfd(0, NativeAbi.EFD_CLOEXEC));
        } catch (IOException e) {
            if (r != null) {
                r.close();
            }
            throw new IllegalStateException("creating an io_uring event loop failed: " + e.getMessage()
                    + "; check the open-files limit (ulimit -n) and the locked-memory limit (ulimit -l)", e);
        }
        this.ring = r;
        this.eventFd = ev;
        this.thread = Thread.currentThread();
        this.wakeupAddress = Native.addressOf(wakeupBuffer);
        armWakeup();
        LIVE.add(this);
    }

    /**
     * @return the handler of the loop running on the calling thread, {@code null} on any other thread; for tests,
     *         which read the loop's counters ({@link #receivesSubmitted} and the like) with a task on the loop
     */
    static IoUringIoHandler onThisThread() {
        for (IoUringIoHandler h : LIVE) {
            if (h.thread == Thread.currentThread()) {
                return h;
            }
        }
        return null;
    }

    /**
     * @return the loop's iovec array for {@code writev(2)}, cleared: at most 1,024 entries ({@code IOV_MAX} on
     *         Linux); loop thread only, its contents valid until the next call
     */
    io.conduit.transport.spi.unix.IovArray iov() {
        if (iov == null) {
            iov = new io.conduit.transport.spi.unix.IovArray(Math.min(1024, NativeAbi.IOVEC.iovMax()), NativeAbi.IOVEC);
        }
        iov.clear();
        return iov;
    }

    /**
     * Lends a direct buffer of {@code bytes} ({@link IoUringStreamSocket#SMALL_SEND_BYTES},
     * {@link IoUringStreamSocket#SEND_BYTES} or {@link IoUringStreamSocket#RECEIVE_BYTES}), a spare one when the loop
     * has it. Loop thread.
     *
     * @throws IOException when the JVM's direct memory is exhausted ({@code -XX:MaxDirectMemorySize}): the caller's
     *         connection fails with it, the loop goes on
     */
    ByteBuffer lendBuffer(int bytes) throws IOException {
        java.util.ArrayDeque<ByteBuffer> spares = bytes == IoUringStreamSocket.SMALL_SEND_BYTES
                ? spareSmallBuffers : spareBuffers;
        for (java.util.Iterator<ByteBuffer> it = spares.iterator(); it.hasNext(); ) {
            ByteBuffer b = it.next();
            if (b.capacity() == bytes) {
                it.remove();
                spareBytes -= bytes;
                return b.clear();
            }
        }
        try {
            ByteBuffer b = ByteBuffer.allocateDirect(bytes);
            BUFFERS_ALLOCATED.incrementAndGet();
            return b;
        } catch (OutOfMemoryError e) {
            throw new IOException("no direct memory left for a " + bytes / 1024 + " KiB io_uring socket buffer ("
                    + e.getMessage() + "); raise -XX:MaxDirectMemorySize or open fewer connections", e);
        }
    }

    /** Takes back a buffer {@link #lendBuffer} lent, once the kernel no longer uses it. Loop thread. */
    void returnBuffer(ByteBuffer b) {
        int bytes = b.capacity();
        if (spareBytes + bytes <= SPARE_BYTES_MAX) {
            (bytes == IoUringStreamSocket.SMALL_SEND_BYTES ? spareSmallBuffers : spareBuffers).push(b);
            spareBytes += bytes;
        }
    }

    /** @return the loop thread this handler belongs to */
    Thread thread() {
        return thread;
    }

    /**
     * @return the loop's provided buffer ring, registered on the first call; {@code null} when the kernel has none
     *         (before Linux 5.19): sockets then receive into buffers of their own
     */
    IoUringBufferRing bufferRing() {
        if (!bufferRingTried) {
            bufferRingTried = true;
            bufferRing = IoUringBufferRing.register(ring, bufferRingEntries);
        }
        return bufferRing;
    }

    /** @return the native memory the loop's datagram sockets share for their system calls (loop thread only) */
    DatagramScratch datagramScratch() {
        if (datagramScratch == null) {
            datagramScratch = new DatagramScratch();
        }
        return datagramScratch;
    }

    /**
     * @return the loop's ring of {@link IoUringBufferRing#LARGE_BUFFER_BYTES} buffers for connections that stream,
     *         registered on the first call ({@value IoUringBufferRing#LARGE_BUFFER_BYTES} times
     *         {@link #largeBufferRingEntries} bytes, 2 MiB, per loop, not per connection); {@code null} when the
     *         kernel has no provided buffer rings or refused it: such receives use {@link #bufferRing()}
     */
    IoUringBufferRing largeBufferRing() {
        if (!largeBufferRingTried) {
            largeBufferRingTried = true;
            try {
                largeBufferRing = IoUringBufferRing.register(ring, largeBufferRingEntries,
                        IoUringBufferRing.LARGE_BUFFER_BYTES, IoUringBufferRing.LARGE_GROUP);
            } catch (OutOfMemoryError e) {
                LOG.log(System.Logger.Level.WARNING, "no direct memory for the large receive buffers of "
                        + thread.getName() + "; streaming receives use the 16 KiB ones", e);
            }
        }
        return largeBufferRing;
    }

    /** @return the ring (loop thread only) */
    IoUringRing ring() {
        return ring;
    }

    // ------------------------------------------------------------------------------- registration (loop)

    /** @return a new slot for {@code socket}, which its requests' user_data carry */
    int register(IoUringSocket socket) {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            slot = nextSlot++;
            if (slot >= sockets.length) {
                sockets = Arrays.copyOf(sockets, sockets.length * 2);
            }
        }
        sockets[slot] = socket;
        socketCount++;
        return slot;
    }

    /** Takes back {@code slot}: its socket has no request in flight any more. */
    void release(int slot) {
        if (sockets[slot] == null) {
            return;
        }
        sockets[slot] = null;
        socketCount--;
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, Math.max(16, freeSlots.length * 2));
        }
        freeSlots[freeCount++] = slot;
    }

    /** Hands {@code socket} its events again on the next round. */
    void readyAgain(IoUringSocket socket) {
        if (!socket.onReadyList) {
            socket.onReadyList = true;
            ready.add(socket);
        }
    }

    // ----------------------------------------------------------------------------------------- the loop

    @Override
    public int run(IoHandlerContext context) {
        boolean block = context.canBlock() && ready.isEmpty() && !ring.hasCompletions();
        if (block) {
            long deadline = context.deadlineNanos();
            long timeout = deadline < 0 ? -1 : Math.min(context.delayNanos(System.nanoTime()), MAX_WAIT_NANOS);
            context.waitStarting();
            int r = ring.submitAndWait(Math.max(timeout, -1));
            context.waitEnded();
            if (r < 0 && r != -NativeAbi.ETIME && r != -NativeAbi.EINTR) {
                LOG.log(System.Logger.Level.WARNING, ERRORS.message("io_uring_enter on " + thread.getName(), -r));
            }
        } else if (ring.unsubmitted() > 0 || ring.overflowed() || ring.taskWorkPending()) {
            submitAndFlush();
        }
        int n = ring.reap(completer);
        if (ring.overflowed()) {
            submitAndFlush();
            n += ring.reap(completer);
        }
        if (!ready.isEmpty()) {
            List<IoUringSocket> again = ready;
            ready = readySpare;
            readySpare = again;
            for (IoUringSocket s : again) {
                s.onReadyList = false;
                dispatchReady(s);
            }
            again.clear();
        }
        return n;
    }

    private void submitAndFlush() {
        int r = ring.submitAndFlush();
        if (r < 0 && r != -NativeAbi.EINTR && r != -NativeAbi.EBUSY) {
            LOG.log(System.Logger.Level.WARNING, ERRORS.message("io_uring_enter on " + thread.getName(), -r));
        }
    }

    /** Submits what sockets wrote now (before a descriptor is closed, so no written request names a stale fd). */
    void submitNow() {
        try {
            ring.submit();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "submitting on " + thread.getName() + " failed", e);
        }
    }

    private void complete(long userData, int res, int flags) {
        int slot = (int) (userData >>> 8);
        if (slot == 0) {
            if (userData == WAKEUP_DATA) {
                wakeupPending = false;
                armWakeup();
            }
            return;
        }
        IoUringSocket s = slot < sockets.length ? sockets[slot] : null;
        if (s == null) {
            LOG.log(System.Logger.Level.DEBUG, () -> "completion for free slot " + slot + ": res " + res);
            return;
        }
        try {
            s.completed((int) (userData & 0xff), res, flags);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "completion handling of " + s + " threw", t);
        }
    }

    private static void dispatchReady(IoUringSocket s) {
        try {
            s.dispatchReady();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "I/O event handling of " + s + " threw", t);
        }
    }

    private void armWakeup() {
        if (wakeupPending || closed.get()) {
            return;
        }
        try {
            ring.add(NativeAbi.IORING_OP_READ, eventFd, wakeupAddress, 8, 0, 0, 0, WAKEUP_DATA);
            wakeupPending = true;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "arming the wake-up read on " + thread.getName() + " failed", e);
        }
    }

    @Override
    public void wakeup() {
        if (Thread.currentThread() != thread && !closed.get()) {
            Native.eventfdWrite(eventFd, 1L);
        }
    }

    @Override
    public void prepareToDestroy() {
        for (IoUringSocket s : sockets.clone()) {
            if (s == null) {
                continue;
            }
            try {
                s.loopShuttingDown();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "closing " + s + " at loop shutdown failed", t);
            }
        }
    }

    /**
     * Lets closed connections send their staged output (at most 5 s), cancels what is still in flight and waits (at
     * most 2 s) for the kernel to give every buffer back, then closes the descriptors whose close waited for their
     * requests, the ring and the eventfd.
     */
    @Override
    public void destroy() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LIVE.remove(this);
        try {
            // Closed connections whose staged output is still being sent keep sending first, as the kernel goes on
            // sending what a closed epoll socket had in its send buffer: a loop that ends right after an echo's close
            // (a transport swap retiring its group) must not drop the echo's last bytes. Bounded for peers that read
            // nothing more.
            long outputEnd = System.nanoTime() + DESTROY_OUTPUT_NANOS;
            while (closingWithOutput() && System.nanoTime() - outputEnd < 0) {
                ring.submitAndWait(10_000_000L);
                ring.reap(completer);
            }
            if (wakeupPending) {
                ring.add(NativeAbi.IORING_OP_ASYNC_CANCEL, -1, WAKEUP_DATA, 0, 0, 0, 0, 0);
            }
            for (IoUringSocket s : sockets.clone()) {
                if (s != null) {
                    s.abort();
                }
            }
            long end = System.nanoTime() + DESTROY_DRAIN_NANOS;
            while ((socketCount > 0 || wakeupPending) && System.nanoTime() - end < 0) {
                ring.submitAndWait(10_000_000L);
                ring.reap(completer);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cancelling requests on " + thread.getName() + " failed", e);
        }
        for (IoUringSocket s : sockets.clone()) {
            if (s != null) {
                s.closeDescriptorNow();
            }
        }
        Arrays.fill(sockets, null);
        socketCount = 0;
        ring.close();
        Native.close(eventFd);
    }

    /** @return whether a closed socket still sends its staged output (loop thread) */
    private boolean closingWithOutput() {
        for (IoUringSocket s : sockets) {
            if (s != null && s.closingWithOutput()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "IoUringIoHandler[" + thread.getName() + ", " + ring + ", " + socketCount + " sockets]";
    }
}
