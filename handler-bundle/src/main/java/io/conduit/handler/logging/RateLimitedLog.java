package io.conduit.handler.logging;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Logs one kind of repeated event (a connection over a limit, a malformed PROXY header, a relay's upstream refusing
 * clients) rate-limited: the first occurrence at once, then at most one line per interval, which counts the occurrences since
 * the line before and shows the latest one. No timer runs: the first occurrence after the interval writes the count,
 * and {@link #flush()} (when the relay stops) writes what is still unreported, so no occurrence goes uncounted.
 *
 * <p>Lines look like this, with the default interval of {@value #DEFAULT_INTERVAL_SECONDS} s:
 * <pre>
 * relay redis: upstream tcp://127.0.0.1:6379 unreachable (…); closed client /127.0.0.1:40312 (repeats are counted: at most one line every 10 s)
 * relay redis: upstream tcp://127.0.0.1:6379 unreachable (…); closed client /127.0.0.1:40954 (the latest of 301 in the last 10 s)
 * </pre>
 *
 * <p>Thread-safe: every event loop may report; the lines are made only when they are written, outside no lock but
 * this object's, and logged through {@link System.Logger} (java.util.logging by default).
 */
public final class RateLimitedLog {

    /** The interval between two lines of one kind of event, in seconds, unless a test sets another. */
    public static final long DEFAULT_INTERVAL_SECONDS = 10;

    private final System.Logger log;
    private final System.Logger.Level level;
    private final long intervalNanos;
    /** {@link System#nanoTime()}, or a test's fake clock. */
    private final LongSupplier nanoClock;

    private boolean firstLogged;           // guarded by this
    private long lastLineNanos;            // guarded by this: nanoClock's time of the last line written
    private long unreported;               // guarded by this: occurrences since that line
    private Supplier<String> latest;       // guarded by this: the line of the latest unreported occurrence, or null

    /**
     * A log on {@code log} at {@code level}, one line per {@value #DEFAULT_INTERVAL_SECONDS} s at most, on
     * {@link System#nanoTime()}.
     *
     * @throws NullPointerException when {@code log} or {@code level} is null
     */
    public RateLimitedLog(System.Logger log, System.Logger.Level level) {
        this(log, level, TimeUnit.SECONDS.toNanos(DEFAULT_INTERVAL_SECONDS), System::nanoTime);
    }

    /**
     * @param log           where the lines go
     * @param level         the level of every line
     * @param intervalNanos the least time between two lines, nanoseconds, &gt; 0
     * @param nanoClock     a monotonic clock in nanoseconds, compared by difference ({@link System#nanoTime()} outside
     *                      tests)
     * @throws IllegalArgumentException when {@code intervalNanos <= 0}
     * @throws NullPointerException     when an argument is null
     */
    public RateLimitedLog(System.Logger log, System.Logger.Level level, long intervalNanos, LongSupplier nanoClock) {
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException("intervalNanos must be > 0, was " + intervalNanos);
        }
        this.log = Objects.requireNonNull(log, "log");
        this.level = Objects.requireNonNull(level, "level");
        this.intervalNanos = intervalNanos;
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /**
     * Reports one occurrence.
     *
     * @param line makes the occurrence's line (called only when it is written, at most once per call)
     */
    public synchronized void occurred(Supplier<String> line) {
        long now = nanoClock.getAsLong();
        if (!firstLogged) {
            firstLogged = true;
            lastLineNanos = now;
            log.log(level, line.get() + " (repeats are counted: at most one line every "
                    + TimeUnit.NANOSECONDS.toSeconds(intervalNanos) + " s)");
            return;
        }
        unreported++;
        latest = line;
        if (now - lastLineNanos >= intervalNanos) {
            writeCount(now);
        }
    }

    /** Writes the count of the occurrences not reported yet, if any (e.g. when the listener or relay stops). */
    public synchronized void flush() {
        if (unreported > 0) {
            writeCount(nanoClock.getAsLong());
        }
    }

    /** @return the occurrences not reported by a line yet */
    public synchronized long unreported() {
        return unreported;
    }

    private void writeCount(long now) {
        log.log(level, latest.get() + " (the latest of " + unreported + " in the last "
                + TimeUnit.NANOSECONDS.toSeconds(now - lastLineNanos) + " s)");
        lastLineNanos = now;
        unreported = 0;
        latest = null;
    }
}
