package io.conduit.gateway.launcher;

import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The gateway's log lines: one line per record, {@code 2026-01-02 03:04:05 LEVEL logger: message}, for the bundles'
 * {@code System.Logger} output (through java.util.logging's {@code SimpleFormatter}) and for FileInstall's records.
 */
final class LogFormat {

    /** java.util.logging's {@code SimpleFormatter} format property. */
    static final String SIMPLE_FORMAT_PROPERTY = "java.util.logging.SimpleFormatter.format";
    /** The one-line format of {@link #SIMPLE_FORMAT_PROPERTY}. */
    static final String SIMPLE_FORMAT = "%1$tF %1$tT %4$s %3$s: %5$s%6$s%n";

    /** The system property that names java.util.logging's LogManager class. */
    static final String MANAGER_PROPERTY = "java.util.logging.manager";
    /**
     * {@link ShutdownLogManager}'s name, as a string: any use of that class initialises java.util.logging, which
     * reads {@link #MANAGER_PROPERTY} only then.
     */
    static final String SHUTDOWN_LOG_MANAGER = "io.conduit.gateway.launcher.ShutdownLogManager";

    private LogFormat() {
    }

    /**
     * Names {@link ShutdownLogManager} as the LogManager, unless the user named another one, and makes
     * java.util.logging initialise now, with the root logger's handlers: once the JVM shuts down, the JDK no longer
     * creates them. Call before java.util.logging initialises (after {@link #useOneLineFormat()}).
     *
     * @return whether java.util.logging uses {@link ShutdownLogManager}
     */
    static boolean useShutdownLogManager() {
        if (System.getProperty(MANAGER_PROPERTY) == null) {
            System.setProperty(MANAGER_PROPERTY, SHUTDOWN_LOG_MANAGER);
        }
        Logger.getLogger("").getHandlers();
        return java.util.logging.LogManager.getLogManager().getClass().getName().equals(SHUTDOWN_LOG_MANAGER);
    }

    /** Sets the one-line format unless the user chose one; call before java.util.logging initialises. */
    static void useOneLineFormat() {
        if (System.getProperty(SIMPLE_FORMAT_PROPERTY) == null) {
            System.setProperty(SIMPLE_FORMAT_PROPERTY, SIMPLE_FORMAT);
        }
    }

    /**
     * Makes {@code logger} print each record on one line on standard error, in the format of the gateway's other log
     * lines, with the innermost cause of a throwable instead of its stack trace.
     */
    static void oneLineLog(Logger logger) {
        ConsoleHandler handler = new ConsoleHandler();
        handler.setFormatter(new OneLineFormatter());
        logger.setUseParentHandlers(false);
        for (Handler h : logger.getHandlers()) {
            logger.removeHandler(h);
        }
        logger.addHandler(handler);
    }

    /** {@code 2026-01-02 03:04:05 SEVERE fileinstall: Failed to install artifact: …: java.lang.…Exception: …}. */
    static final class OneLineFormatter extends Formatter {
        @Override
        public String format(LogRecord r) {
            Throwable root = r.getThrown();
            while (root != null && root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return String.format(Locale.ROOT, "%1$tF %1$tT %2$s %3$s: %4$s%5$s%n",
                    ZonedDateTime.ofInstant(r.getInstant(), ZoneId.systemDefault()),
                    r.getLevel().getName(), r.getLoggerName(), formatMessage(r), root == null ? "" : ": " + root);
        }
    }
}
