package io.conduit.gateway.launcher;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import io.conduit.gateway.services.GatewayServices;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;

/**
 * The banner the launcher prints once after start-up: the gateway's version, the selected transport and why, every
 * listening endpoint and every problem, then one {@code Ready: ...} line. It waits for everything to report at most
 * {@value Options#BANNER_TIMEOUT_PROPERTY} milliseconds; what reports later follows in a second block.
 */
final class Banner {

    /**
     * Configuration files of gateway components, as FileInstall names them: {@code <factoryPid>-<alias>.cfg} for echo
     * and relay, {@code io.conduit.gateway.metrics.cfg} for the metrics endpoint.
     */
    static final Pattern COMPONENT_CONFIG =
            Pattern.compile("io\\.conduit\\.gateway\\.(echo|relay|metrics)(-.*)?\\.(cfg|config)");

    private final Path home;
    private final Path conf;
    private final boolean shell;
    private final boolean script;
    private final long bannerTimeoutMillis;
    private final PrintStream out;

    /**
     * @param shell  whether the shell runs after the banner
     * @param script whether that shell reads a script ({@link ScriptTerminal}), not a terminal
     */
    Banner(Path home, Path conf, boolean shell, boolean script, long bannerTimeoutMillis, PrintStream out) {
        this.home = home;
        this.conf = conf;
        this.shell = shell;
        this.script = script;
        this.bannerTimeoutMillis = bannerTimeoutMillis;
        this.out = out;
    }

    /**
     * @param shell     whether the shell runs after the banner
     * @param script    whether that shell reads a script: the script's end or its {@code exit N} stops the gateway,
     *                  so the line says nothing about stopping
     * @param noNetwork whether no transport could be selected
     * @return the end of the {@code Ready:} line, from {@code "; "} on, or empty
     */
    static String readyEnding(boolean shell, boolean script, boolean noNetwork) {
        if (noNetwork) {
            if (!shell) {
                return "; no transport, so nothing can listen: exiting";
            }
            return script ? "; no transport, so nothing will listen"
                    : "; no transport, so nothing will listen: leave with 'exit 0' or Ctrl-D and start again";
        }
        if (!shell) {
            return "; stop with Ctrl-C";
        }
        return script ? "" : "; stop with 'exit 0' or Ctrl-D";
    }

    /**
     * Waits until the transport is selected (or cannot be), the gateway has checked the files of the configuration
     * directory, and every component configuration there has published its status, at most
     * {@code conduit.gateway.bannerTimeoutMillis}; then prints the banner. When the time is up first, the banner
     * says what is still starting, and the rest follows once it has reported ({@link #reportLate}).
     *
     * @return whether no transport could be selected
     */
    boolean print(BundleContext context) throws InterruptedException, InvalidSyntaxException {
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
            if (GatewayServices.GATEWAY_BUNDLE.equals(x.getSymbolicName())) {
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
        b.append(readyEnding(shell, script, s.noNetwork != null));
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
     * @param pending what has not reported, see {@link Startup#pending}
     */
    static String stillStarting(long timeoutMillis, List<String> pending) {
        return "  still starting after " + timeoutMillis + " ms (" + Options.BANNER_TIMEOUT_PROPERTY + "): "
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
}
