package io.conduit.handler.internal;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Logs the first of a kind of repeated event at once, then at most one line per interval, each saying how many
 * events the previous lines did not show. Thread-safe: events may come from every event loop.
 */
public final class RateLimitedLog {

    /** The interval the handlers use: one line per 10 s. */
    public static final long DEFAULT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final System.Logger logger;
    private final System.Logger.Level level;
    private final long intervalNanos;
    private final LongSupplier clock;

    /** Guarded by {@code this}. */
    private boolean loggedOnce;
    private long lastLoggedNanos;
    private long unreported;

    /**
     * @param clock nanoseconds, compared by difference ({@link System#nanoTime()} outside tests)
     */
    public RateLimitedLog(System.Logger logger, System.Logger.Level level, long intervalNanos, LongSupplier clock) {
        this.logger = Objects.requireNonNull(logger, "logger");
        this.level = Objects.requireNonNull(level, "level");
        this.intervalNanos = intervalNanos;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** One line per 10 s on {@link System#nanoTime()}. */
    public RateLimitedLog(System.Logger logger, System.Logger.Level level) {
        this(logger, level, DEFAULT_INTERVAL_NANOS, System::nanoTime);
    }

    /**
     * Records one event; logs {@code message} when the interval since the last line has passed, with the number
     * of events not shown since then.
     *
     * @return {@code true} when a line was logged
     */
    public boolean log(String message) {
        long skipped;
        synchronized (this) {
            long now = clock.getAsLong();
            if (loggedOnce && now - lastLoggedNanos < intervalNanos) {
                unreported++;
                return false;
            }
            loggedOnce = true;
            lastLoggedNanos = now;
            skipped = unreported;
            unreported = 0;
        }
        if (!logger.isLoggable(level)) {
            return false;
        }
        logger.log(level, skipped == 0 ? message
                : message + " (" + skipped + " more like this since the last report, "
                        + TimeUnit.NANOSECONDS.toSeconds(intervalNanos) + " s or more ago, not logged)");
        return true;
    }
}
