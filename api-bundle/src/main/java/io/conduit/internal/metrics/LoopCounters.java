package io.conduit.internal.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntSupplier;

import io.conduit.internal.config.ConduitProperties;

/**
 * The counters of one event loop.
 *
 * <p>Memory ordering: one writer, the loop thread, which adds with an opaque write (a plain store on x86-64 and
 * AArch64: no fence, no atomic read-modify-write). Any thread reads with opaque reads in {@link #addTo}. So a reader
 * sees each {@code long} whole, also on 32-bit platforms, but may miss the latest increments; the counters are not
 * read at one instant.
 */
public final class LoopCounters {

    /** The system property that turns counting off when {@code false} (to measure what counting costs). */
    public static final String PROPERTY = ConduitProperties.METRICS;
    /**
     * Read once: {@code false} makes every method of the I/O path return at once (the JIT folds the test away),
     * so every counter stays 0. A value that is no boolean leaves counting on.
     */
    static final boolean COUNTING = counting(System.getProperty(PROPERTY));

    static boolean counting(String value) {
        try {
            return ConduitProperties.parseBoolean(PROPERTY, value, true);
        } catch (IllegalArgumentException e) {
            System.getLogger(LoopCounters.class.getName()).log(System.Logger.Level.WARNING,
                    e.getMessage() + "; counting stays on");
            return true;
        }
    }

    private static final VarHandle BYTES_READ;
    private static final VarHandle BYTES_WRITTEN;
    private static final VarHandle DATAGRAMS_READ;
    private static final VarHandle DATAGRAMS_WRITTEN;
    private static final VarHandle ACCEPTED;
    private static final VarHandle IO_ERRORS;
    private static final VarHandle WAIT_NANOS;
    private static final VarHandle WAIT_STARTED_NANOS;
    private static final VarHandle WAITING;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            BYTES_READ = l.findVarHandle(LoopCounters.class, "bytesRead", long.class);
            BYTES_WRITTEN = l.findVarHandle(LoopCounters.class, "bytesWritten", long.class);
            DATAGRAMS_READ = l.findVarHandle(LoopCounters.class, "datagramsRead", long.class);
            DATAGRAMS_WRITTEN = l.findVarHandle(LoopCounters.class, "datagramsWritten", long.class);
            ACCEPTED = l.findVarHandle(LoopCounters.class, "accepted", long.class);
            IO_ERRORS = l.findVarHandle(LoopCounters.class, "ioErrors", long.class);
            WAIT_NANOS = l.findVarHandle(LoopCounters.class, "waitNanos", long.class);
            WAIT_STARTED_NANOS = l.findVarHandle(LoopCounters.class, "waitStartedNanos", long.class);
            WAITING = l.findVarHandle(LoopCounters.class, "waiting", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final String transport;
    /** Counts the loop's queued tasks; refers to the task queue only, never to the loop or its poller. */
    private final IntSupplier pendingTasks;

    // Written by the loop thread only (opaque), read by any thread (opaque).
    private long bytesRead;
    private long bytesWritten;
    private long datagramsRead;
    private long datagramsWritten;
    private long accepted;
    private long ioErrors;
    /** Nanoseconds of finished waits. */
    private long waitNanos;
    /** {@link System#nanoTime()} when the current wait began; meaningful while {@link #waiting}. */
    private long waitStartedNanos;
    private boolean waiting;

    /** {@link System#nanoTime()} when the loop thread began; written once by it. */
    private volatile long startedNanos;
    private volatile boolean started;
    private volatile String threadName = "";
    /** {@link System#nanoTime()} when the loop thread ended; written once by it, before {@link #stopped}. */
    private volatile long stoppedNanos;
    private volatile boolean stopped;

    LoopCounters(String name, String transport, IntSupplier pendingTasks) {
        this.name = name;
        this.transport = transport;
        this.pendingTasks = pendingTasks;
    }

    /**
     * Counters that belong to no loop and are never read: those of a channel before it registers, or registered
     * with a loop that is no I/O loop (tests). Several threads may write them; nobody reads them.
     */
    public static final LoopCounters UNLISTED = new LoopCounters("unlisted", "unlisted", () -> 0);

    public String name() {
        return name;
    }

    public String transport() {
        return transport;
    }

    /** @return the loop thread's name, or an empty string before it started */
    public String threadName() {
        return threadName;
    }

    // ------------------------------------------------------------------ loop thread only

    public void bytesRead(long n) {
        if (!COUNTING) {
            return;
        }
        BYTES_READ.setOpaque(this, bytesRead + n);
    }

    public void bytesWritten(long n) {
        if (!COUNTING) {
            return;
        }
        BYTES_WRITTEN.setOpaque(this, bytesWritten + n);
    }

    /** One datagram of {@code n} payload bytes was received. */
    public void datagramRead(long n) {
        if (!COUNTING) {
            return;
        }
        DATAGRAMS_READ.setOpaque(this, datagramsRead + 1);
        BYTES_READ.setOpaque(this, bytesRead + n);
    }

    /** One datagram of {@code n} payload bytes was sent. */
    public void datagramWritten(long n) {
        if (!COUNTING) {
            return;
        }
        DATAGRAMS_WRITTEN.setOpaque(this, datagramsWritten + 1);
        BYTES_WRITTEN.setOpaque(this, bytesWritten + n);
    }

    public void accepted() {
        if (!COUNTING) {
            return;
        }
        ACCEPTED.setOpaque(this, accepted + 1);
    }

    public void ioError() {
        if (!COUNTING) {
            return;
        }
        IO_ERRORS.setOpaque(this, ioErrors + 1);
    }

    /** The loop thread began running. */
    public void started() {
        threadName = Thread.currentThread().getName();
        startedNanos = System.nanoTime();
        started = true;
    }

    /** The loop thread is about to end. */
    public void stopped() {
        stoppedNanos = System.nanoTime();
        stopped = true;
    }

    /** The poller is about to block. */
    public void waitStarting() {
        if (!COUNTING) {
            return;
        }
        WAIT_STARTED_NANOS.setOpaque(this, System.nanoTime());
        WAITING.setOpaque(this, true);
    }

    /** The poller stopped blocking. */
    public void waitEnded() {
        if (!COUNTING) {
            return;
        }
        long now = System.nanoTime();
        WAITING.setOpaque(this, false);
        WAIT_NANOS.setOpaque(this, waitNanos + (now - waitStartedNanos));
    }

    // ------------------------------------------------------------------ any thread

    /**
     * Adds this loop's values to {@code into}. Busy time is the loop's running time minus its waits, clamped to
     * [0, running time] because the reads race with the loop.
     *
     * @param nowNanos {@link System#nanoTime()} of the snapshot
     */
    void addTo(IoValues into, long nowNanos) {
        into.threadName = threadName;
        into.bytesRead += (long) BYTES_READ.getOpaque(this);
        into.bytesWritten += (long) BYTES_WRITTEN.getOpaque(this);
        into.datagramsRead += (long) DATAGRAMS_READ.getOpaque(this);
        into.datagramsWritten += (long) DATAGRAMS_WRITTEN.getOpaque(this);
        into.acceptedConnections += (long) ACCEPTED.getOpaque(this);
        into.ioErrors += (long) IO_ERRORS.getOpaque(this);
        into.pendingTasks += stopped ? 0 : pendingTasks.getAsInt();
        if (!started) {
            return;
        }
        long end = stopped ? stoppedNanos : nowNanos;
        long running = Math.max(0, end - startedNanos);
        long waited = (long) WAIT_NANOS.getOpaque(this);
        if (!stopped && (boolean) WAITING.getOpaque(this)) {
            waited += Math.max(0, end - (long) WAIT_STARTED_NANOS.getOpaque(this));
        }
        waited = Math.min(Math.max(0, waited), running);
        into.waitNanos += waited;
        into.busyNanos += running - waited;
    }

    @Override
    public String toString() {
        return "LoopCounters[" + name + "]";
    }
}
