package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;

import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.IoEventLoop;
import io.conduit.transport.spi.IoHandler;
import io.conduit.transport.spi.IoHandlerContext;
import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.NativeMemory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The poller of one kqueue event loop: one kqueue ({@code kqueue(2)}) with
 * <ul>
 *   <li>per socket an {@code EVFILT_READ} and an {@code EVFILT_WRITE} registration, both {@code EV_CLEAR}
 *       (edge-triggered), added on first interest, {@code EV_DISABLE}d when interest ends and
 *       {@code EV_DELETE}d in {@link KQueueSocket#deregister} — before the descriptor is closed;</li>
 *   <li>one {@code EVFILT_TIMER} (ident 0, {@code NOTE_NSECONDS}) for the earliest scheduled task, re-armed only
 *       when that deadline changes (or after it fired);</li>
 *   <li>one {@code EVFILT_USER} (ident 0, {@code EV_CLEAR}) that {@link #wakeup()} triggers with
 *       {@code NOTE_TRIGGER}.</li>
 * </ul>
 *
 * <p><b>Edge-triggered filters under a level-triggered core.</b> The shared channel core
 * (API bundle) may stop reading before the socket is drained (messages-per-read budget, auto-read
 * off) or stop writing before the send buffer is full (write-spin budget) and expects to be called again, as a
 * level-triggered selector would. With {@code EV_CLEAR} no new event comes in that case, so each socket records
 * whether its last {@code read}/{@code accept}/{@code recvfrom} filled the buffer or its last {@code writev} was
 * taken whole ("maybe more"); after dispatching, such a socket with the matching interest still on is queued in
 * {@link #retry} and called again on the next {@link #run}, which then polls instead of blocking. A read that
 * returns less than asked, {@code EAGAIN} or end-of-stream ends the retries until the next edge.
 *
 * <p>Threading: every method except {@link #wakeup()} runs on the loop thread. {@link #wakeup()} may be called
 * from any thread: {@code kevent(2)} changes on one kqueue are thread-safe (also in the emulation).
 */
final class KQueueIoHandler implements IoHandler {

    private static final System.Logger LOG = System.getLogger(KQueueIoHandler.class.getName());
    /** events collected per kevent(2) call */
    private static final int MAX_EVENTS = 512;
    /** longest timer handed to the kernel, in ns (1 day): longer deadlines fire early and are re-armed */
    private static final long MAX_TIMER_NANOS = 86_400L * 1_000_000_000L;
    /** bytes of the scratch buffer for heap ByteBuffers (read into it, write from it) */
    private static final int SCRATCH_BYTES = 256 * 1024;

    /** the kqueue descriptor; immutable, closed in {@link #destroy()} */
    private final int kq;
    /** the loop thread; immutable */
    private final Thread thread;
    /** struct kevent[MAX_EVENTS]; loop-confined */
    private final NativeMemory events;
    /** iovec array for writev; loop-confined */
    private final IovArray iov;
    /** direct scratch memory for heap buffers; loop-confined */
    private final NativeMemory scratch;
    /** registered sockets by descriptor; loop-confined */
    private final Map<Integer, KQueueSocket> sockets = new HashMap<>();
    /** sockets whose last I/O suggests more readiness than an edge will report; loop-confined */
    private ArrayDeque<KQueueSocket> retry = new ArrayDeque<>();
    /** next registration id (kevent udata), so an event of a closed-and-reused descriptor is recognised; loop-confined */
    private long nextRegistrationId = 1;
    /** deadline (System.nanoTime) the timer is armed for; -1 = not armed; loop-confined */
    private long armedDeadlineNanos = -1;
    /** whether the timer knote was added (it then stays, EV_DISABLEd when unused); loop-confined */
    private boolean timerAdded;
    /** set by wakeup() before triggering, cleared after each wait: skips redundant triggers. Any thread. */
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    /** set once destroy() ran; loop-confined */
    private boolean destroyed;

    KQueueIoHandler() {
        KQueue.ensureAvailability();
        int fd = Native.kqueue();
        if (fd < 0) {
            throw new UncheckedIOException(ERRORS.newIoException("kqueue", fd));
        }
        this.kq = fd;
        this.thread = Thread.currentThread();
        try {
            ERRORS.check("kevent(EV_ADD EVFILT_USER)", Native.keventChange(kq, 0, NativeAbi.EVFILT_USER,
                    NativeAbi.EV_ADD | NativeAbi.EV_CLEAR, NativeAbi.NOTE_FFNOP, 0, 0));
        } catch (IOException e) {
            Native.close(kq);
            throw new UncheckedIOException("setting up the wake-up event of a kqueue event loop failed: "
                    + e.getMessage(), e);
        }
        this.events = NativeMemory.allocate(MAX_EVENTS * NativeAbi.KEVENT_SIZE, Native::addressOf);
        this.iov = new IovArray(Math.min(NativeAbi.IOV_MAX, 1024), NativeAbi.IOVEC);
        this.scratch = NativeMemory.allocate(SCRATCH_BYTES, Native::addressOf);
    }

    /**
     * @return the handler of {@code loop}, which must be the calling thread's loop of the kqueue transport
     * @throws IllegalStateException otherwise
     */
    static KQueueIoHandler of(EventLoop loop) {
        if (loop instanceof IoEventLoop l && l.ioHandler() instanceof KQueueIoHandler h
                && h.thread == Thread.currentThread()) {
            return h;
        }
        throw new IllegalStateException("event loop " + loop + " (thread " + Thread.currentThread().getName()
                + ") is not an event loop of the 'kqueue' transport; register kqueue channels with a group from"
                + " the kqueue Transport.newEventLoopGroup");
    }

    /** @return the loop thread */
    Thread thread() {
        return thread;
    }

    int kq() {
        return kq;
    }

    IovArray iov() {
        return iov;
    }

    /** @return the scratch memory (direct, native order); valid for one I/O call on the loop thread */
    NativeMemory scratch() {
        return scratch;
    }

    /** Adds {@code socket} under its descriptor. @return its registration id (kevent udata) */
    long add(KQueueSocket socket) {
        long id = nextRegistrationId++;
        sockets.put(socket.fd(), socket);
        return id;
    }

    void remove(KQueueSocket socket) {
        sockets.remove(socket.fd(), socket);
    }

    /** Queues {@code socket} to be called again on the next run (see the class comment). Loop thread. */
    void scheduleRetry(KQueueSocket socket) {
        if (!socket.retryQueued) {
            socket.retryQueued = true;
            retry.add(socket);
        }
    }

    @Override
    public int run(IoHandlerContext context) {
        if (destroyed) {
            return 0;
        }
        long timeoutNanos;
        if (!context.canBlock() || !retry.isEmpty()) {
            timeoutNanos = 0;
        } else {
            long deadline = context.deadlineNanos();
            if (deadline < 0 || deadline == Long.MAX_VALUE) {
                disarmTimer();
                timeoutNanos = -1;
            } else {
                long delay = context.delayNanos(System.nanoTime());
                if (delay <= 0) {
                    timeoutNanos = 0;
                } else {
                    timeoutNanos = armTimer(deadline, delay) ? -1 : Math.min(delay, MAX_TIMER_NANOS);
                }
            }
        }
        boolean block = timeoutNanos != 0;
        if (block) {
            context.waitStarting();
        }
        int n = Native.keventWait(kq, 0, 0, events.address(), MAX_EVENTS, timeoutNanos);
        if (block) {
            context.waitEnded();
        }
        wakeupPending.set(false);
        int handled = 0;
        if (n < 0) {
            if (!ERRORS.isInterrupted(n)) {
                LOG.log(System.Logger.Level.WARNING, ERRORS.message("kevent", -n) + " on " + thread.getName());
            }
        } else {
            for (int i = 0; i < n; i++) {
                handled += dispatch(i * NativeAbi.KEVENT_SIZE);
            }
        }
        if (!retry.isEmpty()) {
            ArrayDeque<KQueueSocket> due = retry;
            retry = new ArrayDeque<>();
            for (KQueueSocket s : due) {
                s.retryQueued = false;
                handled++;
                s.retry();
            }
        }
        return handled;
    }

    private int dispatch(int base) {
        ByteBuffer b = events.buffer();
        int filter = NativeAbi.KEVENT_FILTER_SIZE == Short.BYTES ? b.getShort(base + NativeAbi.KEVENT_FILTER_OFFSET)
                : b.getInt(base + NativeAbi.KEVENT_FILTER_OFFSET);
        int flags = NativeAbi.KEVENT_FLAGS_SIZE == Short.BYTES
                ? Short.toUnsignedInt(b.getShort(base + NativeAbi.KEVENT_FLAGS_OFFSET))
                : b.getInt(base + NativeAbi.KEVENT_FLAGS_OFFSET);
        if (filter == NativeAbi.EVFILT_USER) {
            return 0; // a wake-up: its job is done by returning from kevent
        }
        if (filter == NativeAbi.EVFILT_TIMER) {
            armedDeadlineNanos = -1; // fired: the next run arms it again if a deadline is still pending
            return 0;
        }
        long ident = events.getWord(base + NativeAbi.KEVENT_IDENT_OFFSET, NativeAbi.KEVENT_IDENT_SIZE);
        long data = events.getWord(base + NativeAbi.KEVENT_DATA_OFFSET, NativeAbi.KEVENT_DATA_SIZE);
        if ((flags & NativeAbi.EV_ERROR) != 0) {
            LOG.log(System.Logger.Level.DEBUG, () -> "kevent change for descriptor " + ident + " filter " + filter
                    + " failed: " + ERRORS.message("kevent", (int) data));
            return 0;
        }
        long udata = events.getWord(base + NativeAbi.KEVENT_UDATA_OFFSET, NativeAbi.SIZEOF_POINTER);
        KQueueSocket socket = sockets.get((int) ident);
        if (socket == null || socket.registrationId() != udata) {
            return 0; // deregistered (and maybe the number reused) after the event was collected
        }
        int fflags = b.getInt(base + NativeAbi.KEVENT_FFLAGS_OFFSET);
        socket.ready(filter, flags, fflags, data);
        return 1;
    }

    /** @return {@code true} when the timer covers {@code deadline}; {@code false} when arming failed */
    private boolean armTimer(long deadlineNanos, long delayNanos) {
        if (deadlineNanos == armedDeadlineNanos) {
            return true;
        }
        // EV_ADD of an existing timer restarts it; the knote stays for the loop's life (no descriptor needed on
        // BSD, and the emulation's timerfd is replaced in place, which matters when descriptors run out)
        int rc = Native.keventChange(kq, 0, NativeAbi.EVFILT_TIMER, NativeAbi.EV_ADD | NativeAbi.EV_ENABLE,
                NativeAbi.NOTE_NSECONDS, Math.max(1, Math.min(delayNanos, MAX_TIMER_NANOS)), 0);
        if (rc < 0) {
            // Seen with the Linux emulation when descriptors run out (its timers are timerfds); BSD kernels need
            // no descriptor. Handled: this wait uses a kevent timeout, the next run tries again. Logged at DEBUG
            // only: under EMFILE even a log record can fail (java.util.logging opens tzdb.dat).
            LOG.log(System.Logger.Level.DEBUG, () -> ERRORS.message("kevent(EV_ADD EVFILT_TIMER)", -rc)
                    + "; waiting with a kevent timeout instead");
            armedDeadlineNanos = -1;
            return false;
        }
        timerAdded = true;
        armedDeadlineNanos = deadlineNanos;
        return true;
    }

    private void disarmTimer() {
        if (armedDeadlineNanos != -1 && timerAdded) {
            Native.keventChange(kq, 0, NativeAbi.EVFILT_TIMER, NativeAbi.EV_DISABLE, 0, 0, 0);
        }
        armedDeadlineNanos = -1;
    }

    @Override
    public void wakeup() {
        if (Thread.currentThread() != thread && wakeupPending.compareAndSet(false, true)) {
            int rc = Native.keventChange(kq, 0, NativeAbi.EVFILT_USER, 0, NativeAbi.NOTE_TRIGGER, 0, 0);
            if (rc < 0 && rc != -NativeAbi.EBADF) {
                LOG.log(System.Logger.Level.WARNING, ERRORS.message("kevent(NOTE_TRIGGER)", -rc));
            }
        }
    }

    @Override
    public void prepareToDestroy() {
        for (KQueueSocket s : new ArrayList<>(sockets.values())) {
            try {
                s.loopShuttingDown();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "closing " + s + " at loop shutdown failed", t);
            }
        }
    }

    @Override
    public void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (KQueueSocket s : new ArrayList<>(sockets.values())) {
            s.deregister(null);
        }
        if (timerAdded) {
            Native.keventChange(kq, 0, NativeAbi.EVFILT_TIMER, NativeAbi.EV_DELETE, 0, 0, 0);
        }
        Native.keventChange(kq, 0, NativeAbi.EVFILT_USER, NativeAbi.EV_DELETE, 0, 0, 0);
        int rc = Native.close(kq);
        if (rc < 0) {
            LOG.log(System.Logger.Level.DEBUG, () -> ERRORS.message("close(kqueue)", -rc));
        }
    }

    @Override
    public String toString() {
        return "KQueueIoHandler[kq " + kq + ", " + thread.getName() + "]";
    }
}
