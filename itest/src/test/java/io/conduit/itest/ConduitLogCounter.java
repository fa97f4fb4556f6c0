package io.conduit.itest;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts Conduit's log records of level INFO and above (JUL, where {@link System.Logger} goes by default), and those
 * with a throwable, keeping the first five of the latter. {@link #attach()} adds it to the root logger and lets the
 * {@code io.conduit} loggers through at INFO (a framework's logging set-up may pass WARNING only); {@link #detach()}
 * undoes both. Plain Java: also packaged into the Karaf torture test's echo bundle.
 */
final class ConduitLogCounter extends Handler {

    final AtomicLong lines = new AtomicLong();
    final AtomicLong withThrowable = new AtomicLong();
    final List<String> first = new CopyOnWriteArrayList<>();
    /** Held strongly while attached: JUL keeps loggers weakly, and a collected one would forget its level. */
    private final Logger conduitLog = Logger.getLogger("io.conduit");
    private Level conduitLevel;

    /** Starts counting. */
    ConduitLogCounter attach() {
        Logger.getLogger("").addHandler(this);
        conduitLevel = conduitLog.getLevel();
        conduitLog.setLevel(Level.INFO);
        return this;
    }

    /** Stops counting and restores the {@code io.conduit} logger's level. */
    void detach() {
        Logger.getLogger("").removeHandler(this);
        conduitLog.setLevel(conduitLevel);
    }

    @Override
    public void publish(LogRecord r) {
        if (r.getLoggerName() == null || !r.getLoggerName().startsWith("io.conduit")
                || r.getLevel().intValue() < Level.INFO.intValue()) {
            return;
        }
        lines.incrementAndGet();
        if (r.getThrown() != null) {
            withThrowable.incrementAndGet();
            if (first.size() < 5) {
                first.add(r.getMessage() + " / " + r.getThrown());
            }
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
