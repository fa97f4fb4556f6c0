package io.conduit.gateway.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * The gateway launcher ({@code bin/conduit-gateway}): starts an embedded OSGi framework (Apache Felix, found with
 * {@link ServiceLoader} as the OSGi core specification's {@link FrameworkFactory}), installs and starts every bundle
 * of {@code <home>/bundles}, lets Felix FileInstall feed {@code <home>/conf} to Configuration Admin, prints one banner
 * (the selected transport and why, then every listening endpoint and every configuration problem), and runs until
 * the framework stops (Ctrl-C or SIGTERM; {@code exit 0} or Ctrl-D in the shell). With {@code --no-shell} it exits
 * with status {@value #EXIT_NO_TRANSPORT} right after the banner when no transport can be selected at start-up, and
 * with status {@value #EXIT_HOME_IN_USE} before starting anything when another gateway runs on the same home
 * ({@link HomeLock}: a lock on {@code <home>/data/gateway.lock}, held for the life of the process).
 *
 * <p>Options: {@code --no-shell} (no interactive Gogo shell; the default when standard input is not a terminal,
 * whatever standard output is), {@code --shell} (the shell also on standard input that is not a terminal: it reads
 * the input as a script, line by line, on a dumb terminal of the launcher's ({@link ScriptTerminal}), without prompts;
 * {@code exit N} ends the gateway at once with status N, {@code exit} with a bad argument with status 2, and the end
 * of the input ends it with status 0, as Ctrl-D does),
 * {@code --conf DIR} (configuration directory instead of {@code <home>/conf}), {@code --help}. The home directory is
 * the system property {@code conduit.gateway.home}, which the script sets; without it, the parent of the directory
 * holding the launcher's jar.
 *
 * <p>The parts: {@link Options} (command line and system properties), {@link HomeLock}, {@link FrameworkBoot}
 * (framework properties, bundles, start levels), {@link Banner} with {@link Startup} (what the framework's services
 * show), {@link InteractiveShell} (started after the banner, stopped before the framework) with
 * {@link TerminationSignals} and, on a script, {@link ScriptTerminal}, {@link LogFormat} (one line per log record),
 * {@link ShutdownLogManager} (log handlers open until the framework has stopped),
 * {@link TerminalSize}. The launcher reads
 * the gateway bundle through the service and property names of {@link io.conduit.gateway.services.GatewayServices}
 * only.
 *
 * <p>Lives in the gateway jar, which is also a bundle: inside the framework this package is never loaded.
 */
public final class Main {

    /** Exit status of {@code --no-shell} when no transport can be selected at start-up: nothing can ever listen. */
    static final int EXIT_NO_TRANSPORT = 2;
    /**
     * Exit status when the home cannot be used: another gateway runs on it ({@link HomeLock}), or it is not writable;
     * the same as for a missing {@code bundles/} or configuration directory.
     */
    static final int EXIT_HOME_IN_USE = 2;
    /** Exit status when the launcher or the framework failed with an exception ({@link #guarded}). */
    static final int EXIT_START_FAILED = 1;

    private final Path home;
    private final Path conf;
    private final boolean shell;
    private final long bannerTimeoutMillis;
    private final PrintStream out;
    /** The status {@code exit N} in the shell asked for (through the exit services); 0 otherwise. */
    private volatile int exitStatus;
    /**
     * The output of the shell on a script ({@link ScriptTerminal}), which {@code exit} ends; {@code null} without a
     * script. Set before {@link #run}.
     */
    private ScriptTerminal.ScriptOutput scriptOutput;

    Main(Path home, Path conf, boolean shell, long bannerTimeoutMillis, PrintStream out) {
        this.home = home;
        this.conf = conf;
        this.shell = shell;
        this.bannerTimeoutMillis = bannerTimeoutMillis;
        this.out = out;
    }

    /**
     * Entry point.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) throws Exception {
        // One line per log record (before java.util.logging initialises), for System.Logger output of the bundles.
        LogFormat.useOneLineFormat();
        // Handlers that stay open until the shutdown hook has stopped the framework (ShutdownLogManager), so a
        // signal loses none of the lines the bundles log while they stop.
        LogFormat.useShutdownLogManager();
        boolean stdinIsTerminal = Options.stdinIsTerminal();
        Options options = Options.parse(args, stdinIsTerminal);
        boolean script = options.shell() && !stdinIsTerminal;
        Options.useDumbTerminal(script);
        boolean shell = options.shell();
        Path conf = options.conf();
        long timeout = 0;
        try {
            timeout = Options.bannerTimeoutMillis(System.getProperty(Options.BANNER_TIMEOUT_PROPERTY));
        } catch (IllegalArgumentException e) {
            System.err.println("conduit-gateway: " + e.getMessage());
            System.exit(2);
        }
        Path home = Options.home();
        if (!Files.isDirectory(home.resolve("bundles"))) {
            System.err.println("conduit-gateway: " + home.resolve("bundles") + " does not exist: the home directory "
                    + home + " (conduit.gateway.home) must hold the distribution's bundles/ (and conf/, unless --conf "
                    + "names another one)");
            System.exit(2);
        }
        // One gateway per home (they would share data/felix-cache and the configured ports): before anything uses it.
        try {
            HomeLock lock = HomeLock.acquire(home);
            if (lock.warning() != null) {
                System.err.println("conduit-gateway: " + lock.warning());
            }
        } catch (HomeLock.InUse e) {
            System.err.println("conduit-gateway: " + e.getMessage());
            System.exit(EXIT_HOME_IN_USE);
        } catch (IOException e) {
            System.err.println("conduit-gateway: cannot open " + home.resolve("data").resolve(HomeLock.FILE_NAME)
                    + " (" + e + "): the home directory " + home + " must be writable (data/ holds the framework's "
                    + "cache), or use another home with JAVA_OPTS=-Dconduit.gateway.home=DIR");
            System.exit(EXIT_HOME_IN_USE);
        }
        if (conf == null) {
            conf = home.resolve("conf");
        }
        if (!Files.isDirectory(conf)) {
            System.err.println("conduit-gateway: configuration directory " + conf + (Files.exists(conf)
                    ? " is not a directory: give --conf the directory that holds the .cfg files"
                    : " does not exist: create it, or give --conf an existing directory"));
            System.exit(2);
        }
        Main main = new Main(home, conf.toAbsolutePath().normalize(), shell, timeout, System.out);
        if (script) {
            main.scriptOutput = ScriptTerminal.ScriptOutput.standardOutput();
        }
        System.exit(guarded(main::run, System.err));
    }

    /**
     * Runs the gateway and turns an exception into {@link #EXIT_START_FAILED}. Without this, an exception thrown after
     * the framework started would end only the main thread: the framework's threads would keep the JVM running with
     * nothing listening (seen on an emulated 32-bit JVM whose listing of {@code bundles/} failed). The caller's
     * {@code System.exit} runs the shutdown hook, which stops the framework.
     *
     * @param run the gateway's run, returning its exit status
     * @param err where the one line and the stack trace go
     * @return the status of {@code run}, or {@link #EXIT_START_FAILED} when it threw
     */
    static int guarded(java.util.concurrent.Callable<Integer> run, PrintStream err) {
        try {
            return run.call();
        } catch (Exception | LinkageError | AssertionError e) {
            err.println("conduit-gateway: the gateway failed and stops (exit status " + EXIT_START_FAILED + "): " + e
                    + "; the stack trace follows");
            e.printStackTrace(err);
            return EXIT_START_FAILED;
        }
    }

    /** Starts the framework, prints the banner and waits for the framework to stop; returns the exit code. */
    int run() throws Exception {
        Map<String, String> props = FrameworkBoot.properties(home, conf);
        FrameworkFactory factory = FrameworkBoot.factory();
        // A pty reporting 0x0 makes the shell's line reader spin (TerminalSize): give it a size first.
        Runnable restoreTerminal = once(shell ? TerminalSize.ensureUsable(System.err) : null);
        Framework framework = factory.newFramework(props);
        framework.init();
        // Ctrl-C, SIGTERM, or System.exit from anywhere: the main thread may never run again, so the hook also gives
        // the terminal its size back (after the shell is gone)
        // java.util.logging closes its handlers only after this hook (ShutdownLogManager)
        Thread hook = new Thread(() -> {
            try {
                FrameworkBoot.stop(framework);
                restoreTerminal.run();
            } finally {
                ShutdownLogManager.hookDone();
            }
        }, "conduit-gateway-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        ShutdownLogManager.hookRegistered(hook);
        BundleContext context = framework.getBundleContext();
        if (shell) {
            // SIGTERM, SIGHUP: the shell first, while its terminal is as it reads it (InteractiveShell)
            TerminationSignals.handle(signal -> InteractiveShell.stop(context));
        }
        FrameworkBoot.registerExitService(context, status -> {
            exitStatus = status;
            // called on a thread of the shell's exit command: the shell's session ends first (InteractiveShell),
            // then the framework stops on a thread of its own; neither waits on the caller
            Thread stop = new Thread(() -> {
                InteractiveShell.stop(context);
                try {
                    framework.stop();
                } catch (BundleException | IllegalStateException e) {
                    System.err.println("conduit-gateway: stopping the framework failed: " + e.getMessage());
                }
            }, "conduit-gateway-exit");
            stop.start();
        });
        // exit N on a script: the shell ends its session, whose end stops the framework (ShellExit); what the shell
        // prints meanwhile is dropped
        FrameworkBoot.registerExitStatusService(context, status -> {
            exitStatus = status;
            if (scriptOutput != null) {
                scriptOutput.end();
            }
        });
        // until the banner is printed it shows what listens; later a component logs each endpoint it binds
        org.osgi.framework.ServiceRegistration<Runnable> bannerPending = FrameworkBoot.registerBannerPending(context);
        FrameworkBoot.installAndStart(context, home.resolve("bundles"));
        framework.start();
        boolean noTransport = new Banner(home, conf, shell, scriptOutput != null, bannerTimeoutMillis, out)
                .print(context);
        try {
            bannerPending.unregister();
        } catch (IllegalStateException stoppedMeanwhile) {
            // the framework stopped while the banner waited
        }
        if (noTransport && !shell) {
            // Nothing can ever listen: the network is only made at start-up. In the shell the user may still look
            // around (conduit:transports, conduit:diag) before leaving.
            System.err.println("conduit-gateway: no transport can be selected, so nothing can listen: exiting with "
                    + "status " + EXIT_NO_TRANSPORT + " (fix what the banner names and start again)");
            FrameworkBoot.stop(framework);
            return EXIT_NO_TRANSPORT;
        }
        if (shell) {
            if (scriptOutput != null) {
                ScriptTerminal.install(context, ScriptTerminal.ScriptInput.standardInput(scriptOutput), scriptOutput,
                        System.err);
            }
            InteractiveShell.start(context, System.err); // its first prompt follows the banner
        }
        try {
            framework.waitForStop(0);
        } finally {
            restoreTerminal.run(); // after the shell is gone, so it never sees the old size again
        }
        return exitStatus;
    }

    /** @return a runnable that runs {@code r} at most once, whoever calls it first; {@code null} runs nothing */
    private static Runnable once(Runnable r) {
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            if (r != null && done.compareAndSet(false, true)) {
                r.run();
            }
        };
    }
}
