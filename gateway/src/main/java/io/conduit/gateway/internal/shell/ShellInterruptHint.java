package io.conduit.gateway.internal.shell;

import java.io.PrintWriter;

import io.conduit.gateway.services.GatewayServices;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.jline.reader.LineReader;
import org.jline.terminal.Terminal;

/**
 * Tells the user of the interactive Gogo shell how to stop the gateway when they press Ctrl-C at an empty prompt.
 * Ctrl-C only interrupts the running command there (as in Karaf); the gateway stops with {@code exit 0} or Ctrl-D.
 *
 * <p>How, without changing Gogo: the shell computes its prompt before each line by calling {@code toString()} on the
 * session variable {@code prompt}. After a session's commands have run (this is a {@link CommandSessionListener},
 * so the shell's profile, which sets {@code prompt}, counts) the variable is wrapped in a {@link Prompt} that gives
 * the same text and, when the line before was ended by Ctrl-C with nothing typed, first prints {@link #HINT}. The
 * jline 3 line reader (session variable {@code .reader}) tells which: a line ended by Ctrl-C leaves no parsed line
 * ({@link LineReader#getParsedLine()} is reset when a line starts and set only when one is accepted, also an empty
 * one), and its buffer holds what was typed. A Ctrl-C that interrupted a command comes after an accepted line, so it
 * prints nothing. Sessions without a jline reader (Karaf's console, {@code bin/client -b}) are left alone.
 *
 * <p>On the launcher's script terminal ({@code --shell} with standard input that is not a terminal; the terminal named
 * {@link GatewayServices#SCRIPT_TERMINAL_NAME}) there is no prompt at all: the session's {@code prompt} is empty, its
 * right prompt (Gogo's clock) is removed, the line reader's fresh-line widget (which pads a line with spaces) is off,
 * and the profile prints no greeting. What remains besides the commands' output is jline's echo of each line.
 *
 * <p>Thread-safe: the listener keeps no state; each {@link Prompt} is used by its session's shell thread.
 */
final class ShellInterruptHint implements AfterEachCommand {

    /** The line printed after Ctrl-C at an empty prompt. */
    static final String HINT = "(Ctrl-C interrupts a running command; to stop the gateway type 'exit 0' or press Ctrl-D)";

    private static final String PROMPT = "prompt";
    private static final String RIGHT_PROMPT = "rprompt";
    /** The session variable that keeps Gogo's profile from printing its greeting. */
    private static final String QUIET = ".gosh_quiet";
    /** The prompt of a script: none. */
    static final String NO_PROMPT = "";
    private static final String READER = ".reader";

    /** Wraps the prompt once the profile has set it, and again after the user set a new one. */
    @Override
    public void afterCommand(CommandSession session) {
        wrapPrompt(session);
    }

    /** On a script, before the profile: no greeting (Gogo's profile prints none while {@code .gosh_quiet} is set). */
    @Override
    public void beforeExecute(CommandSession session, CharSequence command) {
        if (session.get(READER) instanceof LineReader r && isScript(r.getTerminal())) {
            session.put(QUIET, Boolean.TRUE);
        }
    }

    /**
     * Wraps the session's prompt (again after the user set a new one) when the session has a jline reader; on a
     * script, removes the prompts instead.
     */
    static void wrapPrompt(CommandSession session) {
        Object reader = session.get(READER);
        if (reader instanceof LineReader r && isScript(r.getTerminal())) {
            session.put(PROMPT, NO_PROMPT);
            session.put(RIGHT_PROMPT, null);
            session.put("#" + RIGHT_PROMPT, null); // Gogo's profile sets the clock as a function of this name
            r.unsetOpt(LineReader.Option.AUTO_FRESH_LINE);
            return;
        }
        Object prompt = session.get(PROMPT);
        if (reader instanceof LineReader r && prompt != null && !(prompt instanceof Prompt)) {
            session.put(PROMPT, new Prompt(prompt, r));
        }
    }

    /** @return whether {@code terminal} is the launcher's terminal of a script */
    static boolean isScript(Terminal terminal) {
        return terminal != null && GatewayServices.SCRIPT_TERMINAL_NAME.equals(terminal.getName());
    }

    /** A prompt that prints {@link #HINT} before itself after a Ctrl-C at an empty prompt. */
    static final class Prompt {
        private final Object prompt;
        private final LineReader reader;
        /** Whether a line was read with this prompt before (the first prompt follows no line). */
        private boolean shownBefore;

        Prompt(Object prompt, LineReader reader) {
            this.prompt = prompt;
            this.reader = reader;
        }

        /** @return the wrapped prompt's text; prints the hint first when the last line ended in Ctrl-C, empty */
        @Override
        public String toString() {
            if (shownBefore && reader.getParsedLine() == null && reader.getBuffer().length() == 0) {
                PrintWriter w = reader.getTerminal().writer();
                w.println(HINT);
                w.flush();
            }
            shownBefore = true;
            return prompt.toString();
        }
    }
}
