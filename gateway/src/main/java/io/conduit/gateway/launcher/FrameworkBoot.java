package io.conduit.gateway.launcher;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.IntConsumer;
import java.util.logging.Logger;

import io.conduit.gateway.services.GatewayServices;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.startlevel.BundleStartLevel;

/**
 * The framework boot: the framework properties (storage under {@code <home>/data}, FileInstall on the configuration
 * directory, the start levels), the framework factory ({@link ServiceLoader}, the OSGi core specification's
 * {@link FrameworkFactory}), the launcher's exit service, and installing and starting every bundle of
 * {@code <home>/bundles}. The gateway bundle runs on {@value #APPLICATION_START_LEVEL}, everything else on 1.
 */
final class FrameworkBoot {

    /** Start level of the gateway bundle; every other bundle stays on the framework's default, 1. */
    static final int APPLICATION_START_LEVEL = 2;
    /**
     * The files of the configuration directory FileInstall reads ({@code felix.fileinstall.filter}, matched against
     * the whole file name): {@code *.cfg} and {@code *.config}, but not {@code io.conduit.gateway.echo.cfg} or
     * {@code io.conduit.gateway.relay.cfg} (the gateway's factory PIDs without {@code -<name>}).
     */
    static final String FILEINSTALL_FILTER = "(?!io\\.conduit\\.gateway\\.(?:echo|relay)\\.(?:cfg|config)$).*\\.(cfg|config)";

    /** FileInstall's java.util.logging logger ({@code felix.fileinstall.log.default=jul}); kept: JUL holds it weakly. */
    private static final Logger FILEINSTALL_LOG = Logger.getLogger("fileinstall");

    private FrameworkBoot() {
    }

    /**
     * The framework properties: the launcher's own, then every system property named {@code conduit.*}. Also makes
     * FileInstall's log one line per record.
     *
     * @param home the home directory ({@code data/} holds the framework's cache)
     * @param conf the configuration directory FileInstall reads
     */
    static Map<String, String> properties(Path home, Path conf) {
        Map<String, String> props = new HashMap<>();
        props.put(Constants.FRAMEWORK_STORAGE, home.resolve("data").resolve("felix-cache").toString());
        props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        props.put(Options.HOME_PROPERTY, home.toString());
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
        LogFormat.oneLineLog(FILEINSTALL_LOG);
        props.put(GatewayServices.CONFIGURATION_DIRECTORY_PROPERTY, conf.toString());
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
        return props;
    }

    /** @return the framework factory on the launcher's class path (Apache Felix) */
    static FrameworkFactory factory() {
        return ServiceLoader.load(FrameworkFactory.class, FrameworkBoot.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no OSGi framework on the class path (lib/"
                        + "org.apache.felix.framework.jar missing?)"));
    }

    /**
     * Registers the exit service in the system bundle's context: the gateway's shell command {@code exit [STATUS]}
     * calls it ({@link GatewayServices#EXIT_SERVICE_PROPERTY}).
     *
     * @param exit takes the status and stops the framework; called on a shell thread
     */
    static void registerExitService(BundleContext context, IntConsumer exit) {
        Hashtable<String, Object> exitProps = new Hashtable<>();
        exitProps.put(GatewayServices.EXIT_SERVICE_PROPERTY, Boolean.TRUE);
        context.registerService(IntConsumer.class, exit, exitProps);
    }

    /**
     * Registers the exit status service in the system bundle's context ({@link
     * GatewayServices#EXIT_STATUS_SERVICE_PROPERTY}): the shell's {@code exit [STATUS]} on a script calls it before it
     * ends the session.
     *
     * @param record takes the status, stops nothing; called on a shell thread
     */
    static void registerExitStatusService(BundleContext context, IntConsumer record) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(GatewayServices.EXIT_STATUS_SERVICE_PROPERTY, Boolean.TRUE);
        context.registerService(IntConsumer.class, record, props);
    }

    /**
     * Registers the marker of {@link GatewayServices#BANNER_PENDING_PROPERTY}: until it is unregistered, the banner
     * will show what listens, and the components log nothing for it.
     *
     * @return its registration; unregister it once the banner is printed
     */
    static org.osgi.framework.ServiceRegistration<Runnable> registerBannerPending(BundleContext context) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(GatewayServices.BANNER_PENDING_PROPERTY, Boolean.TRUE);
        return context.registerService(Runnable.class, () -> { }, props);
    }

    /**
     * Installs every jar of {@code bundles} (in name order) and marks every bundle but fragments for start, the
     * gateway bundle on {@link #APPLICATION_START_LEVEL}. The jline shell bundle is not started here: the launcher
     * starts it after the banner ({@link InteractiveShell#start}), so that the shell's first prompt follows the
     * banner, and never with {@code --no-shell}. A bundle that cannot be installed or started is one line on standard
     * error.
     */
    static void installAndStart(BundleContext context, Path bundles) throws IOException {
        List<Bundle> installed = installBundles(context, bundles);
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
            if (GatewayServices.GATEWAY_BUNDLE.equals(b.getSymbolicName())) {
                b.adapt(BundleStartLevel.class).setStartLevel(APPLICATION_START_LEVEL);
            }
            if (InteractiveShell.BUNDLE.equals(b.getSymbolicName())) {
                continue; // started after the banner, or never; commands stay registered with the Gogo runtime
            }
            try {
                b.start();
            } catch (BundleException e) {
                System.err.println("conduit-gateway: bundle " + b.getSymbolicName() + " did not start: "
                        + e.getMessage());
            }
        }
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

    /**
     * Stops the framework, if it runs, and waits for it at most 10 s; first the interactive shell
     * ({@link InteractiveShell#stop}). A framework already stopping (the shell ended on the same signal) is waited
     * for too: a user's trial found socket files left after SIGTERM, because the JVM exited while the bundles were
     * still closing their listeners. A failure is one line on standard error.
     */
    static void stop(Framework framework) {
        try {
            int state = framework.getState();
            if ((state & (Bundle.ACTIVE | Bundle.STARTING)) != 0) {
                InteractiveShell.stop(framework.getBundleContext());
                framework.stop();
                framework.waitForStop(10_000);
            } else if ((state & Bundle.STOPPING) != 0) {
                framework.waitForStop(10_000);
            }
        } catch (Exception e) {
            System.err.println("conduit-gateway: stopping the framework failed: " + e);
        }
    }
}
