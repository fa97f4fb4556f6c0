package io.conduit.internal.concurrent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;

/**
 * A plain event loop without I/O: runs tasks, parks its thread ({@link LockSupport}) until the next scheduled
 * deadline or a new task. Used for handlers' own executors, tests, and (on a virtual thread) the
 * virtual-thread executor. A park never exceeds one hour, so a never-due task costs one wake-up an hour.
 */
public final class DefaultEventLoop extends SingleThreadEventExecutor implements EventLoop {

    private final EventLoopGroup parent;
    private volatile long iterations; // written by the loop thread only; read by tests

    /**
     * @param parent the group, or {@code null} when the loop stands alone
     * @param threadFactory makes the thread on the first task (a {@link LoopThread} factory, or virtual threads)
     * @param name used in messages
     */
    public DefaultEventLoop(EventLoopGroup parent, ThreadFactory threadFactory, String name) {
        super(parent, threadFactory, name);
        this.parent = parent;
    }

    @Override
    public EventLoopGroup parent() {
        return parent == null ? this : parent;
    }

    /** @return how many times the loop went round (run tasks, maybe park); for tests that check it never spins */
    public long iterations() {
        return iterations;
    }

    @Override
    protected void run() {
        for (;;) {
            iterations++;
            runAllTasks(MAX_TASKS_PER_BATCH);
            if (isShuttingDown() && confirmShutdown()) {
                return;
            }
            if (prepareToBlock()) {
                try {
                    long deadline = nextWakeupDeadlineNanos();
                    if (deadline < 0) {
                        LockSupport.park(this);
                    } else {
                        long delay = ScheduledFutureTask.saturatedSub(deadline, System.nanoTime());
                        if (delay > 0) {
                            LockSupport.parkNanos(this, Math.min(delay, MAX_PARK_NANOS));
                        }
                    }
                } finally {
                    doneBlocking();
                }
            }
        }
    }

    @Override
    protected void wakeupBlocked() {
        Thread t = thread();
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
