package io.conduit.gateway.internal.shell;

import org.apache.felix.service.command.CommandSession;
import org.jline.reader.LineReader;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;

/**
 * Gives the shell's terminal 80 columns and 24 rows when it reports 0 of either, before the first prompt.
 *
 * <p>Why: when jline cannot reach the system terminal (its exec, JNA and Jansi providers all fail, as under qemu
 * user-mode emulation, where the JRE cannot start {@code stty}) it falls back to a dumb terminal of size 0x0. The
 * jline 3.21 line reader lays its prompt out in lines of width 0 and never finishes: the shell spins at 100% CPU
 * and answers nothing, not even {@code exit 0}. The launcher's own fix ({@code TerminalSize}, {@code stty} on the
 * pty) cannot reach a terminal jline made without the pty. The session's profile is a command, so
 * {@link #afterCommand} runs before the first prompt; later commands check again, which costs one size read.
 *
 * <p>Stateless and thread-safe.
 */
final class TerminalWithoutSize implements AfterEachCommand {

    /** The classic VT100 size, as the launcher gives a pty that reports 0x0. */
    static final int COLUMNS = 80;
    static final int ROWS = 24;

    private static final String READER = ".reader";

    @Override
    public void afterCommand(CommandSession session) {
        if (session.get(READER) instanceof LineReader reader) {
            fix(reader.getTerminal());
        }
    }

    /** @return whether {@code terminal} reported 0 columns or rows and was given {@value #COLUMNS}x{@value #ROWS} */
    static boolean fix(Terminal terminal) {
        Size size = terminal.getSize();
        if (size.getColumns() > 0 && size.getRows() > 0) {
            return false;
        }
        terminal.setSize(new Size(size.getColumns() > 0 ? size.getColumns() : COLUMNS,
                size.getRows() > 0 ? size.getRows() : ROWS));
        return true;
    }
}
