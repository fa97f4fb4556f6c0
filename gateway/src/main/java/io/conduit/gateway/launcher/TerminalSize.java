package io.conduit.gateway.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The size of the controlling terminal, read and set with {@code stty} on {@code /dev/tty} (the way jline itself
 * reads it, without native code).
 *
 * <p>Why: a pseudo-terminal can report 0 rows and 0 columns (a pty nobody gave a size: {@code docker exec -t},
 * {@code script} or {@code ssh -t} from a process without a terminal, {@code stty rows 0 cols 0}). The Gogo shell's
 * jline 3.21 line reader then lays its prompt out in lines of width 0 and never finishes: it spins at 100% CPU before
 * the first prompt appears (its {@code LineReaderImpl} wraps the prompt at the terminal width; a width of 0 never
 * advances). The launcher gives such a terminal a sane size before the shell starts and gives the old size back on
 * exit if nobody changed it meanwhile. A terminal that reports a real size is left alone.
 *
 * <p>Stateless; each call runs {@code stty} once (bounded: {@value #STTY_TIMEOUT_MILLIS} ms).
 */
final class TerminalSize {

    /** Rows and columns given to a terminal that reports 0: the classic VT100 size. */
    static final int DEFAULT_ROWS = 24;
    static final int DEFAULT_COLUMNS = 80;
    private static final long STTY_TIMEOUT_MILLIS = 5_000;
    private static final File TTY = new File("/dev/tty");

    /** Rows and columns, as {@code stty size} prints them. */
    record Size(int rows, int columns) {
        boolean usable() {
            return rows > 0 && columns > 0;
        }

        @Override
        public String toString() {
            return columns + "x" + rows;
        }
    }

    private TerminalSize() {
    }

    /** @return the controlling terminal's size, or {@code null} when there is none or {@code stty} cannot tell */
    static Size read() {
        String out = stty(List.of("stty", "size"));
        if (out == null) {
            return null;
        }
        String[] parts = out.strip().split("\\s+");
        if (parts.length != 2) {
            return null;
        }
        try {
            return new Size(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** @return whether {@code stty rows R cols C} succeeded */
    static boolean set(Size size) {
        return stty(List.of("stty", "rows", String.valueOf(size.rows()), "cols", String.valueOf(size.columns())))
                != null;
    }

    /**
     * Gives the terminal {@link #DEFAULT_COLUMNS}x{@link #DEFAULT_ROWS} when it reports 0 rows or 0 columns (a
     * dimension that is not 0 is kept), and says so on one line.
     *
     * @param log where the one line goes
     * @return what undoes it at exit (sets the old size again unless the size was changed meanwhile, e.g. by a
     *         terminal that learnt its size), or {@code null} when nothing was changed
     */
    static Runnable ensureUsable(java.io.PrintStream log) {
        Size before = read();
        if (before == null || before.usable()) {
            return null;
        }
        Size fixed = new Size(before.rows() > 0 ? before.rows() : DEFAULT_ROWS,
                before.columns() > 0 ? before.columns() : DEFAULT_COLUMNS);
        if (!set(fixed)) {
            log.println("conduit-gateway: the terminal reports a size of " + before + " and 'stty rows "
                    + fixed.rows() + " cols " + fixed.columns() + "' failed; the shell may not work (run with "
                    + "--no-shell, or give the terminal a size)");
            return null;
        }
        log.println("conduit-gateway: the terminal reports a size of " + before + "; using " + fixed
                + " for the shell (stty rows " + fixed.rows() + " cols " + fixed.columns() + ")");
        return () -> {
            if (fixed.equals(read())) {
                set(before);
            }
        };
    }

    /** Runs {@code command} with {@code /dev/tty} as standard input; @return its output, or {@code null} on failure */
    private static String stty(List<String> command) {
        if (!TTY.exists()) {
            return null;
        }
        try {
            Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(TTY))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(STTY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null; // no stty, or no controlling terminal
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
