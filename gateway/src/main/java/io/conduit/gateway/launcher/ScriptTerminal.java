package io.conduit.gateway.launcher;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The terminal of the shell on a script ({@code --shell} with standard input that is not a terminal): a jline dumb
 * terminal the launcher makes itself and hands to jline as the terminal its builder returns
 * ({@code TerminalBuilder.setTerminalOverride}), before the Gogo jline bundle asks for the system terminal.
 *
 * <p>Why the launcher chooses: left to jline, the shell's terminal depended on {@code org.jline.terminal.dumb}. With
 * {@code -Dorg.jline.terminal.dumb=false} jline found no system terminal on a pipe, the shell never started, and the
 * gateway waited for a script nobody read. And jline's dumb terminal reads file descriptor 0 as it is: a last line
 * without a line end reached the line reader as an unfinished line at the end of the input, which Gogo drops, so
 * {@code printf 'exit 4'} ended the gateway with status 0.
 *
 * <p>The terminal's type is {@code dumb}, named {@value #NAME}. Its input ({@link ScriptInput}) is standard input with
 * a line end added after a last line that lacks one. Its output ({@link ScriptOutput}) is standard output until the
 * script ends: at the end of the input or at {@code exit}; after that it is dropped, so what Gogo prints while its
 * session ends (an {@code exit} that cut its line short, {@code gosh: stopping framework}) never reaches the user.
 *
 * <p>Uses jline 3.21's classes by name, through the jline bundle ({@value #JLINE_BUNDLE}), as the launcher never links
 * to a bundle's classes. Stateless apart from the streams; called by the launcher's main thread.
 */
final class ScriptTerminal {

    /** Symbolic name of the jline bundle, whose classes the Gogo jline bundle uses. */
    static final String JLINE_BUNDLE = "org.jline";
    /** The terminal's name; the gateway bundle knows a script's session by it (no prompt). */
    static final String NAME = io.conduit.gateway.services.GatewayServices.SCRIPT_TERMINAL_NAME;

    private ScriptTerminal() {
    }

    /**
     * Makes the dumb terminal on {@code in} and {@code out} and sets it as jline's terminal override.
     *
     * @param context the system bundle's context
     * @param err     where a failure goes, one line
     * @return whether the terminal is set; when not, jline makes its own dumb terminal
     *         ({@link Options#useDumbTerminal})
     */
    static boolean install(BundleContext context, InputStream in, OutputStream out, PrintStream err) {
        Bundle jline = null;
        for (Bundle b : context.getBundles()) {
            if (JLINE_BUNDLE.equals(b.getSymbolicName())) {
                jline = b;
            }
        }
        if (jline == null) {
            return false; // no shell either: InteractiveShell says so
        }
        try {
            Class<?> terminal = jline.loadClass("org.jline.terminal.Terminal");
            Class<?> dumb = jline.loadClass("org.jline.terminal.impl.DumbTerminal");
            Object t = dumb.getConstructor(String.class, String.class, InputStream.class, OutputStream.class,
                    Charset.class).newInstance(NAME, "dumb", in, out, Charset.defaultCharset());
            jline.loadClass("org.jline.terminal.TerminalBuilder").getMethod("setTerminalOverride", terminal)
                    .invoke(null, t);
            return true;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException otherJline) {
            err.println("conduit-gateway: the shell reads the script on jline's own dumb terminal (" + otherJline
                    + "): a last line needs a line end");
            return false;
        }
    }

    /**
     * Standard input (file descriptor 0, as jline reads it) with a line end after a last line that lacks one, so the
     * line reader gets it as a whole line; at the end of the input it ends {@code output}. Used by one thread, jline's
     * reader.
     */
    static final class ScriptInput extends InputStream {
        private final InputStream in;
        private final ScriptOutput output;
        /** The last byte given out; a line end at first, so an empty input stays empty. */
        private int last = '\n';

        ScriptInput(InputStream in, ScriptOutput output) {
            this.in = in;
            this.output = output;
        }

        /** @return standard input, ending {@code output} at its end */
        static ScriptInput standardInput(ScriptOutput output) {
            return new ScriptInput(new FileInputStream(FileDescriptor.in), output);
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b < 0) {
                return end();
            }
            last = b;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            int n = in.read(b, off, len);
            if (n < 0) {
                int c = end();
                if (c < 0) {
                    return -1;
                }
                b[off] = (byte) c;
                return 1;
            }
            if (n > 0) {
                last = b[off + n - 1] & 0xff;
            }
            return n;
        }

        /** @return a line end when the last line lacks one, else -1 (and the output ends) */
        private int end() {
            if (last != '\n') {
                last = '\n';
                return '\n';
            }
            if (output != null) {
                output.end();
            }
            return -1;
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /**
     * Standard output (file descriptor 1, as jline writes it) until {@link #end()}, then nothing. Thread-safe: the
     * shell's threads write, the launcher's exit status service ends it.
     */
    static final class ScriptOutput extends OutputStream {
        private final OutputStream out;
        /** Whether the script has ended; guarded by this. */
        private boolean ended;

        ScriptOutput(OutputStream out) {
            this.out = out;
        }

        /** @return standard output */
        static ScriptOutput standardOutput() {
            return new ScriptOutput(new FileOutputStream(FileDescriptor.out));
        }

        @Override
        public synchronized void write(int b) throws IOException {
            if (!ended) {
                out.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (!ended) {
                out.write(b, off, len);
            }
        }

        @Override
        public synchronized void flush() throws IOException {
            if (!ended) {
                out.flush();
            }
        }

        /** Drops everything written from now on; what was written before stays. */
        synchronized void end() {
            if (!ended) {
                try {
                    out.flush();
                } catch (IOException gone) {
                    // standard output is closed: nothing to keep
                }
                ended = true;
            }
        }

        /** Standard output stays open for the launcher. */
        @Override
        public void close() {
            end();
        }
    }
}
