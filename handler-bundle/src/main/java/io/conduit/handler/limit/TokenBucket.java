package io.conduit.handler.limit;

/**
 * A token bucket of bytes: it fills at {@code bytesPerSecond} up to {@code burstBytes}; taking bytes may drive
 * it into debt, and the time until the debt is repaid is how long the taker should pause. One bucket per
 * connection, or one shared by every connection of a listener. Thread-safe.
 *
 * <p>Times are nanoseconds from the caller's clock ({@link io.conduit.concurrent.EventExecutor#nanoTime()}),
 * compared by difference.
 */
public final class TokenBucket {

    private final long bytesPerSecond;
    private final long burstBytes;
    /** Guarded by {@code this}: tokens now (negative = debt), and when they were last brought up to date. */
    private double tokens;
    private long updatedNanos;
    private boolean started;

    /**
     * @param bytesPerSecond the sustained rate; {@code > 0}
     * @param burstBytes how many bytes may pass at once after a quiet time; {@code > 0}
     * @throws IllegalArgumentException naming the parameter when one is not positive
     */
    public TokenBucket(long bytesPerSecond, long burstBytes) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytesPerSecond must be > 0: " + bytesPerSecond);
        }
        if (burstBytes <= 0) {
            throw new IllegalArgumentException("burstBytes must be > 0: " + burstBytes);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.burstBytes = burstBytes;
        this.tokens = burstBytes;
    }

    /** A bucket whose burst is one second of traffic. */
    public TokenBucket(long bytesPerSecond) {
        this(bytesPerSecond, bytesPerSecond);
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /**
     * Takes {@code bytes} (which have already passed).
     *
     * @return nanoseconds until the bucket is out of debt; 0 when it is not in debt
     */
    public synchronized long take(long bytes, long nowNanos) {
        refill(nowNanos);
        tokens -= bytes;
        return waitNanos();
    }

    /** @return nanoseconds from {@code nowNanos} until the bucket is out of debt; 0 when it is not in debt */
    public synchronized long debtNanos(long nowNanos) {
        refill(nowNanos);
        return waitNanos();
    }

    private long waitNanos() {
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens * 1e9 / bytesPerSecond);
    }

    private void refill(long nowNanos) {
        if (!started) {
            started = true;
            updatedNanos = nowNanos;
            return;
        }
        long elapsed = nowNanos - updatedNanos;
        if (elapsed > 0) {
            tokens = Math.min(burstBytes, tokens + elapsed * (bytesPerSecond / 1e9));
            updatedNanos = nowNanos;
        }
    }
}
