package io.conduit.gateway.launcher;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The interactive Gogo shell's bundle ({@value #BUNDLE}, Felix Gogo jline 1.1), which the launcher starts and stops
 * itself rather than with the framework:
 *
 * <ul>
 *   <li><b>Started after the banner.</b> The bundle's activator starts the shell thread, which prints the first prompt
 *       at once. Started with the other bundles, that prompt came before the banner, which waits for the
 *       configurations, and no prompt followed its {@code Ready:} line.</li>
 *   <li><b>Its session ended before the framework stops.</b> The shell thread reads the terminal in jline's raw mode,
 *       one read of at most 0.1 s after another ({@code VMIN=0, VTIME=1}), and checks for an interrupt between two.
 *       The activator's stop sets the shell's stop flag, closes the terminal (which puts the terminal's own settings
 *       back: {@code VMIN=1}), then interrupts the thread. A read that starts after the settings are back waits for a
 *       key and sees no interrupt: the activator gives up after 5 s with {@code !!! FAILED TO STOP EXECUTOR !!!},
 *       and the terminal keeps jline's raw settings. On SIGTERM after a few commands this was the rule, as jline's
 *       own shutdown hook closes the terminal while the launcher's hook is still stopping the gateway. So the
 *       launcher first ends the session the way the activator does, but before the terminal is closed: once the
 *       shell thread ({@value #SHELL_THREAD}) waits for a key, the shell service's {@code stop()} and one interrupt,
 *       which ends the line reader within one read; then it stops the bundle, which closes the terminal and finds the
 *       thread gone. A shell running a command is left to the bundle's stop.</li>
 * </ul>
 *
 * <p>The names used ({@value #SHELL_SERVICE}'s {@code stop()}, the thread name, jline's classes on the thread's
 * stack) are those of Gogo jline 1.1 with jline 3.21; with versions that lack them, the bundle is stopped as before.
 *
 * <p>Stateless; called by the launcher's main thread, its exit service's thread or its signal handler.
 */
final class InteractiveShell {

    /** The jline shell bundle: installed with the others, started by {@link #start}. */
    static final String BUNDLE = "org.apache.felix.gogo.jline";
    /** The class name the shell is registered under (as a Gogo command object, scope {@code gogo}). */
    static final String SHELL_SERVICE = "org.apache.felix.gogo.jline.Shell";
    /** The name of the thread that runs the shell's session. */
    static final String SHELL_THREAD = "Gogo shell";
    /** The class of jline's line reader that reads keys; a shell thread waiting for a key is in its readCharacter. */
    static final String KEY_READER = "org.jline.keymap.BindingReader";
    /** The class jline runs {@code stty} with, waiting for it. */
    static final String EXEC = "org.jline.utils.ExecHelper";
    /** How long a shell thread is given to start waiting for a key, in milliseconds. */
    static final long SETTLE_MILLIS = 300;
    /** How long the shell thread is given to end after an interrupt before it is looked at again, in milliseconds. */
    static final long RECHECK_MILLIS = 250;
    /** How long the shell thread may take to leave its line reader once told to stop, in milliseconds. */
    static final long END_MILLIS = 1_000;

    private InteractiveShell() {
    }

    /**
     * Starts the shell bundle; a shell that cannot start is one line on {@code err} (the gateway runs on).
     *
     * @param context the system bundle's context
     */
    static void start(BundleContext context, PrintStream err) {
        Bundle b = bundle(context);
        if (b == null) {
            err.println("conduit-gateway: no interactive shell: " + BUNDLE + " is not installed (is it in bundles/?)");
            return;
        }
        try {
            b.start(Bundle.START_TRANSIENT);
        } catch (BundleException | IllegalStateException e) {
            err.println("conduit-gateway: bundle " + BUNDLE + " did not start: " + e.getMessage());
        }
    }

    /**
     * Ends the shell's session (see the class comment) and stops the shell bundle; nothing when it is not running.
     * Returns within about {@value #SETTLE_MILLIS} + {@value #END_MILLIS} ms unless the bundle's own stop takes
     * longer.
     *
     * @param context the system bundle's context
     */
    static void stop(BundleContext context) {
        Bundle b;
        try {
            b = bundle(context);
        } catch (IllegalStateException frameworkGone) {
            return;
        }
        if (b == null || (b.getState() & (Bundle.ACTIVE | Bundle.STARTING)) == 0) {
            return;
        }
        List<Thread> shells = shellThreads();
        if (!shells.isEmpty() && awaitWaitingForKey(shells) && markStopping(context, b)) {
            endSessionThreads(shells);
        }
        try {
            b.stop(Bundle.STOP_TRANSIENT);
        } catch (BundleException | IllegalStateException e) {
            // stopped meanwhile, or the framework is stopping it: the framework's stop covers it
        }
    }

    /** @return the jline shell bundle, or {@code null} when it is not installed */
    private static Bundle bundle(BundleContext context) {
        for (Bundle b : context.getBundles()) {
            if (BUNDLE.equals(b.getSymbolicName())) {
                return b;
            }
        }
        return null;
    }

    /**
     * Calls {@code stop()} of the shell service(s) of bundle {@code b}: the shell leaves its loop at its next turn.
     *
     * @return whether a shell was told to stop
     */
    private static boolean markStopping(BundleContext context, Bundle b) {
        ServiceReference<?>[] refs;
        try {
            refs = context.getAllServiceReferences(SHELL_SERVICE, null);
        } catch (InvalidSyntaxException impossible) {
            throw new AssertionError(impossible);
        } catch (IllegalStateException frameworkGone) {
            return false;
        }
        boolean told = false;
        for (ServiceReference<?> r : refs == null ? new ServiceReference<?>[0] : refs) {
            if (r.getBundle() == null || r.getBundle().getBundleId() != b.getBundleId()) {
                continue;
            }
            Object shell = context.getService(r);
            if (shell == null) {
                continue;
            }
            try {
                Method stop = shell.getClass().getMethod("stop");
                stop.invoke(shell);
                told = true;
            } catch (ReflectiveOperationException | RuntimeException otherVersion) {
                // not Gogo jline 1.1's shell: the bundle's own stop ends it
            } finally {
                try {
                    context.ungetService(r);
                } catch (IllegalStateException frameworkGone) {
                    // nothing to give back
                }
            }
        }
        return told;
    }

    /** @return the threads running the shell's session, by their name */
    private static List<Thread> shellThreads() {
        List<Thread> threads = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (SHELL_THREAD.equals(t.getName())) {
                threads.add(t);
            }
        }
        return threads;
    }

    /**
     * Waits at most {@value #SETTLE_MILLIS} ms until every one of {@code threads} waits for a key (a shell that has
     * just printed its prompt may still be running {@code stty}).
     *
     * @return whether they all do; {@code false} when one runs a command, which the bundle's own stop interrupts
     */
    private static boolean awaitWaitingForKey(List<Thread> threads) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
        try {
            while (!threads.stream().allMatch(t -> waitingForKey(t.getStackTrace()))) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                Thread.sleep(10);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * @return whether a thread with this stack waits for a key in jline's line reader ({@value #KEY_READER}
     *         {@code .readCharacter}), where an interrupt ends the line reader; not one running a command (an
     *         interrupt would end the command's wait with a stack trace) or running {@code stty} ({@value #EXEC}: an
     *         interrupt of that wait is an {@code IOError} the shell prints)
     */
    static boolean waitingForKey(StackTraceElement[] stack) {
        boolean readingKey = false;
        for (StackTraceElement frame : stack) {
            if (frame.getClassName().equals(EXEC)) {
                return false;
            }
            readingKey |= frame.getClassName().equals(KEY_READER) && frame.getMethodName().equals("readCharacter");
        }
        return readingKey;
    }

    /**
     * Interrupts each shell thread and waits for it to end, at most {@value #END_MILLIS} ms in all: the interrupt ends
     * the line reader (jline reports it as a user interrupt) and the shell, told to stop, leaves its loop. Interrupted
     * once more only while it still waits for a key after {@value #RECHECK_MILLIS} ms (an interrupt lost): the line
     * reader's cleanup runs {@code stty}, which an interrupt would break.
     */
    private static void endSessionThreads(List<Thread> threads) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(END_MILLIS);
        try {
            for (Thread t : threads) {
                while (t.isAlive() && System.nanoTime() - deadline < 0) {
                    if (waitingForKey(t.getStackTrace())) {
                        t.interrupt();
                    }
                    t.join(RECHECK_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
