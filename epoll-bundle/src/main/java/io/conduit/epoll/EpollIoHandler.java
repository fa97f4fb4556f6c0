package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;

import io.conduit.transport.spi.IoHandler;
import io.conduit.transport.spi.IoHandlerContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The poller of one epoll event loop: an epoll fd, an eventfd for wake-ups and a timerfd for the earliest
 * scheduled task's deadline.
 *
 * <p><b>Edge-triggered sockets.</b> Every socket is registered with {@code EPOLLET}: a readiness change is
 * reported once, so an {@code EPOLLHUP} on a half-closed socket with no interest cannot spin the loop, and a
 * socket that was read dry costs nothing more. Because the shared channel core may stop reading before the
 * socket is dry ({@code MAX_MESSAGES_PER_READ}, auto-read off), a socket whose last read did not end in
 * {@code EAGAIN}, a short read or end-of-stream while read interest is still on is kept on a
 * <em>more-input</em> list and handed {@code readReady} again on the next round, which then polls without
 * blocking. Interest changes use {@code EPOLL_CTL_MOD}, which re-checks readiness, so turning interest on
 * reports input that is already waiting. Read interest includes {@code EPOLLRDHUP} (half-closure by the peer).
 *
 * <p><b>Wake-ups</b> write the eventfd (registered edge-triggered, never read: each write is a new edge; the
 * 64-bit counter cannot overflow in practice). The loop calls {@link #wakeup()} only when it may be blocked
 * (see {@link io.conduit.transport.spi.IoEventLoopGroup}); calls from the loop thread itself are ignored.
 *
 * <p><b>Timer.</b> Before a blocking {@code epoll_wait(-1)} the timerfd is armed for the context's deadline, but
 * only when that deadline differs from the one already armed ({@link #timerArmCount()} counts the
 * {@code timerfd_settime} calls); delays are clamped by {@link Native#timerfdSetTimeoutNanos} so the kernel never
 * sees an invalid value. An expiry forgets the armed deadline, so an equal later deadline is armed again.
 *
 * <p><b>Busy-wait</b>: when {@link IoHandlerContext#canBlock()} is {@code false} (always, with
 * {@code IoEventLoopGroup.Options.busyWait}), {@code epoll_wait} is called with timeout 0.
 *
 * <p>The event array starts at {@value #INITIAL_EVENTS} entries and doubles (up to {@value #MAX_EVENTS}) when a
 * wait fills it.
 *
 * <p>Threading: every method except {@link #wakeup()} runs on the loop thread ({@link #thread}); fields are
 * loop-confined unless stated otherwise.
 */
final class EpollIoHandler implements IoHandler {

    private static final System.Logger LOG = System.getLogger(EpollIoHandler.class.getName());
    static final int INITIAL_EVENTS = 64;
    static final int MAX_EVENTS = 4096;
    /** {@code epoll_event.data} of the eventfd and timerfd; sockets use their fd (always &gt;= 0). */
    private static final long WAKEUP_DATA = -1;
    private static final long TIMER_DATA = -2;
    /** {@link #armedDeadlineNanos}: no deadline armed. */
    private static final long NOT_ARMED = Long.MIN_VALUE;

    private final int epollFd;
    private final int eventFd;
    private final int timerFd;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean(); // any thread reads (wakeup)
    private EpollEventArray events = new EpollEventArray(INITIAL_EVENTS);
    /**
     * registered sockets, indexed by fd (descriptors are small and dense: the kernel hands out the lowest free
     * one); grown by doubling to fit the largest fd registered. 4 bytes per slot instead of a boxed key and a
     * map node per socket.
     */
    private EpollSocket[] sockets = new EpollSocket[INITIAL_EVENTS];
    /** sockets registered (for {@link #toString()}) */
    private int socketCount;
    /** sockets to hand {@code readReady} again (edge-triggered, not read dry) */
    private List<EpollSocket> moreInput = new ArrayList<>();
    private List<EpollSocket> moreInputSpare = new ArrayList<>();
    /** the {@link System#nanoTime()} deadline the timerfd is armed for, or {@link #NOT_ARMED} */
    private long armedDeadlineNanos = NOT_ARMED;
    /** {@code timerfd_settime} calls made (test hook); written by the loop, read by anyone */
    private volatile long timerArmCount;
    /** {@code eventfd} writes made by {@link #wakeup()} (test hook) */
    private final java.util.concurrent.atomic.AtomicLong wakeupWrites = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Creates the epoll fd, eventfd and timerfd and registers the latter two. Called on the new loop's thread.
     *
     * @throws IllegalStateException naming the failed call and errno
     */
    EpollIoHandler() {
        Epoll.ensureAvailability();
        int ep = -1;
        int ev = -1;
        int tm = -1;
        try {
            ep = ERRORS.check("epoll_create1", Native.epollCreate());
            ev = ERRORS.check("eventfd", Native.eventfd(0, NativeAbi.EFD_CLOEXEC | NativeAbi.EFD_NONBLOCK));
            tm = ERRORS.check("timerfd_create", Native.timerfdCreate(NativeAbi.CLOCK_MONOTONIC,
                    NativeAbi.TFD_CLOEXEC | NativeAbi.TFD_NONBLOCK));
            ERRORS.check("epoll_ctl", Native.epollCtl(ep, NativeAbi.EPOLL_CTL_ADD, ev,
                    NativeAbi.EPOLLIN | NativeAbi.EPOLLET, WAKEUP_DATA));
            ERRORS.check("epoll_ctl", Native.epollCtl(ep, NativeAbi.EPOLL_CTL_ADD, tm,
                    NativeAbi.EPOLLIN | NativeAbi.EPOLLET, TIMER_DATA));
        } catch (java.io.IOException e) {
            for (int fd : new int[] {tm, ev, ep}) {
                if (fd >= 0) {
                    Native.close(fd);
                }
            }
            throw new IllegalStateException("creating an epoll event loop failed: " + e.getMessage()
                    + "; check the open-files limit (ulimit -n)", e);
        }
        this.epollFd = ep;
        this.eventFd = ev;
        this.timerFd = tm;
        this.thread = Thread.currentThread();
    }

    private LoopResources fallbackResources; // loop-confined; used when the loop thread is no LoopThread

    /** @return scratch memory for a loop whose thread is not a {@code LoopThread} */
    LoopResources fallbackResources() {
        if (fallbackResources == null) {
            fallbackResources = new LoopResources();
        }
        return fallbackResources;
    }

    /** @return the loop thread this handler belongs to */
    Thread thread() {
        return thread;
    }

    /** @return how many times the timer was armed or disarmed ({@code timerfd_settime} calls); any thread */
    long timerArmCount() {
        return timerArmCount;
    }

    /** @return how many eventfd writes wake-ups made; any thread */
    long wakeupWriteCount() {
        return wakeupWrites.get();
    }

    /** @return the capacity of the event array (grows when a wait fills it) */
    int eventArrayCapacity() {
        return events.capacity();
    }

    // ------------------------------------------------------------------------------- registration (loop)

    /** {@code EPOLL_CTL_ADD} of {@code socket}'s fd, edge-triggered, with {@code epollEvents}. */
    void add(EpollSocket socket, int epollEvents) throws java.io.IOException {
        int fd = socket.fd();
        ERRORS.check("epoll_ctl(EPOLL_CTL_ADD)", Native.epollCtl(epollFd, NativeAbi.EPOLL_CTL_ADD, fd,
                epollEvents | NativeAbi.EPOLLET, fd));
        if (fd >= sockets.length) {
            sockets = Arrays.copyOf(sockets, Math.max(fd + 1, sockets.length * 2));
        }
        if (sockets[fd] == null) {
            socketCount++;
        }
        sockets[fd] = socket;
    }

    /** @return the socket registered with {@code fd}, or {@code null} */
    private EpollSocket socket(int fd) {
        EpollSocket[] table = sockets;
        return fd >= 0 && fd < table.length ? table[fd] : null;
    }

    /** {@code EPOLL_CTL_MOD}: replaces the interest (re-checks readiness, so waiting input is reported). */
    void modify(EpollSocket socket, int epollEvents) {
        int fd = socket.fd();
        int r = Native.epollCtl(epollFd, NativeAbi.EPOLL_CTL_MOD, fd, epollEvents | NativeAbi.EPOLLET, fd);
        if (r < 0) {
            LOG.log(System.Logger.Level.DEBUG, () -> ERRORS.message("epoll_ctl(EPOLL_CTL_MOD) of fd " + fd, -r));
        }
    }

    /** {@code EPOLL_CTL_DEL}; after it the kernel holds no reference to the socket for this poller. */
    void remove(EpollSocket socket) {
        int fd = socket.fd();
        if (socket(fd) == socket) {
            sockets[fd] = null;
            socketCount--;
        }
        if (fd >= 0) {
            Native.epollCtl(epollFd, NativeAbi.EPOLL_CTL_DEL, fd, 0, 0);
        }
    }

    // ----------------------------------------------------------------------------------------- the loop

    @Override
    public int run(IoHandlerContext context) {
        boolean block = context.canBlock() && moreInput.isEmpty();
        int timeoutMillis = 0;
        if (block) {
            long deadline = context.deadlineNanos();
            if (deadline != armedDeadlineNanos) {
                armTimer(deadline, context);
            }
            timeoutMillis = -1;
        }
        EpollEventArray array = events;
        if (block) {
            context.waitStarting();
        }
        int n = Native.epollWait(epollFd, array.address(), array.capacity(), timeoutMillis);
        if (block) {
            context.waitEnded();
        }
        if (n < 0) {
            if (!ERRORS.isInterrupted(n)) {
                LOG.log(System.Logger.Level.WARNING, ERRORS.message("epoll_wait on " + thread.getName(), -n));
            }
            n = 0;
        }
        for (int i = 0; i < n; i++) {
            long data = array.data(i);
            if (data == WAKEUP_DATA) {
                continue; // edge-triggered: nothing to read
            }
            if (data == TIMER_DATA) {
                armedDeadlineNanos = NOT_ARMED; // expired: an equal deadline must be armed again
                continue;
            }
            EpollSocket s = socket((int) data);
            if (s != null) {
                dispatch(s, array.events(i));
            }
        }
        if (n == array.capacity() && array.capacity() < MAX_EVENTS) {
            events = new EpollEventArray(array.capacity() * 2);
        }
        if (!moreInput.isEmpty()) {
            List<EpollSocket> again = moreInput;
            moreInput = moreInputSpare;
            moreInputSpare = again;
            for (EpollSocket s : again) {
                s.onMoreInputList = false;
                if (s.isRegisteredWith(this) && s.wantsRead()) {
                    readReady(s);
                }
            }
            again.clear();
        }
        return n;
    }

    private void armTimer(long deadlineNanos, IoHandlerContext context) {
        int r;
        if (deadlineNanos < 0) {
            r = Native.timerfdDisarm(timerFd);
        } else {
            r = Native.timerfdSetTimeoutNanos(timerFd, context.delayNanos(System.nanoTime()));
        }
        timerArmCount++;
        if (r < 0) {
            LOG.log(System.Logger.Level.WARNING, ERRORS.message("timerfd_settime on " + thread.getName(), -r));
            armedDeadlineNanos = NOT_ARMED;
        } else {
            armedDeadlineNanos = deadlineNanos;
        }
    }

    private void dispatch(EpollSocket s, int ev) {
        try {
            if ((ev & (NativeAbi.EPOLLRDHUP | NativeAbi.EPOLLHUP | NativeAbi.EPOLLERR)) != 0) {
                s.hangupSeen = true;
            }
            int interest = s.interest();
            if ((ev & (NativeAbi.EPOLLOUT | NativeAbi.EPOLLERR | NativeAbi.EPOLLHUP)) != 0) {
                if ((interest & EpollSocket.OP_CONNECT) != 0) {
                    s.events().connectReady();
                } else if ((interest & EpollSocket.OP_WRITE) != 0) {
                    s.events().writeReady();
                }
            }
            if ((ev & (NativeAbi.EPOLLIN | NativeAbi.EPOLLRDHUP | NativeAbi.EPOLLERR | NativeAbi.EPOLLHUP)) != 0
                    && s.isRegisteredWith(this) && s.wantsRead()) {
                readReady(s);
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "I/O event handling of " + s + " threw", t);
        }
    }

    private void readReady(EpollSocket s) {
        s.inputDrained = false;
        s.events().readReady();
        if (!s.inputDrained && !s.onMoreInputList && s.isRegisteredWith(this) && s.wantsRead()) {
            s.onMoreInputList = true;
            moreInput.add(s);
        }
    }

    @Override
    public void wakeup() {
        if (Thread.currentThread() != thread && !closed.get()) {
            wakeupWrites.incrementAndGet();
            Native.eventfdWrite(eventFd, 1L);
        }
    }

    @Override
    public void prepareToDestroy() {
        for (EpollSocket s : sockets.clone()) {
            if (s == null) {
                continue;
            }
            try {
                s.events().loopShuttingDown();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "closing " + s + " at loop shutdown failed", t);
            }
        }
    }

    @Override
    public void destroy() {
        if (closed.compareAndSet(false, true)) {
            Arrays.fill(sockets, null);
            socketCount = 0;
            Native.close(timerFd);
            Native.close(eventFd);
            Native.close(epollFd);
        }
    }

    @Override
    public String toString() {
        return "EpollIoHandler[" + thread.getName() + ", epfd " + epollFd + ", " + socketCount + " sockets]";
    }
}
