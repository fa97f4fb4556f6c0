package io.conduit.internal.transport;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A System.Logger that records every message with its level (the registry's logger is injectable for tests). */
final class RecordingLogger implements System.Logger {
    final List<String> records = new CopyOnWriteArrayList<>();

    List<String> warnings() {
        return records.stream().filter(r -> r.startsWith("WARNING ")).map(r -> r.substring(8)).toList();
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
        records.add(level.getName() + " " + msg);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        records.add(level.getName() + " " + (params == null ? format : MessageFormat.format(format, params)));
    }
}
