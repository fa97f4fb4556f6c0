package io.conduit.gateway.internal.shell;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.Collection;
import java.util.List;
import java.util.function.IntConsumer;

import io.conduit.gateway.services.GatewayServices;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Function;
import org.jline.reader.LineReader;
import org.jline.terminal.Terminal;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * {@code exit [STATUS]} in the gateway's interactive Gogo shell: stops the gateway with that exit status (default 0)
 * the way Ctrl-D does, through the launcher.
 *
 * <p>Why: Gogo's own {@code exit} is {@code System.exit} (its profile adds the methods of {@code java.lang.System} as
 * commands), called on a thread of the shell's command. The JVM then runs the launcher's shutdown hook, which stops
 * the framework; stopping the jline shell bundle interrupts the shell thread that waits for the command, and the
 * shell prints that {@code java.lang.InterruptedException}. And the launcher's main thread, which gives a terminal
 * its old size back after the shell is gone, never gets to run again. This function asks the launcher instead: it
 * waits until the shell reads its next line, then calls the launcher's {@link IntConsumer} service (property {@value #EXIT_PROPERTY}{@code =true}, registered by
 * {@code io.conduit.gateway.launcher.Main} in the system bundle's context), which records the status and stops the
 * framework (asynchronously, as {@code Framework.stop} does); the launcher then restores the terminal and exits with
 * the status.
 *
 * <p>How it takes over {@code exit}: Gogo runs a session variable that holds a {@link Function} before it looks for a
 * command of that name, so after each command of an interactive (jline) session this listener puts itself in the
 * variables {@code exit} and {@code system:exit} (the name {@code help} lists for {@code System.exit}), unless it is
 * there already or the user put something else there (one left by an earlier start of the gateway bundle is
 * replaced). Sessions without a jline
 * reader (Karaf, {@code bin/client -b}) and frameworks without the launcher's service are left alone.
 *
 * <p>On a dumb terminal (the launcher's {@code --shell} with standard input on a pipe or a file, which the shell reads
 * as a script) waiting for the next prompt is wrong: the shell reads and runs the next line meanwhile, and at the
 * end of the input its session ends and stops the framework before the status reaches the launcher, so
 * {@code printf 'conduit:gateway\nexit 3\n' | conduit-gateway --shell} exited with 0. There, {@code exit} hands the
 * status to the launcher's exit status service ({@value #EXIT_STATUS_PROPERTY}{@code =true}), which stops nothing,
 * and calls {@code stop()} of the Gogo jline shell ({@value #SHELL_SERVICE}): the shell checks that flag before it
 * reads another line, so no later line runs, its session ends as at the end of the input, and that stops the
 * framework (Gogo's {@code gosh: stopping framework}). The gateway then exits with the status at once, whatever
 * follows in the input. As Gogo runs the statements of one line ({@code exit 3; conduit:status}) one after another,
 * {@code exit} then throws {@link ScriptEnd}, the only way to end the line; the launcher drops what the shell prints
 * after {@code exit}, so it is not seen.
 *
 * <p>A bad argument ({@code exit foo}, {@code exit 256}, {@code exit 1 2}) is one line on the command's error stream
 * (on a script, the process's standard error), such as {@code exit: 'foo' is not a number from 0 to 255}. On a
 * script it then ends the gateway with status
 * {@value #BAD_ARGUMENT_STATUS}, as a POSIX shell ends a script; at a terminal the shell stays, so a typo at the prompt
 * does not stop the gateway.
 *
 * <p>Thread-safe: stateless apart from the bundle context.
 */
final class ShellExit implements AfterEachCommand, Function {

    /** Service property of the launcher's exit service. */
    static final String EXIT_PROPERTY = GatewayServices.EXIT_SERVICE_PROPERTY;
    /** Service property of the launcher's exit status service, which records the status only. */
    static final String EXIT_STATUS_PROPERTY = GatewayServices.EXIT_STATUS_SERVICE_PROPERTY;
    /** The class name the Gogo jline shell is registered under; its {@code stop()} ends the session's loop. */
    static final String SHELL_SERVICE = "org.apache.felix.gogo.jline.Shell";
    private static final String TERMINAL = ".terminal";

    /**
     * The session variables this function goes into: {@code exit}, and {@code system:exit}, the name {@code help}
     * lists for Gogo's {@code System.exit} (a variable of that name comes before the command of that name).
     */
    static final List<String> VARIABLES = List.of("exit", "system:exit");
    private static final String READER = ".reader";
    private static final String FILTER = "(" + EXIT_PROPERTY + "=true)";
    private static final String STATUS_FILTER = "(" + EXIT_STATUS_PROPERTY + "=true)";
    /** The status a script ends with after {@code exit} with a bad argument, as a POSIX shell's script does. */
    static final int BAD_ARGUMENT_STATUS = 2;
    /**
     * The process's standard error, for the line about a bad argument on a script: the session's error stream is the
     * script's terminal, which writes to standard output. Never closed.
     */
    private static final PrintStream STANDARD_ERROR = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
    /** Longest wait for the shell to be back at its prompt before the framework is stopped, in milliseconds. */
    private static final long PROMPT_WAIT_MILLIS = 2_000;

    private final BundleContext context;

    /** @param context this bundle's context, to find the launcher's exit service */
    ShellExit(BundleContext context) {
        this.context = context;
    }

    /** Puts this function into the session's {@code exit} and {@code system:exit} variables (see the class comment). */
    @Override
    public void afterCommand(CommandSession session) {
        if (!(session.get(READER) instanceof LineReader)) {
            return;
        }
        for (String name : VARIABLES) {
            Object current = variable(session, name);
            boolean ours = current == this;
            // one of an earlier start of this bundle (its context is gone): replace it
            boolean stale = !ours && current != null
                    && current.getClass().getName().equals(ShellExit.class.getName());
            if ((current == null || stale) && !launcher().isEmpty()) {
                session.put(name, this);
            }
        }
    }

    /**
     * @return the session variable {@code name}, or {@code null} when there is none: {@code session.get} of a name
     *         with a scope ({@code system:exit}) gives the command of that name when no variable has it, so the
     *         variable names ({@code .variables}) are asked first
     */
    private static Object variable(CommandSession session, String name) {
        Object names = session.get(".variables");
        if (names instanceof Collection<?> c && !c.contains(name)) {
            return null;
        }
        return session.get(name);
    }

    /**
     * {@code exit} or {@code exit STATUS}.
     *
     * @return nothing; the gateway stops once the shell is back at its prompt
     * @throws ScriptEnd on a script (a dumb terminal, see the class comment), once the status is handed over: it ends
     *                   the command line, so nothing after {@code exit} on that line runs either
     * @throws IllegalStateException when the launcher's exit service is gone
     */
    @Override
    public Object execute(CommandSession session, List<Object> arguments) {
        boolean script = isDumb(session.get(TERMINAL));
        int status;
        try {
            status = status(arguments);
        } catch (IllegalArgumentException bad) {
            // one line, no stack trace; a script ends with status 2 as a POSIX shell's script does, and says why on
            // standard error as such a script does
            (script ? STANDARD_ERROR : System.err).println(bad.getMessage());
            if (script && endScript(BAD_ARGUMENT_STATUS)) {
                throw new ScriptEnd(BAD_ARGUMENT_STATUS);
            }
            return null;
        }
        if (launcher().isEmpty()) {
            throw new IllegalStateException("the gateway launcher is not there to stop the gateway; stop it with "
                    + "Ctrl-D");
        }
        if (script && endScript(status)) {
            throw new ScriptEnd(status);
        }
        Object reader = session.get(READER);
        Thread stopper = new Thread(() -> {
            awaitPrompt(reader);
            stop(status);
        }, "conduit-gateway-exit");
        stopper.setDaemon(true);
        stopper.start();
        return null;
    }

    /**
     * Ends the command line of a script after {@code exit}: Gogo runs the statements of a line one after another and
     * stops only at an exception. The launcher drops what the shell prints from the end of the script on, so this one
     * is never seen there. No stack trace.
     */
    static final class ScriptEnd extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ScriptEnd(int status) {
            super("exit " + status + ": the script ends here", null, false, false);
        }
    }

    /**
     * Waits (at most {@value #PROMPT_WAIT_MILLIS} ms) until the shell reads its next line: stopping the framework
     * stops the shell by closing its terminal and interrupting its thread, which ends the line reader quietly, while
     * a thread still finishing this command would print the interruption.
     */
    private static void awaitPrompt(Object reader) {
        if (!(reader instanceof LineReader r)) {
            return;
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(PROMPT_WAIT_MILLIS);
        try {
            while (!r.isReading() && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @return whether {@code terminal} is a jline dumb terminal ({@code dumb}, {@code dumb-color}): no line editing,
     *         input read as it comes, as on a pipe
     */
    static boolean isDumb(Object terminal) {
        return terminal instanceof Terminal t
                && (Terminal.TYPE_DUMB.equals(t.getType()) || Terminal.TYPE_DUMB_COLOR.equals(t.getType()));
    }

    /**
     * Hands {@code status} to the launcher's exit status service and tells the Gogo jline shell to stop, which ends
     * its session before it reads another line (see the class comment).
     *
     * @return whether both were there; {@code false} leaves the shell running and nothing recorded
     */
    private boolean endScript(int status) {
        List<Object> shells = gogoShells();
        if (shells.isEmpty() || !call(STATUS_FILTER, status)) {
            return false;
        }
        for (Object shell : shells) {
            try {
                shell.getClass().getMethod("stop").invoke(shell);
            } catch (ReflectiveOperationException | RuntimeException otherVersion) {
                return false;
            }
        }
        return true;
    }

    /** @return the Gogo jline shell objects (one per start of its bundle), found by class name */
    private List<Object> gogoShells() {
        List<Object> shells = new java.util.ArrayList<>();
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(SHELL_SERVICE, null);
            for (ServiceReference<?> r : refs == null ? new ServiceReference<?>[0] : refs) {
                Object shell = context.getService(r);
                if (shell != null) {
                    shells.add(shell);
                    context.ungetService(r); // the jline bundle holds it; only its stop() is called, at once
                }
            }
        } catch (InvalidSyntaxException impossible) {
            throw new AssertionError(impossible);
        } catch (IllegalStateException bundleStopping) {
            return List.of();
        }
        return shells;
    }

    /** Hands {@code status} to the launcher's exit service, which stops the framework. */
    private void stop(int status) {
        call(FILTER, status);
    }

    /** @return whether a launcher service matching {@code filter} took {@code status} */
    private boolean call(String filter, int status) {
        for (ServiceReference<IntConsumer> r : launcher(filter)) {
            IntConsumer exit;
            try {
                exit = context.getService(r);
            } catch (IllegalStateException bundleStopping) {
                return false;
            }
            if (exit != null) {
                try {
                    exit.accept(status);
                    return true;
                } finally {
                    try {
                        context.ungetService(r);
                    } catch (IllegalStateException bundleStopping) {
                        // the framework is stopping: nothing to give back
                    }
                }
            }
        }
        return false;
    }

    /**
     * @return the exit status of {@code exit}'s arguments: none means 0
     * @throws IllegalArgumentException one line for more than one argument or a status that is not a whole number
     *                                  from 0 to 255
     */
    static int status(List<Object> arguments) {
        if (arguments.isEmpty()) {
            return 0;
        }
        if (arguments.size() > 1) {
            throw new IllegalArgumentException("exit: too many arguments " + arguments + ": give one status, a "
                    + "number from 0 to 255");
        }
        String text = String.valueOf(arguments.get(0)).strip();
        try {
            int status = Integer.parseInt(text);
            if (status >= 0 && status <= 255) {
                return status;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("exit: '" + text + "' is not a number from 0 to 255");
    }

    private Collection<ServiceReference<IntConsumer>> launcher() {
        return launcher(FILTER);
    }

    private Collection<ServiceReference<IntConsumer>> launcher(String filter) {
        try {
            return context.getServiceReferences(IntConsumer.class, filter);
        } catch (InvalidSyntaxException impossible) {
            throw new AssertionError(impossible);
        } catch (IllegalStateException bundleStopping) {
            return List.of();
        }
    }

    @Override
    public String toString() {
        return "exit [STATUS]: stop the gateway (Conduit)";
    }
}
