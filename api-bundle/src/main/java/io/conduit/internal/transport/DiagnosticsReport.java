package io.conduit.internal.transport;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Manifest;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.config.PlatformInfo;
import io.conduit.transport.Availability;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.spi.TransportProvider;

/**
 * Renders the diagnostics report of {@link io.conduit.transport.Diagnostics}: Conduit version, JDK, OS and
 * processor, Unsafe status, the Conduit system properties, native access, every provider with its availability,
 * cause and load attempts, and the selection with its reason (after a rejected Configuration Admin configuration,
 * first the line saying why it was rejected). Plain text, one fact per line, no stack traces.
 */
public final class DiagnosticsReport {

    private DiagnosticsReport() {
    }

    /** @return the report for {@code registry} with the current system properties */
    public static String render(TransportRegistry registry) {
        StringBuilder out = new StringBuilder(2048);
        out.append("Conduit diagnostics\n");
        out.append("  Conduit version: ").append(conduitVersion()).append('\n');
        out.append("  JDK: ").append(System.getProperty("java.vendor")).append(' ')
                .append(System.getProperty("java.runtime.version", System.getProperty("java.version")))
                .append(", java.home=").append(System.getProperty("java.home")).append('\n');
        out.append("  OS: ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(", os.arch=").append(System.getProperty("os.arch")).append(", OSGi processor=")
                .append(PlatformInfo.osgiProcessor()).append('\n');
        PlatformInfo.UnsafeInfo unsafe = PlatformInfo.unsafe();
        out.append("  sun.misc.Unsafe: ").append(label(unsafe.status())).append(" - ").append(unsafe.explanation())
                .append(" (Conduit never uses it; buffers and native transports work without it)\n");

        ConduitProperties props = ConduitProperties.fromSystem();
        out.append("\nSystem properties\n");
        for (Map.Entry<String, String> e : ConduitProperties.DEFAULTS.entrySet()) {
            String name = e.getKey();
            String raw = props.raw(name);
            out.append("  ").append(name).append(" = ");
            if (raw == null) {
                out.append(e.getValue());
                if (name.equals(ConduitProperties.MAX_DIRECT_MEMORY)) {
                    out.append(": ").append(ConduitProperties.defaultMaxDirectMemory()).append(" bytes");
                }
                out.append(" (default)");
            } else {
                out.append(raw).append(props.isValid(name) ? " (set)" : " (set; INVALID - see Selection)");
            }
            out.append('\n');
        }

        List<TransportProvider> providers = registry.providers();
        TransportSelection selection = registry.selection();

        out.append("\nNative access (--enable-native-access)\n");
        Optional<Boolean> unnamed = PlatformInfo.nativeAccessEnabled(ClassLoader.getSystemClassLoader()
                .getUnnamedModule());
        if (unnamed.isEmpty()) {
            out.append("  not needed: JDK ").append(Runtime.version().feature())
                    .append(" loads native libraries without it (Module.isNativeAccessEnabled is JDK 22+)\n");
        } else {
            List<String> jvmArgs = jvmInputArguments();
            out.append("  classpath and OSGi bundles (ALL-UNNAMED): ")
                    .append(nativeAccess(unnamed.get(), jvmArgs, "ALL-UNNAMED")).append('\n');
            Module api = DiagnosticsReport.class.getModule();
            if (api.isNamed()) {
                out.append("  module ").append(api.getName()).append(": ")
                        .append(nativeAccess(PlatformInfo.nativeAccessEnabled(api).orElse(false), jvmArgs,
                                api.getName()))
                        .append('\n');
            }
            Set<Module> seen = new HashSet<>();
            for (TransportProvider p : providers) {
                Module m = p.getClass().getModule();
                if (p.isNative() && seen.add(m)) {
                    String who = m.isNamed() ? "module " + m.getName() : "unnamed module of " + p.getClass().getName();
                    out.append("  transport ").append(p.name()).append(" (").append(who).append("): ")
                            .append(nativeAccess(PlatformInfo.nativeAccessEnabled(m).orElse(false), jvmArgs,
                                    m.isNamed() ? m.getName() : "ALL-UNNAMED"))
                            .append('\n');
                }
            }
        }

        out.append("\nTransports\n");
        if (selection.candidates().isEmpty()) {
            out.append("  No transport is registered. Add conduit-nio (bundle io.conduit.nio, pure Java) and, for"
                    + " native I/O, conduit-epoll (io.conduit.epoll) with its fragment io.conduit.epoll.linux.")
                    .append(PlatformInfo.libraryArch())
                    .append(" on Linux, or conduit-kqueue (io.conduit.kqueue) with its fragment on macOS/FreeBSD.\n");
        }
        for (TransportSelection.Candidate c : selection.candidates()) {
            out.append("  ").append(c.name()).append(": ").append(c.isNative() ? "native" : "pure Java")
                    .append(", ranking ").append(c.ranking()).append(", ")
                    .append(c.availability().isAvailable() ? "available" : "UNAVAILABLE")
                    .append(c.outcome() == TransportSelection.Outcome.SELECTED ? ", SELECTED" : "").append('\n');
            Availability a = c.availability();
            if (!a.isAvailable()) {
                appendCause(out, a.unavailabilityCause());
            }
        }
        for (String problem : registry.problems()) {
            out.append("  problem: ").append(oneLine(problem)).append('\n');
        }

        out.append("\nSelection\n");
        String rejected = registry.rejectedConfiguration();
        if (rejected != null) {
            out.append("  ").append(oneLine(rejected)).append('\n');
        }
        out.append("  preference: ").append(selection.preference()).append(" (")
                .append(describe(selection.preferenceSource())).append(")")
                .append(selection.strict() ? ", strict" : "")
                .append(selection.noNative() ? ", native transports disabled" : "").append('\n');
        for (String w : selection.warnings()) {
            out.append("  warning: ").append(oneLine(w)).append('\n');
        }
        if (selection.selectedName() != null) {
            out.append("  selected: ").append(selection.selectedName()).append(" - ")
                    .append(oneLine(selection.reason())).append('\n');
        } else {
            out.append("  selected: none - ").append(oneLine(selection.reason())).append('\n');
        }
        return out.toString();
    }

    private static String label(PlatformInfo.UnsafeStatus status) {
        switch (status) {
            case AVAILABLE:
                return "available";
            case DISABLED_BY_PROPERTY:
                return "disabled by " + ConduitProperties.NO_UNSAFE;
            case INVALID_PROPERTY:
                return "not checked: " + ConduitProperties.NO_UNSAFE + " is invalid";
            case DENIED_BY_JVM:
                return "denied by the JVM";
            case WARNED_BY_JVM:
                return "not used: the JVM would warn";
            default:
                return "absent";
        }
    }

    private static void appendCause(StringBuilder out, Throwable cause) {
        out.append("      cause: ").append(oneLine(String.valueOf(cause))).append('\n');
        for (Throwable attempt : cause.getSuppressed()) {
            out.append("        attempt: ").append(oneLine(String.valueOf(attempt))).append('\n');
        }
        Set<Throwable> seen = new HashSet<>();
        seen.add(cause);
        for (Throwable t = cause.getCause(); t != null && seen.add(t); t = t.getCause()) {
            out.append("      caused by: ").append(oneLine(String.valueOf(t))).append('\n');
        }
    }

    /**
     * Classifies the native access of module {@code name} (a module name or {@code ALL-UNNAMED}) from
     * {@code Module.isNativeAccessEnabled()} and the JVM options (JEP 472): {@code --enable-native-access} naming
     * it enables it, {@code --illegal-native-access=deny} denies it, otherwise the JDK allows it with a warning.
     * {@code isNativeAccessEnabled} alone cannot tell the JDK default from an explicit grant on every JDK.
     *
     * @param enabled what {@code Module.isNativeAccessEnabled()} answered
     * @param jvmArgs the JVM input arguments, or {@code null} when unknown (java.management absent): then
     *        {@code enabled} is trusted
     * @return one of "enabled (...)", "allowed with a warning (...)", "denied (...)"
     */
    static String nativeAccess(boolean enabled, List<String> jvmArgs, String name) {
        String fix = "--enable-native-access=" + name;
        if (jvmArgs == null) {
            return enabled ? "enabled" : "NOT enabled - the JDK warns or refuses when a native library is loaded;"
                    + " start the JVM with " + fix;
        }
        String grant = null;
        String illegal = null;
        for (int i = 0; i < jvmArgs.size(); i++) {
            String a = jvmArgs.get(i);
            String value = null;
            if (a.startsWith("--enable-native-access=")) {
                value = a.substring("--enable-native-access=".length());
            } else if (a.equals("--enable-native-access") && i + 1 < jvmArgs.size()) {
                value = jvmArgs.get(++i);
            } else if (a.startsWith("--illegal-native-access=")) {
                illegal = a.substring("--illegal-native-access=".length());
            }
            if (value != null && List.of(value.split(",")).contains(name)) {
                grant = "--enable-native-access=" + value;
            }
        }
        if (grant != null && enabled) {
            return "enabled (" + grant + ")";
        }
        if ("deny".equals(illegal)) {
            return "denied (--illegal-native-access=deny); start the JVM with " + fix;
        }
        return "allowed with a warning (JDK default; add " + fix + ")";
    }

    /** @return the JVM input arguments, or {@code null} when java.management is not available */
    static List<String> jvmInputArguments() {
        try {
            Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
            Object runtime = factory.getMethod("getRuntimeMXBean").invoke(null);
            Class<?> bean = Class.forName("java.lang.management.RuntimeMXBean");
            @SuppressWarnings("unchecked")
            List<String> args = (List<String>) bean.getMethod("getInputArguments").invoke(runtime);
            return List.copyOf(args);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static String describe(TransportSelection.PreferenceSource source) {
        switch (source) {
            case SYSTEM_PROPERTY:
                return "from system property " + ConduitProperties.TRANSPORT;
            case OVERRIDE:
                return "run-time override";
            default:
                return "default";
        }
    }

    private static String oneLine(String s) {
        return s.replace("\r\n", " | ").replace('\n', ' ').replace('\r', ' ');
    }

    /** @return the {@code Bundle-Version} of the {@code io.conduit.api} manifest, or a note saying it is unknown */
    static String conduitVersion() {
        String impl = DiagnosticsReport.class.getPackage().getImplementationVersion();
        if (impl != null) {
            return impl;
        }
        try {
            ClassLoader loader = DiagnosticsReport.class.getClassLoader();
            Enumeration<URL> manifests = loader == null ? ClassLoader.getSystemResources("META-INF/MANIFEST.MF")
                    : loader.getResources("META-INF/MANIFEST.MF");
            while (manifests.hasMoreElements()) {
                try (InputStream in = manifests.nextElement().openStream()) {
                    Manifest m = new Manifest(in);
                    String bsn = m.getMainAttributes().getValue("Bundle-SymbolicName");
                    if (bsn != null && bsn.split(";")[0].trim().equals("io.conduit.api")) {
                        String v = m.getMainAttributes().getValue("Bundle-Version");
                        if (v != null) {
                            return v;
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e + ")";
        }
        return "unknown (no io.conduit.api manifest found)";
    }
}
