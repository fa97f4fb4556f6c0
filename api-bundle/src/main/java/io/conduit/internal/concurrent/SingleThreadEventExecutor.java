package io.conduit.internal.concurrent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.conduit.concurrent.EventExecutorGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.ScheduledFuture;

/**
 * An executor backed by one thread, started lazily by the first task.
 *
 * <h2>Queues</h2>
 * Tasks go into a multi-producer, single-consumer queue (any thread offers, only the loop thread polls).
 * Scheduled tasks live in a priority queue touched only by the loop thread; {@code schedule} called from
 * another thread, and cancellation from another thread, travel through the task queue. Due scheduled tasks are
 * moved to the task queue by {@link #runAllTasks(int)}.
 *
 * <h2>States</h2>
 * {@code NOT_STARTED → STARTED → SHUTTING_DOWN → SHUTDOWN → TERMINATED}, stored in {@link #state}.
 * Tasks are accepted until {@code SHUTDOWN}: during the graceful quiet period ({@code SHUTTING_DOWN}) a new task
 * still runs and restarts the quiet period, as {@link EventExecutorGroup#shutdownGracefully(long, long, TimeUnit)}
 * describes; from {@code SHUTDOWN} on they are rejected with {@link RejectedExecutionException}. An executor
 * that never started terminates at once. As its very last acts the thread runs
 * {@link LoopThread#runTerminationHooks()} (when it is a {@link LoopThread}) and completes {@link #terminationFuture()}.
 *
 * <h2>Blocking and wake-ups</h2>
 * A subclass loop that wants to block calls {@link #prepareToBlock()} (which clears the "awake" flag and
 * re-checks the task queue), blocks, then {@link #doneBlocking()}. {@link #execute} from another thread flips the
 * flag back with a compare-and-set and only the winner calls {@link #wakeupBlocked()}, so a burst of tasks costs
 * at most one wake-up per blocking wait.
 */
public abstract class SingleThreadEventExecutor extends AbstractEventExecutor {

    private static final System.Logger LOG = System.getLogger(SingleThreadEventExecutor.class.getName());

    static final int ST_NOT_STARTED = 1;
    static final int ST_STARTED = 2;
    static final int ST_SHUTTING_DOWN = 3;
    static final int ST_SHUTDOWN = 4;
    static final int ST_TERMINATED = 5;

    private static final VarHandle STATE;
    private static final VarHandle AWAKE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(SingleThreadEventExecutor.class, "state", int.class);
            AWAKE = l.findVarHandle(SingleThreadEventExecutor.class, "awake", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Offered to wake the loop (and restart the quiet period) when a shutdown begins; does nothing. */
    private static final Runnable WAKEUP_TASK = () -> { };

    /** Longest single park of the default waiting strategy, so that no clock value reaches the OS unclamped. */
    static final long MAX_PARK_NANOS = TimeUnit.HOURS.toNanos(1);

    private final Queue<Runnable> taskQueue = new ConcurrentLinkedQueue<>(); // MPSC: any thread offers, loop polls
    private final ScheduledTaskQueue scheduledTasks = new ScheduledTaskQueue(); // loop thread only
    private final ThreadFactory threadFactory;
    private final DefaultPromise<Void> terminationFuture = new DefaultPromise<>(this);
    private final String name;

    private volatile Thread thread;           // set once by the starter (and again by the thread itself, same value)
    @SuppressWarnings("unused")
    private volatile int state = ST_NOT_STARTED; // see class javadoc; changed with STATE CAS
    @SuppressWarnings("unused")
    private volatile boolean awake = true;    // false while the loop may block; flipped by AWAKE CAS
    private volatile long quietPeriodNanos;   // written by shutdownGracefully before the state change publishes it
    private volatile long shutdownTimeoutNanos; // same

    private boolean shutdownNoticed;          // loop thread only
    private long gracefulShutdownStartNanos;  // loop thread only
    private long lastExecutionNanos;          // loop thread only
    private long completedTasks;              // loop thread only

    /**
     * @param parent the group, or {@code null}
     * @param threadFactory makes the one thread, on the first task
     * @param name used in messages; the thread's name comes from the factory
     */
    protected SingleThreadEventExecutor(EventExecutorGroup parent, ThreadFactory threadFactory, String name) {
        super(parent);
        this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * The loop body, on the executor's thread. It must run tasks with {@link #runAllTasks(int)} and return once
     * {@link #isShuttingDown()} and {@link #confirmShutdown()} returns {@code true}.
     */
    protected abstract void run();

    /** Wakes the thread blocked by the subclass loop. Any thread. */
    protected abstract void wakeupBlocked();

    /** Releases the loop's resources; called once on the loop thread after the last task ran. */
    protected void cleanup() {
    }

    // ------------------------------------------------------------------ identity and state

    @Override
    public boolean inEventLoop(Thread t) {
        return t == thread;
    }

    /** @return the executor's thread, or {@code null} before it started */
    /** @return the name for messages: the executor's name and, once started, its thread's name */
    private String label() {
        Thread t = thread;
        return t == null ? name : name + " (thread " + t.getName() + ")";
    }

    protected final Thread thread() {
        return thread;
    }

    private int state() {
        return (int) STATE.getVolatile(this);
    }

    @Override
    public boolean isShuttingDown() {
        return state() >= ST_SHUTTING_DOWN;
    }

    @Override
    public boolean isShutdown() {
        return state() >= ST_SHUTDOWN;
    }

    @Override
    public boolean isTerminated() {
        return state() == ST_TERMINATED;
    }

    @Override
    public Future<?> terminationFuture() {
        return terminationFuture;
    }

    // ------------------------------------------------------------------ task submission

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (isShutdown()) {
            reject(task);
        }
        taskQueue.offer(task);
        if (!inEventLoop()) {
            startThread();
            // the loop may have drained for the last time between the check above and the offer
            if (isShutdown() && taskQueue.remove(task)) {
                reject(task);
            }
            wakeIfBlocked();
        }
    }

    private void reject(Runnable task) {
        throw new RejectedExecutionException("event executor " + label() + " is " + stateName(state())
                + " and accepts no more tasks (rejected " + task + "); submit before shutdown or use a running executor");
    }

    private static String stateName(int s) {
        switch (s) {
            case ST_NOT_STARTED: return "not started";
            case ST_STARTED: return "started";
            case ST_SHUTTING_DOWN: return "shutting down";
            case ST_SHUTDOWN: return "shut down";
            default: return "terminated";
        }
    }

    /** Flips the awake flag and wakes the loop when it may be blocked. Any thread. */
    protected final void wakeIfBlocked() {
        if (AWAKE.compareAndSet(this, false, true)) {
            wakeupBlocked();
        }
    }

    /**
     * Clears the awake flag before blocking. Loop thread only.
     *
     * @return {@code true} when the loop may block now; {@code false} when a task is queued (the flag is set again)
     */
    protected final boolean prepareToBlock() {
        AWAKE.setVolatile(this, false);
        if (!taskQueue.isEmpty()) {
            AWAKE.setVolatile(this, true);
            return false;
        }
        return true;
    }

    /** Sets the awake flag after a wait that began with {@link #prepareToBlock()} returning {@code true}. */
    protected final void doneBlocking() {
        AWAKE.setVolatile(this, true);
    }

    /** @return {@code true} when a task is queued. Any thread. */
    protected final boolean hasTasks() {
        return !taskQueue.isEmpty();
    }

    /** @return the number of tasks run so far. Loop thread only. */
    /**
     * @return a counter of the tasks queued now (not the scheduled ones), for metrics: it refers to the task queue
     *         only, never to this executor, and costs a walk of the queue per call
     */
    protected final java.util.function.IntSupplier pendingTaskCount() {
        Queue<Runnable> q = taskQueue;
        return q::size;
    }

    protected final long completedTasks() {
        return completedTasks;
    }

    private void startThread() {
        if (state() == ST_NOT_STARTED && STATE.compareAndSet(this, ST_NOT_STARTED, ST_STARTED)) {
            try {
                Thread t = threadFactory.newThread(this::runThread);
                if (t == null) {
                    throw new IllegalStateException("thread factory " + threadFactory + " returned null");
                }
                thread = t;
                t.start();
            } catch (Throwable t) {
                STATE.setVolatile(this, ST_TERMINATED);
                terminationFuture.tryFailure(t);
                throw new RejectedExecutionException("could not start the thread of event executor " + name, t);
            }
        }
    }

    // ------------------------------------------------------------------ scheduling

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        return schedule(Executors.callable(command, null), delay, unit, 0);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        return schedule(callable, delay, unit, 0);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        if (period <= 0) {
            throw new IllegalArgumentException("period " + period + " " + unit + " must be > 0");
        }
        return schedule(Executors.callable(command, null), initialDelay, unit, Math.max(1, unit.toNanos(period)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        if (delay <= 0) {
            throw new IllegalArgumentException("delay " + delay + " " + unit + " must be > 0");
        }
        // toNanos saturates at Long.MAX_VALUE, so the negation cannot overflow
        return schedule(Executors.callable(command, null), initialDelay, unit, -Math.max(1, unit.toNanos(delay)));
    }

    private <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit, long periodNanos) {
        Objects.requireNonNull(unit, "unit");
        long deadline = ScheduledFutureTask.deadlineNanos(System.nanoTime(), delay, unit);
        ScheduledFutureTask<V> task = new ScheduledFutureTask<>(this, callable, deadline, periodNanos);
        if (inEventLoop()) {
            if (isShutdown()) {
                reject(task);
            }
            scheduledTasks.add(task);
        } else {
            execute(() -> {
                if (!task.isDone()) {
                    scheduledTasks.add(task);
                }
            });
        }
        return task;
    }

    /** Re-queues a periodic task. Loop thread only. */
    final void addScheduledOnLoop(ScheduledFutureTask<?> task) {
        scheduledTasks.add(task);
    }

    /** Removes a cancelled task from the scheduled queue, on the loop thread. Any thread. */
    final void removeScheduled(ScheduledFutureTask<?> task) {
        if (inEventLoop()) {
            scheduledTasks.remove(task);
        } else {
            try {
                execute(() -> scheduledTasks.remove(task));
            } catch (RejectedExecutionException shutDown) {
                // the loop clears its whole queue when it shuts down
            }
        }
    }

    /** @return the number of scheduled tasks waiting (cancelled ones are removed). Loop thread only. */
    public final int scheduledTaskCount() {
        return scheduledTasks.size();
    }

    /**
     * @return the {@link System#nanoTime()} deadline at which the loop must wake up: the earliest scheduled
     *         deadline ({@code Long.MAX_VALUE} = never), or while shutting down the end of the quiet period or
     *         timeout; {@code -1} when there is none. Loop thread only.
     */
    protected final long nextWakeupDeadlineNanos() {
        ScheduledFutureTask<?> head = scheduledTasks.peek();
        long deadline = head == null ? -1 : head.deadlineNanos();
        if (shutdownNoticed) {
            long quietEnd = ScheduledFutureTask.saturatedAdd(lastExecutionNanos, quietPeriodNanos);
            long timeoutEnd = ScheduledFutureTask.saturatedAdd(gracefulShutdownStartNanos, shutdownTimeoutNanos);
            long end = ScheduledFutureTask.saturatedAdd(Math.min(quietEnd, timeoutEnd), 1);
            deadline = deadline == -1 ? end : Math.min(deadline, end);
        }
        return deadline;
    }

    /** @return {@code true} when a scheduled task is due at {@code nowNanos}. Loop thread only. */
    protected final boolean hasDueScheduledTask(long nowNanos) {
        ScheduledFutureTask<?> head = scheduledTasks.peek();
        return head != null && head.deadlineNanos() <= nowNanos;
    }

    // ------------------------------------------------------------------ running tasks

    /**
     * Moves due scheduled tasks to the task queue, then runs up to {@code maxTasks} queued tasks. A task's
     * exception is logged and does not stop the loop. Loop thread only.
     *
     * @return {@code true} when at least one task ran
     */
    /**
     * Most tasks one {@link #runAllTasks(int)} call of the plain loop and of {@link #confirmShutdown()} runs, so
     * that a task which keeps re-submitting itself cannot keep the loop from checking its state.
     */
    protected static final int MAX_TASKS_PER_BATCH = 1024;

    protected final boolean runAllTasks(int maxTasks) {
        long now = System.nanoTime();
        ScheduledFutureTask<?> due;
        while ((due = scheduledTasks.peek()) != null && due.deadlineNanos() <= now) {
            scheduledTasks.poll();
            taskQueue.offer(due);
        }
        int ran = 0;
        Runnable task;
        while (ran < maxTasks && (task = taskQueue.poll()) != null) {
            safeRun(task);
            ran++;
        }
        if (ran > 0) {
            completedTasks += ran;
            lastExecutionNanos = System.nanoTime();
        }
        return ran > 0;
    }

    /**
     * Logs without ever throwing: a logger can fail (e.g. its first use reads time-zone data while the process is out
     * of descriptors, EMFILE), and an event loop must not die because a report about a task could not be written.
     */
    private static void logSafely(System.Logger.Level level, String message, Throwable t) {
        try {
            LOG.log(level, message, t);
        } catch (Throwable loggingFailed) {
            // nothing more can be reported safely here; the loop goes on
        }
    }

    private void safeRun(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            logSafely(System.Logger.Level.WARNING, "a task of event executor " + label() + " threw; the loop goes on: " + task, t);
        }
    }

    // ------------------------------------------------------------------ shutdown

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (quietPeriod < 0) {
            throw new IllegalArgumentException("quietPeriod " + quietPeriod + " " + unit + " must be >= 0");
        }
        if (timeout < quietPeriod) {
            throw new IllegalArgumentException("timeout " + timeout + " must be >= quietPeriod " + quietPeriod + " (" + unit + ")");
        }
        if (isShuttingDown()) {
            return terminationFuture;
        }
        quietPeriodNanos = unit.toNanos(quietPeriod);
        shutdownTimeoutNanos = unit.toNanos(timeout);
        if (beginShutdown(ST_SHUTTING_DOWN)) {
            taskQueue.offer(WAKEUP_TASK);
            if (!inEventLoop()) {
                wakeIfBlocked();
            }
        }
        return terminationFuture;
    }

    /** Immediate shutdown: queued tasks still run, no quiet period; does not wait. */
    @Override
    public void shutdown() {
        if (beginShutdown(ST_SHUTDOWN)) {
            taskQueue.offer(WAKEUP_TASK);
            if (!inEventLoop()) {
                wakeIfBlocked();
            }
        }
    }

    /**
     * Like {@link #shutdown()}. Queued tasks still run (they may be promise notifications that must not be lost),
     * so the returned list is always empty.
     */
    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return List.of();
    }

    /** @return {@code true} when this call moved the state forward and the loop must be woken */
    private boolean beginShutdown(int target) {
        for (;;) {
            int s = state();
            if (s >= target) {
                return false;
            }
            if (s == ST_NOT_STARTED) {
                if (STATE.compareAndSet(this, ST_NOT_STARTED, ST_TERMINATED)) {
                    terminationFuture.trySuccess(null); // no thread ever ran: nothing to drain or clean
                    return false;
                }
                continue;
            }
            if (STATE.compareAndSet(this, s, target)) {
                return true;
            }
        }
    }

    /**
     * Called by the loop when {@link #isShuttingDown()}: cancels scheduled tasks, runs queued tasks and decides
     * whether the quiet period (no task for {@code quietPeriod}) or the timeout has been reached. Loop thread only.
     *
     * @return {@code true} when the loop may stop
     */
    protected final boolean confirmShutdown() {
        if (!isShuttingDown()) {
            return false;
        }
        if (!inEventLoop()) {
            throw new IllegalStateException("confirmShutdown() must be called on the loop thread of " + name);
        }
        for (ScheduledFutureTask<?> t : scheduledTasks.drain()) {
            t.cancelWithoutRemove();
        }
        long now = System.nanoTime();
        if (!shutdownNoticed) {
            shutdownNoticed = true;
            gracefulShutdownStartNanos = now;
            lastExecutionNanos = now;
        }
        // Bounded: a task that keeps re-submitting itself must not keep the shutdown timeout from being checked.
        boolean ran = runAllTasks(MAX_TASKS_PER_BATCH);
        now = System.nanoTime();
        if (isShutdown() || quietPeriodNanos == 0 || now - gracefulShutdownStartNanos > shutdownTimeoutNanos) {
            return true;
        }
        return !ran && now - lastExecutionNanos > quietPeriodNanos;
    }

    private void runThread() {
        thread = Thread.currentThread();
        lastExecutionNanos = System.nanoTime();
        try {
            run();
        } catch (LinkageError e) {
            // a class of the loop's transport cannot be loaded any more, typically because its bundle was refreshed or
            // uninstalled while the loop started: the transport is gone, which a swap treats as a normal event, so
            // one line naming the class, not a stack trace per loop
            logSafely(System.Logger.Level.WARNING, "event executor " + label() + " stopped: its transport's classes are"
                    + " gone (" + e + (e.getCause() == null ? "" : "; " + e.getCause()) + "), e.g. its bundle was "
                    + "refreshed or uninstalled; shutting it down", null);
        } catch (Throwable t) {
            logSafely(System.Logger.Level.ERROR, "event executor " + label() + " failed; shutting it down", t);
        } finally {
            advanceState(ST_SHUTTING_DOWN);
            try {
                while (!confirmShutdown()) {
                    // only when run() ended abnormally: wait for the quiet period without a subclass loop
                    long deadline = nextWakeupDeadlineNanos();
                    long delay = deadline < 0 ? MAX_PARK_NANOS : ScheduledFutureTask.saturatedSub(deadline, System.nanoTime());
                    LockSupport.parkNanos(this, Math.max(1, Math.min(delay, TimeUnit.MILLISECONDS.toNanos(100))));
                }
                advanceState(ST_SHUTDOWN);
                confirmShutdown(); // last drain: tasks offered before SHUTDOWN was visible
            } finally {
                try {
                    cleanup();
                } catch (Throwable t) {
                    logSafely(System.Logger.Level.WARNING, "cleanup of event executor " + label() + " failed", t);
                } finally {
                    // A producer that saw the state before SHUTDOWN may have offered a task after the last drain;
                    // it removes and rejects the task itself unless this poll got it first, so run what we get:
                    // every task that execute() accepted runs exactly once.
                    Runnable late;
                    while ((late = taskQueue.poll()) != null) {
                        safeRun(late);
                    }
                    if (Thread.currentThread() instanceof LoopThread lt) {
                        lt.runTerminationHooks();
                    }
                    STATE.setVolatile(this, ST_TERMINATED);
                    terminationFuture.trySuccess(null);
                }
            }
        }
    }

    private void advanceState(int target) {
        for (;;) {
            int s = state();
            if (s >= target || STATE.compareAndSet(this, s, target)) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + label() + ", " + stateName(state()) + "]";
    }
}
