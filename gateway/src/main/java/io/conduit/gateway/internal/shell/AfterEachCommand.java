package io.conduit.gateway.internal.shell;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;

/**
 * A Gogo {@link CommandSessionListener} that acts once after every command of a session, however it ended; the
 * session's profile is a command too, so {@link #afterCommand} first runs before the first prompt.
 */
interface AfterEachCommand extends CommandSessionListener {

    /** Called on the session's thread after each command. */
    void afterCommand(CommandSession session);

    @Override
    default void beforeExecute(CommandSession session, CharSequence command) {
        // nothing before a command
    }

    @Override
    default void afterExecute(CommandSession session, CharSequence command, Exception exception) {
        afterCommand(session);
    }

    @Override
    default void afterExecute(CommandSession session, CharSequence command, Object result) {
        afterCommand(session);
    }
}
