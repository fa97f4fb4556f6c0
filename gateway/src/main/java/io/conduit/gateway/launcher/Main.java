package io.conduit.gateway.launcher;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Pattern;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;

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
 * <p>Options: {@code --no-shell} (no interactive Gogo shell; also implied when standard input is not a terminal),
 * {@code --conf DIR} (configuration directory instead of {@code <home>/conf}), {@code --help}. The home directory is
 * the system property {@code conduit.gateway.home}, which the script sets; without it, the parent of the directory
 * holding the launcher's jar.
 *
 * <p>Lives in the gateway jar, which is also a bundle: inside the framework this package is never loaded.
 */
public final class Main {

    /** Service interface name of the gateway components' status services (no class of the bundle is needed). */
    static final String STATUS_SERVICE = "io.conduit.gateway.internal.GatewayStatus";
    /** Service interface name of the gateway's network (carries the transport selection as properties). */
    static final String NETWORK_SERVICE = "io.conduit.gateway.internal.Network";
    /** Service interface name registered instead of the network when no transport can be selected at start-up. */
    static final String NO_NETWORK_SERVICE = "io.conduit.gateway.internal.NoNetwork";
    /** Exit status of {@code --no-shell} when no transport can be selected at start-up: nothing can ever listen. */
    static final int EXIT_NO_TRANSPORT = 2;
    /**
     * Exit status when the home cannot be used: another gateway runs on it ({@link HomeLock}), or it is not writable;
     * the same as for a missing {@code bundles/} or configuration directory.
     */
    static final int EXIT_HOME_IN_USE = 2;
    /** Symbolic name of the bundle holding the gateway's components. */
    static final String GATEWAY_BUNDLE = "io.conduit.gateway";
    /** Start level of {@link #GATEWAY_BUNDLE}; every other bundle stays on the framework's default, 1. */
    static final int APPLICATION_START_LEVEL = 2;
    /** Configuration files of gateway components, as FileInstall names them: {@code <factoryPid>-<alias>.cfg}. */
    static final Pattern COMPONENT_CONFIG = Pattern.compile("io\\.conduit\\.gateway\\.(echo|relay)(-.*)?\\.(cfg|config)");
    /**
     * Service of the gateway bundle ({@code ConfigurationFiles}) registered once it has checked the files of the
     * configuration directory and published a status for each file that nothing will apply.
     */
    static final String CONFIGURATION_CHECK_SERVICE = "io.conduit.gateway.internal.ConfigurationFiles";
    /** Framework property naming the configuration directory for {@link #CONFIGURATION_CHECK_SERVICE}. */
    static final String CONFIGURATION_DIRECTORY_PROPERTY = "conduit.gateway.conf";
    /** System property: how long the banner waits for everything to report, in milliseconds. */
    static final String BANNER_TIMEOUT_PROPERTY = "conduit.gateway.bannerTimeoutMillis";
    /** Default of {@link #BANNER_TIMEOUT_PROPERTY}. */
    static final long DEFAULT_BANNER_TIMEOUT_MILLIS = 15_000;
    /** The interactive shell's bundle: not started with {@code --no-shell}. */
    static final String JLINE_SHELL_BUNDLE = "org.apache.felix.gogo.jline";
    /**
     * The files of the configuration directory FileInstall reads ({@code felix.fileinstall.filter}, matched against
     * the whole file name): {@code *.cfg} and {@code *.config}, but not {@code io.conduit.gateway.echo.cfg} or
     * {@code io.conduit.gateway.relay.cfg} (the gateway's factory PIDs without {@code -<name>}).
     */
    static final String FILEINSTALL_FILTER = "(?!io\\.conduit\\.gateway\\.(?:echo|relay)\\.(?:cfg|config)$).*\\.(cfg|config)";

    /** FileInstall's java.util.logging logger ({@code felix.fileinstall.log.default=jul}); kept: JUL holds it weakly. */
    private static final Logger FILEINSTALL_LOG = Logger.getLogger("fileinstall");

    private final Path home;
    private final Path conf;
    private final boolean shell;
    private final long bannerTimeoutMillis;
    private final PrintStream out;
    /** The status {@code exit N} in the shell asked for (through {@link #EXIT_SERVICE_PROPERTY}); 0 otherwise. */
    private volatile int exitStatus;

    /**
     * Service property of the {@link IntConsumer} the launcher registers in the system bundle's context: the gateway's
     * shell command {@code exit [STATUS]} calls it, and the launcher then stops the framework, gives the terminal its
     * size back and exits with that status.
     */
    static final String EXIT_SERVICE_PROPERTY = "conduit.gateway.exit";

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
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %3$s: %5$s%6$s%n");
        }
        boolean shell = System.console() != null;
        Path conf = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--no-shell":
                    shell = false;
                    break;
                case "--conf":
                    if (i + 1 >= args.length) {
                        usage("--conf needs a directory");
                    }
                    conf = Path.of(args[++i]);
                    break;
                case "-h":
                case "--help":
                    usage(null);
                    break;
                default:
                    usage("unknown option '" + args[i] + "'");
            }
        }
        long timeout = 0;
        try {
            timeout = bannerTimeoutMillis(System.getProperty(BANNER_TIMEOUT_PROPERTY));
        } catch (IllegalArgumentException e) {
            System.err.println("conduit-gateway: " + e.getMessage());
            System.exit(2);
        }
        Path home = home();
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
        int rc = new Main(home, conf.toAbsolutePath().normalize(), shell, timeout, System.out).run();
        System.exit(rc);
    }

    /**
     * Parses {@value #BANNER_TIMEOUT_PROPERTY}: a whole number of milliseconds from 1 to {@link Integer#MAX_VALUE},
     * surrounding blanks ignored.
     *
     * @param value the property's value, {@code null} when unset
     * @return the timeout; {@value #DEFAULT_BANNER_TIMEOUT_MILLIS} when unset
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    static long bannerTimeoutMillis(String value) {
        if (value == null) {
            return DEFAULT_BANNER_TIMEOUT_MILLIS;
        }
        try {
            long millis = Long.parseLong(value.strip());
            if (millis >= 1 && millis <= Integer.MAX_VALUE) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("system property " + BANNER_TIMEOUT_PROPERTY + "='" + value
                + "' is not valid; allowed values: a whole number of milliseconds from 1 to " + Integer.MAX_VALUE
                + " (how long the banner waits for the configurations to report); default: "
                + DEFAULT_BANNER_TIMEOUT_MILLIS);
    }

    private static void usage(String error) {
        PrintStream s = error == null ? System.out : System.err;
        if (error != null) {
            s.println("conduit-gateway: " + error);
        }
        s.println("usage: conduit-gateway [--no-shell] [--conf DIR]");
        s.println("  --no-shell  run without the interactive Gogo shell (implied when stdin is not a terminal)");
        s.println("  --conf DIR  read component configurations (*.cfg, *.config) from DIR instead of <home>/conf");
        s.println("System properties (JAVA_OPTS): conduit.transport=nio|epoll|..., conduit.gateway.home=DIR (the");
        s.println("  directory holding bundles/, conf/ and data/; default: the distribution directory),");
        s.println("  conduit.gateway.bannerTimeoutMillis=N (how long the banner waits for the configurations;");
        s.println("  default " + DEFAULT_BANNER_TIMEOUT_MILLIS + ")");
        System.exit(error == null ? 0 : 2);
    }

    private static Path home() {
        String h = System.getProperty("conduit.gateway.home");
        if (h != null && !h.isBlank()) {
            return Path.of(h).toAbsolutePath().normalize();
        }
        try {
            Path jar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent().toAbsolutePath().normalize();
        } catch (Exception e) {
            return Path.of("").toAbsolutePath();
        }
    }

    /** Starts the framework, prints the banner and waits for the framework to stop; returns the exit code. */
    int run() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put(Constants.FRAMEWORK_STORAGE, home.resolve("data").resolve("felix-cache").toString());
        props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        props.put("conduit.gateway.home", home.toString());
        props.put("felix.fileinstall.dir", conf.toString());
        // not the gateway's factory PIDs without "-<name>": Configuration Admin would make singleton configurations of
        // them, which SCR refuses with a stack trace next to the factory ones; ConfigurationFiles reports such a file
        props.put("felix.fileinstall.filter", FILEINSTALL_FILTER);
        props.put("felix.fileinstall.noInitialDelay", "true");
        props.put("felix.fileinstall.poll", "1000");
        props.put("felix.fileinstall.enableConfigSave", "false");
        props.put("felix.fileinstall.log.level", "2"); // warnings
        // FileInstall's log through java.util.logging, one line per record: a file Configuration Admin rejects would
        // otherwise print a stack trace; the gateway's own WARNING line about the file says what to do
        props.put("felix.fileinstall.log.default", "jul");
        oneLineLog(FILEINSTALL_LOG);
        props.put(CONFIGURATION_DIRECTORY_PROPERTY, conf.toString());
        // The gateway bundle runs one start level above the platform (Conduit, SCR, Config Admin, Gogo): the framework
        // stops level by level from the top (OSGi Core, Start Level API), so on any stop -- exit, SIGTERM, `stop 0` --
        // the endpoints close while their transport is still there instead of first following it to nio.
        props.put(Constants.FRAMEWORK_BEGINNING_STARTLEVEL, Integer.toString(APPLICATION_START_LEVEL));
        props.put("ds.loglevel", "warn"); // Felix SCR: component activation failures on standard output
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("conduit.")) {
                props.putIfAbsent(key, System.getProperty(key));
            }
        }

        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class, Main.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no OSGi framework on the class path (lib/"
                        + "org.apache.felix.framework.jar missing?)"));
        // A pty reporting 0x0 makes the shell's line reader spin (TerminalSize): give it a size first.
        Runnable restoreTerminal = once(shell ? TerminalSize.ensureUsable(System.err) : null);
        Framework framework = factory.newFramework(props);
        framework.init();
        // Ctrl-C, SIGTERM, or System.exit from anywhere: the main thread may never run again, so the hook also gives
        // the terminal its size back (after the shell is gone)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop(framework);
            restoreTerminal.run();
        }, "conduit-gateway-shutdown"));
        BundleContext context = framework.getBundleContext();
        Hashtable<String, Object> exitProps = new Hashtable<>();
        exitProps.put(EXIT_SERVICE_PROPERTY, Boolean.TRUE);
        context.registerService(IntConsumer.class, status -> {
            exitStatus = status;
            try {
                framework.stop(); // returns at once; the framework stops on a thread of its own
            } catch (BundleException e) {
                System.err.println("conduit-gateway: stopping the framework failed: " + e.getMessage());
            }
        }, exitProps);
        List<Bundle> installed = installBundles(context, home.resolve("bundles"));
        // Bundles are marked for start before the framework starts, so they start while it is STARTING and
        // FrameworkEvent.STARTED follows them all (the API bundle defers "unknown transport" warnings until then).
        context.addFrameworkListener(event -> {
            if (event.getType() == FrameworkEvent.ERROR && event.getBundle() != null
                    && event.getBundle().getBundleId() != Constants.SYSTEM_BUNDLE_ID) {
                System.err.println("conduit-gateway: bundle " + event.getBundle().getSymbolicName()
                        + " did not start: " + (event.getThrowable() == null ? "error"
                                : event.getThrowable().getMessage()));
            }
        });
        for (Bundle b : installed) {
            if (b.getHeaders().get(Constants.FRAGMENT_HOST) != null) {
                continue;
            }
            if (GATEWAY_BUNDLE.equals(b.getSymbolicName())) {
                b.adapt(BundleStartLevel.class).setStartLevel(APPLICATION_START_LEVEL);
            }
            if (!shell && JLINE_SHELL_BUNDLE.equals(b.getSymbolicName())) {
                continue; // the interactive shell needs a terminal; commands stay registered with the Gogo runtime
            }
            try {
                b.start();
            } catch (BundleException e) {
                System.err.println("conduit-gateway: bundle " + b.getSymbolicName() + " did not start: "
                        + e.getMessage());
            }
        }
        framework.start();
        boolean noTransport = printBanner(context);
        if (noTransport && !shell) {
            // Nothing can ever listen: the network is only made at start-up. In the shell the user may still look
            // around (conduit:transports, conduit:diag) before leaving.
            System.err.println("conduit-gateway: no transport can be selected, so nothing can listen: exiting with "
                    + "status " + EXIT_NO_TRANSPORT + " (fix what the banner names and start again)");
            stop(framework);
            return EXIT_NO_TRANSPORT;
        }
        try {
            framework.waitForStop(0);
        } finally {
            restoreTerminal.run(); // after the shell is gone, so it never sees the old size again
        }
        return exitStatus;
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
                    java.time.ZonedDateTime.ofInstant(r.getInstant(), java.time.ZoneId.systemDefault()),
                    r.getLevel().getName(), r.getLoggerName(), formatMessage(r), root == null ? "" : ": " + root);
        }
    }

    /** @return a runnable that runs {@code r} at most once, whoever calls it first; {@code null} runs nothing */
    private static Runnable once(Runnable r) {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (r != null && done.compareAndSet(false, true)) {
                r.run();
            }
        };
    }

    private static List<Bundle> installBundles(BundleContext context, Path dir) throws IOException {
        List<Path> jars = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.jar")) {
            s.forEach(jars::add);
        }
        jars.sort(null);
        List<Bundle> bundles = new ArrayList<>();
        for (Path jar : jars) {
            try {
                bundles.add(context.installBundle(jar.toUri().toString()));
            } catch (BundleException e) {
                System.err.println("conduit-gateway: cannot install " + jar.getFileName() + ": " + e.getMessage());
            }
        }
        return bundles;
    }

    /** What the banner reports, as the framework's services show it at one moment. */
    private final class Startup {
        final ServiceReference<?>[] statuses;
        final ServiceReference<?> network;
        final ServiceReference<?> noNetwork;
        /** Whether the gateway's check of the configuration files has published its first results. */
        final boolean checked;
        /**
         * Whether the framework has started: it is {@code ACTIVE} once every bundle of its start levels was started
         * (the {@code STARTED} event, on which the gateway selects its transport, follows asynchronously).
         */
        final boolean started;
        /** Whether the gateway bundle is active, so its network is coming. */
        final boolean gatewayActive;
        final List<Bundle> notActive = new ArrayList<>();
        final int startLevel;

        Startup(BundleContext context) throws InvalidSyntaxException {
            // getAll…: the launcher's class path holds the gateway jar too, so its own copy of these interfaces
            // is not the bundle's, and the class-space filter of getServiceReferences would hide the services.
            statuses = orEmpty(context.getAllServiceReferences(STATUS_SERVICE, null));
            network = first(context.getAllServiceReferences(NETWORK_SERVICE, null));
            noNetwork = first(context.getAllServiceReferences(NO_NETWORK_SERVICE, null));
            checked = context.getAllServiceReferences(CONFIGURATION_CHECK_SERVICE, null) != null;
            started = context.getBundle(Constants.SYSTEM_BUNDLE_ID).getState() == Bundle.ACTIVE;
            boolean gatewayUp = false;
            for (Bundle b : context.getBundles()) {
                if (GATEWAY_BUNDLE.equals(b.getSymbolicName())) {
                    gatewayUp = (b.getState() & (Bundle.ACTIVE | Bundle.STARTING)) != 0;
                }
                boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
                boolean notStartedOnPurpose = !shell && JLINE_SHELL_BUNDLE.equals(b.getSymbolicName());
                if (b.getState() != Bundle.ACTIVE && !fragment && !notStartedOnPurpose) {
                    notActive.add(b);
                }
            }
            gatewayActive = gatewayUp;
            FrameworkStartLevel level = context.getBundle(Constants.SYSTEM_BUNDLE_ID).adapt(FrameworkStartLevel.class);
            startLevel = level == null ? 0 : level.getStartLevel();
        }

        /** @return the names of the configurations in conf/ that have published their status */
        Set<String> reported() {
            Set<String> names = new HashSet<>();
            for (ServiceReference<?> r : statuses) {
                names.add(String.valueOf(r.getProperty("conduit.gateway.name")));
            }
            return names;
        }

        /**
         * @param expected the gateway's component configuration files found in conf/ at start-up
         * @return what has not reported yet, e.g. {@code the transport selection, io.conduit.gateway.echo-default.cfg};
         *         empty when everything has
         */
        List<String> pending(List<String> expected) {
            List<String> pending = new ArrayList<>();
            if (!started) {
                pending.add("the framework (start level " + startLevel + " of " + APPLICATION_START_LEVEL + ", "
                        + notActive.size() + " bundle(s) not started yet)");
            }
            if (networkPending()) {
                pending.add("the transport selection");
            }
            // an inactive gateway bundle (a problem line of its own) registers nothing more
            boolean coming = !started || gatewayActive;
            if (!checked && coming) {
                pending.add("the check of the configuration files");
            }
            if (noNetwork == null && coming) { // without a network the components never start
                Set<String> reported = reported();
                for (String file : expected) {
                    if (!reported.contains(file)) {
                        pending.add(file);
                    }
                }
            }
            return pending;
        }

        /** @return whether the transport is not selected yet but will be (the gateway bundle is or will be active) */
        boolean networkPending() {
            return network == null && noNetwork == null && (!started || gatewayActive);
        }

        /** @return the transport lines of the banner */
        String transport() {
            StringBuilder b = new StringBuilder();
            ServiceReference<?> r = network != null ? network : noNetwork;
            if (network != null) {
                b.append("transport: ").append(network.getProperty("conduit.transport.name")).append('\n');
            } else if (noNetwork != null) {
                b.append("transport: none - ").append(noNetwork.getProperty("conduit.transport.problem"))
                        .append('\n');
            } else if (networkPending()) {
                return "transport: not selected yet (still starting)\n";
            } else {
                return "transport: none - the gateway's network did not start (is a transport bundle in bundles/? "
                        + "see the log above)\n";
            }
            Object explain = r.getProperty("conduit.transport.selection");
            if (explain != null) {
                for (String line : explain.toString().split("\n")) {
                    b.append("  ").append(line).append('\n');
                }
            }
            return b.toString();
        }

        /** @return the banner's lines of the components and, once the framework has started, its inactive bundles */
        List<String> lines() {
            List<String> lines = new ArrayList<>();
            for (ServiceReference<?> r : statuses) {
                lines.addAll(componentLines(String.valueOf(r.getProperty("conduit.gateway.kind")),
                        String.valueOf(r.getProperty("conduit.gateway.name")),
                        strings(r.getProperty("conduit.gateway.listening")),
                        strings(r.getProperty("conduit.gateway.failures"))));
            }
            lines.sort(null);
            if (started) {
                for (Bundle x : notActive) {
                    lines.add("  bundle " + x.getSymbolicName() + " is not active (state " + stateName(x.getState())
                            + ")");
                }
            }
            return lines;
        }

        int listening() {
            int n = 0;
            for (ServiceReference<?> r : statuses) {
                n += strings(r.getProperty("conduit.gateway.listening")).length;
            }
            return n;
        }

        int problems() {
            int n = noNetwork != null ? 1 : 0;
            for (ServiceReference<?> r : statuses) {
                n += strings(r.getProperty("conduit.gateway.failures")).length;
            }
            return n + (started ? notActive.size() : 0);
        }
    }

    /**
     * Waits until the transport is selected (or cannot be), the gateway has checked the files of the configuration
     * directory, and every component configuration there has published its status, at most
     * {@code conduit.gateway.bannerTimeoutMillis}; then prints the banner. When the time is up first, the banner
     * says what is still starting, and the rest follows once it has reported ({@link #reportLate}).
     *
     * @return whether no transport could be selected
     */
    private boolean printBanner(BundleContext context) throws InterruptedException, InvalidSyntaxException {
        List<String> expected = componentConfigs();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(bannerTimeoutMillis);
        Startup s;
        while (true) {
            s = new Startup(context);
            if (s.pending(expected).isEmpty() || System.nanoTime() - deadline > 0) {
                break;
            }
            Thread.sleep(50);
        }
        StringBuilder b = new StringBuilder();
        Bundle gateway = null;
        for (Bundle x : context.getBundles()) {
            if (GATEWAY_BUNDLE.equals(x.getSymbolicName())) {
                gateway = x;
            }
        }
        b.append("Conduit gateway ").append(gateway != null ? gateway.getVersion() : "?").append(" on Java ")
                .append(System.getProperty("java.version")).append(", home ").append(home).append('\n');
        b.append(s.transport());
        List<String> lines = s.lines();
        lines.forEach(l -> b.append(l).append('\n'));
        List<String> pending = s.pending(expected);
        if (!pending.isEmpty()) {
            b.append(stillStarting(bannerTimeoutMillis, pending)).append('\n');
        }
        b.append("Ready: ").append(s.listening()).append(" endpoint(s) listening, ").append(s.problems())
                .append(" problem(s)").append(pending.isEmpty() ? "" : " so far").append("; configuration in ")
                .append(conf);
        if (s.noNetwork != null) {
            b.append(shell ? "; no transport, so nothing will listen: leave with 'exit 0' or Ctrl-D and start again"
                    : "; no transport, so nothing can listen: exiting");
        } else {
            b.append(shell ? "; stop with 'exit 0' or Ctrl-D" : "; stop with Ctrl-C");
        }
        out.println(b);
        out.flush();
        if (!pending.isEmpty() && s.noNetwork == null) {
            boolean transportShown = s.network != null;
            Thread late = new Thread(() -> reportLate(context, expected, start, transportShown, lines),
                    "conduit-gateway-banner");
            late.setDaemon(true);
            late.start();
        }
        return s.noNetwork != null;
    }

    /**
     * The banner's line when its time is up before everything has reported.
     *
     * @param pending what has not reported, see {@code Startup.pending}
     */
    static String stillStarting(long timeoutMillis, List<String> pending) {
        return "  still starting after " + timeoutMillis + " ms (" + BANNER_TIMEOUT_PROPERTY + "): "
                + String.join(", ", pending) + "; reported below once up";
    }

    /**
     * After a banner that said what is still starting: waits (as long as the framework runs) until everything has
     * reported, then prints the transport (when the banner had none), the lines the banner did not have, and one
     * line {@code Ready after N ms: ...}.
     */
    private void reportLate(BundleContext context, List<String> expected, long start, boolean transportShown,
            List<String> shown) {
        try {
            while ((context.getBundle(Constants.SYSTEM_BUNDLE_ID).getState() & (Bundle.ACTIVE | Bundle.STARTING)) != 0) {
                Startup s = new Startup(context);
                if (s.pending(expected).isEmpty()) {
                    StringBuilder b = new StringBuilder();
                    if (!transportShown) {
                        b.append(s.transport());
                    }
                    for (String l : s.lines()) {
                        if (!shown.contains(l)) {
                            b.append(l).append('\n');
                        }
                    }
                    b.append("Ready after ").append(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                            .append(" ms: ").append(s.listening()).append(" endpoint(s) listening, ")
                            .append(s.problems()).append(" problem(s)");
                    out.println(b);
                    out.flush();
                    return;
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException | InvalidSyntaxException | IllegalStateException stopping) {
            // the framework is stopping: nothing more to report
        }
    }

    /**
     * The banner's lines of one component: {@code listening KIND ENDPOINT (NAME)} per bound endpoint, then one line per
     * problem that starts with the component's state as {@code conduit:gateway} shows it: {@code PARTIAL} when some
     * endpoint is bound, {@code FAILED} when none is.
     */
    static List<String> componentLines(String kind, String name, String[] listening, String[] failures) {
        List<String> lines = new ArrayList<>();
        for (String l : listening) {
            lines.add(String.format(Locale.ROOT, "  listening %-5s %s  (%s)", kind, l, name));
        }
        String state = listening.length > 0 ? "PARTIAL" : "FAILED";
        for (String f : failures) {
            lines.add(String.format(Locale.ROOT, "  %-9s %-5s %s  (%s)", state, kind, f, name));
        }
        return lines;
    }

    private static String stateName(int state) {
        switch (state) {
            case Bundle.INSTALLED:
                return "INSTALLED: not resolved";
            case Bundle.RESOLVED:
                return "RESOLVED: not started";
            case Bundle.STARTING:
                return "STARTING";
            case Bundle.STOPPING:
                return "STOPPING";
            default:
                return String.valueOf(state);
        }
    }

    private static String[] strings(Object v) {
        if (v instanceof String[] a) {
            return a;
        }
        return v == null ? new String[0] : new String[] {v.toString()};
    }

    /** @return the gateway's component configuration files in the configuration directory, sorted */
    private List<String> componentConfigs() {
        File[] files = conf.toFile().listFiles((d, n) -> COMPONENT_CONFIG.matcher(n).matches());
        List<String> names = new ArrayList<>();
        if (files != null) {
            for (File f : files) {
                names.add(f.getName());
            }
        }
        names.sort(null);
        return names;
    }

    private static ServiceReference<?>[] orEmpty(ServiceReference<?>[] refs) {
        return refs == null ? new ServiceReference<?>[0] : refs;
    }

    private static ServiceReference<?> first(ServiceReference<?>[] refs) {
        return refs == null ? null : refs[0];
    }

    private static void stop(Framework framework) {
        try {
            if ((framework.getState() & (Bundle.ACTIVE | Bundle.STARTING)) != 0) {
                framework.stop();
                framework.waitForStop(10_000);
            }
        } catch (Exception e) {
            System.err.println("conduit-gateway: stopping the framework failed: " + e);
        }
    }
}
