package io.conduit.internal.transport;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A System.Logger that records every message with its level (the registry's and the configuration's loggers are
 * injectable for tests). A record logged with a throwable ends with {@code " [thrown: <throwable>]"}.
 */
public final class RecordingLogger implements System.Logger {
    public final List<String> records = new CopyOnWriteArrayList<>();

    /** @return the messages logged at WARNING, without the level */
    public List<String> warnings() {
        return at(Level.WARNING);
    }

    /** @return the messages logged at {@code level}, without the level */
    public List<String> at(Level level) {
        String prefix = level.getName() + " ";
        return records.stream().filter(r -> r.startsWith(prefix)).map(r -> r.substring(prefix.length())).toList();
    }

    @Override
    public String getName() {
        return TransportRegistry.LOGGER_NAME;
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        records.add(level.getName() + " " + msg + (thrown == null ? "" : " [thrown: " + thrown + "]"));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        records.add(level.getName() + " " + (params == null ? format : MessageFormat.format(format, params)));
    }
}
