package io.conduit.gateway.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects the messages logged on the gateway's logger ({@code io.conduit.gateway}; {@code System.Logger} goes to
 * java.util.logging in tests) while it is open.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger = Logger.getLogger("io.conduit.gateway");
    private final List<String> messages = new CopyOnWriteArrayList<>();

    public LogCapture() {
        logger.addHandler(this);
    }

    /** @return the messages logged so far, in order */
    public List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void publish(LogRecord r) {
        messages.add(r.getLevel() + " " + r.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
