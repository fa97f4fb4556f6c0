package io.conduit.health.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

import io.conduit.transport.Transports;

/**
 * Whether buffers leaked lately: WARN while the leak detector reported a leak (a buffer collected without its last
 * {@code release()}) within the last {@code leak.window.minutes} (default 10), with the number reported since the
 * JVM started; OK otherwise. Leaks reported before the check's first run count as reported at that run. The
 * detector's report (in the log of {@code io.conduit.buffer}) names where the buffer was last touched.
 *
 * <p>Tag {@code conduit}. Thread-safe: {@link #execute()} is synchronized.
 */
@Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Conduit buffer leaks",
    HealthCheck.TAGS + "=conduit"})
public final class LeakHealthCheck implements HealthCheck {

    /** Configuration (PID {@code io.conduit.health.internal.LeakHealthCheck}). */
    public @interface Config {
        /** @return minutes a leak report keeps the check at WARN */
        long leak_window_minutes() default 10;
    }

    private final LongSupplier leakReports;
    private final LongSupplier clock;
    private final long windowNanos;
    private long lastCount;
    /** When the count last grew, in {@link #clock} time; {@code Long.MIN_VALUE} while it never did. */
    private long lastIncrease = Long.MIN_VALUE;

    /** @param config its window */
    @Activate
    public LeakHealthCheck(Config config) {
        this(() -> Transports.metrics().allocator().getLeakReports(), System::nanoTime,
                config.leak_window_minutes());
    }

    LeakHealthCheck(LongSupplier leakReports, LongSupplier clock, long windowMinutes) {
        if (windowMinutes <= 0) {
            throw new IllegalArgumentException("leak.window.minutes must be > 0: " + windowMinutes);
        }
        this.leakReports = leakReports;
        this.clock = clock;
        this.windowNanos = TimeUnit.MINUTES.toNanos(windowMinutes);
        this.lastCount = 0;
    }

    @Override
    public synchronized Result execute() {
        FormattingResultLog log = new FormattingResultLog();
        long count = leakReports.getAsLong();
        long now = clock.getAsLong();
        if (count > lastCount) {
            lastIncrease = now;
            lastCount = count;
        }
        long minutes = TimeUnit.NANOSECONDS.toMinutes(windowNanos);
        if (lastIncrease != Long.MIN_VALUE && now - lastIncrease < windowNanos) {
            log.warn("{} buffer leak report(s) so far, the latest within the last {} minutes: a buffer was collected"
                    + " without its last release(); the log of io.conduit.buffer says where it was last touched",
                    count, minutes);
        } else {
            log.info("No buffer leak reported in the last {} minutes ({} so far)", minutes, count);
        }
        return new Result(log);
    }
}
