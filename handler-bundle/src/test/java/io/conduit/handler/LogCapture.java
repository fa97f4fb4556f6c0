package io.conduit.handler;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what one java.util.logging logger (System.Logger's default backend) logs, while open. The logger's
 * level is set to ALL for the time and restored on close.
 */
public final class LogCapture extends Handler implements AutoCloseable {
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final Level oldLevel;

    public LogCapture(String loggerName) {
        logger = Logger.getLogger(loggerName);
        oldLevel = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(this);
    }

    /** @return the records so far */
    public List<LogRecord> records() {
        return records;
    }

    /** @return the messages so far */
    public List<String> lines() {
        return records.stream().map(LogRecord::getMessage).toList();
    }

    @Override
    public void publish(LogRecord r) {
        records.add(r);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setLevel(oldLevel);
    }
}
