package io.conduit.transport.spi;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.conduit.internal.concurrent.LoopThread;
import io.conduit.internal.concurrent.ScheduledFutureTask;
import io.conduit.internal.concurrent.SingleThreadEventExecutor;
import io.conduit.internal.metrics.CountedLoop;
import io.conduit.internal.metrics.LoopCounters;
import io.conduit.internal.metrics.PlatformMetrics;

/**
 * The loop behind {@link IoEventLoopGroup}; its javadoc states the round structure and threading contract.
 * It lives beside the I/O SPI it drives, above the concurrency layer it extends.
 */
final class SingleThreadIoEventLoop extends SingleThreadEventExecutor implements IoEventLoop, CountedLoop {

    private static final System.Logger LOG = System.getLogger(SingleThreadIoEventLoop.class.getName());
    /** Key of the {@link LoopThread} attachment that names the loop running on that thread. */
    private static final Object CURRENT_KEY = new Object();
    /** Pause after an {@link IoHandler#run} failure so that a broken poller cannot spin the loop. */
    private static final long FAILURE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final IoEventLoopGroup parent;
    private final IoHandlerFactory handlerFactory;
    private final boolean busyWait;
    private final int maxTasksPerRun;
    private volatile IoHandler handler; // written once by the loop thread; read by wakeupBlocked from any thread
    private boolean destroyPrepared;    // loop-confined: prepareToDestroy ran during shutdown
    private long tasksAtPrepare;        // loop-confined: completed tasks when it last ran
    /** Written by this loop's thread only; see {@link LoopCounters} for how others read it. */
    private final LoopCounters counters;

    SingleThreadIoEventLoop(IoEventLoopGroup parent, ThreadFactory threadFactory, IoHandlerFactory handlerFactory,
            boolean busyWait, int maxTasksPerRun, String name) {
        this(parent, threadFactory, handlerFactory, busyWait, maxTasksPerRun, name, PlatformMetrics.UNNAMED);
    }

    /** @param transportName the transport whose metrics this loop adds to */
    SingleThreadIoEventLoop(IoEventLoopGroup parent, ThreadFactory threadFactory, IoHandlerFactory handlerFactory,
            boolean busyWait, int maxTasksPerRun, String name, String transportName) {
        super(parent, threadFactory, name);
        this.parent = Objects.requireNonNull(parent, "parent");
        this.handlerFactory = Objects.requireNonNull(handlerFactory, "handlerFactory");
        this.busyWait = busyWait;
        this.maxTasksPerRun = maxTasksPerRun;
        LoopCounters c = PlatformMetrics.newLoop(this, transportName, pendingTaskCount());
        this.counters = c;
        terminationFuture().addListener(f -> PlatformMetrics.loopTerminated(this, c));
    }

    /** @return this loop's counters; the channel core adds to them on this loop's thread */
    @Override
    public LoopCounters counters() {
        return counters;
    }

    /** @see IoEventLoop#current() */
    static IoEventLoop current() {
        LoopThread t = LoopThread.current();
        return t == null ? null : t.attachment(CURRENT_KEY, () -> null);
    }

    @Override
    public IoEventLoopGroup parent() {
        return parent;
    }

    @Override
    public IoHandler ioHandler() {
        return handler;
    }

    /** The context handed to one {@link IoHandler#run} call; reused, loop thread only. */
    private static final class Context implements IoHandlerContext {
        final LoopCounters counters;
        boolean canBlock;
        long deadlineNanos;

        Context(LoopCounters counters) {
            this.counters = counters;
        }

        @Override
        public void waitStarting() {
            counters.waitStarting();
        }

        @Override
        public void waitEnded() {
            counters.waitEnded();
        }

        @Override
        public boolean canBlock() {
            return canBlock;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return deadlineNanos < 0 ? -1 : Math.max(0, ScheduledFutureTask.saturatedSub(deadlineNanos, currentTimeNanos));
        }

        @Override
        public long deadlineNanos() {
            return deadlineNanos;
        }
    }

    @Override
    protected void run() {
        IoHandler h = handlerFactory.newHandler();
        if (h == null) {
            throw new IllegalStateException("IoHandlerFactory " + handlerFactory + " returned null");
        }
        handler = h;
        LoopThread lt = LoopThread.current();
        if (lt != null) {
            lt.attachment(CURRENT_KEY, () -> this);
        }
        counters.started();
        Context ctx = new Context(counters);
        // The loop itself stays interpreted until an on-stack replacement compiles it (tens of thousands of
        // iterations); its body is a method of its own, compiled like any other after a few hundred calls.
        while (!runOnce(h, ctx)) {
            // next iteration
        }
    }

    /**
     * One iteration of the loop: poll (blocking when nothing else is due), run tasks, and during shutdown
     * prepare the handler and confirm. Loop thread.
     *
     * @return {@code true} when the loop has to end (shutdown confirmed)
     */
    private boolean runOnce(IoHandler h, Context ctx) {
        boolean blocking = !busyWait && prepareToBlock();
        if (blocking && hasDueScheduledTask(System.nanoTime())) {
            doneBlocking();
            blocking = false;
        }
        ctx.canBlock = blocking;
        ctx.deadlineNanos = nextWakeupDeadlineNanos();
        try {
            h.run(ctx);
        } catch (LinkageError e) {
            // the transport's classes are gone (its bundle refreshed or uninstalled): no retry can load them, so the
            // loop ends with one line, and cleanup() lets the handler close its channels
            throw e;
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "IoHandler.run of " + this + " threw; pausing briefly", t);
            LockSupport.parkNanos(FAILURE_PAUSE_NANOS);
        } finally {
            if (blocking) {
                doneBlocking();
            }
        }
        runAllTasks(maxTasksPerRun);
        if (isShuttingDown()) {
            if (!destroyPrepared || completedTasks() != tasksAtPrepare) {
                destroyPrepared = true;
                tasksAtPrepare = completedTasks();
                safePrepareToDestroy(h);
            }
            return confirmShutdown();
        }
        return false;
    }

    private void safePrepareToDestroy(IoHandler h) {
        try {
            h.prepareToDestroy();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "IoHandler.prepareToDestroy of " + this + " threw", t);
        }
    }

    @Override
    protected void cleanup() {
        counters.stopped();
        IoHandler h = handler;
        if (h != null) {
            if (!destroyPrepared) { // the loop ended abnormally: its channels are still open
                destroyPrepared = true;
                safePrepareToDestroy(h);
            }
            h.destroy();
        }
    }

    @Override
    protected void wakeupBlocked() {
        IoHandler h = handler;
        if (h != null) {
            h.wakeup();
        }
    }
}
