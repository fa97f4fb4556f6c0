package io.conduit.internal.osgi;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.StringJoiner;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.config.Suggestions;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.TransportSelection;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationException;
import org.osgi.service.cm.ManagedService;

/**
 * Applies the Configuration Admin configuration of PID {@value #PID} to the registry: property {@value #TRANSPORT}
 * (same syntax as {@code conduit.transport}; a {@code String}, or a {@code String[]}/collection that is joined
 * with commas) replaces the system property, property {@value #STRICT} ({@code Boolean} or {@code "true"}/
 * {@code "false"}) replaces {@code conduit.transport.strict}. A missing or blank property, or deleting the
 * configuration, returns to the system property. The metatype description is
 * {@code OSGI-INF/metatype/io.conduit.transport.xml}. Each applied configuration is one INFO line on the logger
 * {@code io.conduit.transport} naming the file (FileInstall's {@code felix.fileinstall.filename}), both values and
 * the transport selected then; deleting an applied one is one INFO line too.
 *
 * <p><b>A bad value rejects the whole configuration.</b> When any property is malformed, none of the configuration
 * is applied (also not its valid properties): the settings in effect before stay — an earlier valid configuration,
 * a {@code conduit:use} preference or the system properties. The rejection is one ERROR line on the logger
 * {@code io.conduit.transport} naming the PID, every bad property with its value and allowed values, and what stays
 * in effect; the diagnostics report and {@code conduit:transports} show it
 * ({@link TransportRegistry#rejectedConfiguration()}) until a valid configuration replaces it, the configuration
 * is deleted or the API bundle stops. {@link #updated} does not throw {@link ConfigurationException}, which the
 * Config Admin specification allows but does not require: Apache Felix Configuration Admin logs a thrown one with
 * its stack trace, which for a mistyped value in a {@code .cfg} file says less than the line above.
 *
 * <p>While the last configuration is rejected or has ignored keys, this service has the property
 * {@value #PROBLEM_PROPERTY} with that line, so the gateway's banner counts it as a problem.
 *
 * <p>Only loaded when the package {@code org.osgi.service.cm} is wired to the API bundle (its import is
 * optional); {@link ConduitActivator} checks that first. Configuration Admin calls {@link #updated} on its own
 * thread, one call at a time; {@link #close} runs on the thread stopping the API bundle.
 */
final class TransportConfiguration implements ManagedService {

    /** The configuration PID. */
    static final String PID = "io.conduit.transport";
    /** The preference property. */
    static final String TRANSPORT = "transport";
    /** The strict property. */
    static final String STRICT = "strict";
    /**
     * Service property of this {@code ManagedService}: while the last configuration was rejected, or had keys that
     * were ignored, the one line that says so (the text of the ERROR or WARNING line; {@code java.util.logging}
     * shows ERROR as SEVERE); absent otherwise. The gateway's launcher reads it to count the problem in its banner.
     * Configuration Admin does not configure the service again when its properties change but its
     * {@code service.pid} does not.
     */
    static final String PROBLEM_PROPERTY = "conduit.transport.configuration.problem";
    /** The property FileInstall adds: the URL of the file the configuration came from. */
    private static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";

    private final TransportRegistry registry;
    private final System.Logger log;

    /** Written by Configuration Admin's thread, read by {@link #close}: whether a configuration was applied. */
    private volatile boolean applied;
    /** The {@value #PROBLEM_PROPERTY} now, or {@code null}; guarded by {@code this}. */
    private String problem;
    /** This service's registration, to publish {@link #problem} on; {@code null} before; guarded by {@code this}. */
    private ServiceRegistration<ManagedService> registration;
    /** The registration's own properties, without {@value #PROBLEM_PROPERTY}; guarded by {@code this}. */
    private Dictionary<String, Object> base;

    TransportConfiguration(TransportRegistry registry) {
        this(registry, System.getLogger(TransportRegistry.LOGGER_NAME));
    }

    /** Like {@link #TransportConfiguration(TransportRegistry)}, logging to {@code log} (tests). */
    TransportConfiguration(TransportRegistry registry, System.Logger log) {
        this.registry = registry;
        this.log = log;
    }

    /** Registers the managed service; returns a handle whose {@code run()} unregisters it. */
    static Runnable register(BundleContext context, TransportRegistry registry) {
        TransportConfiguration binding = new TransportConfiguration(registry);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(Constants.SERVICE_PID, PID);
        props.put(Constants.SERVICE_DESCRIPTION, "Conduit transport selection (io.conduit.transport)");
        ServiceRegistration<ManagedService> reg = context.registerService(ManagedService.class, binding, props);
        binding.published(reg, props);
        return () -> {
            try {
                reg.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregisters a stopping bundle's services itself
            }
            binding.close();
        };
    }

    /** Keeps {@code reg} (with its properties {@code props}) and publishes the problem recorded before it existed. */
    private synchronized void published(ServiceRegistration<ManagedService> reg, Dictionary<String, Object> props) {
        registration = reg;
        base = props;
        publishProblem();
    }

    /** @return the {@value #PROBLEM_PROPERTY} of the last configuration, or {@code null} */
    synchronized String problem() {
        return problem;
    }

    /** Records the {@value #PROBLEM_PROPERTY} ({@code null}: none) and publishes it on the registration. */
    private synchronized void problem(String line) {
        if (java.util.Objects.equals(problem, line)) {
            return;
        }
        problem = line;
        publishProblem();
    }

    private void publishProblem() {
        if (registration == null) {
            return;
        }
        Dictionary<String, Object> props = new Hashtable<>();
        for (java.util.Enumeration<String> keys = base.keys(); keys.hasMoreElements(); ) {
            String key = keys.nextElement();
            props.put(key, base.get(key));
        }
        if (problem != null) {
            props.put(PROBLEM_PROPERTY, problem);
        }
        try {
            registration.setProperties(props);
        } catch (IllegalStateException unregistered) {
            // the API bundle is stopping
        }
    }

    /**
     * Undoes what this binding applied (after the service was unregistered): the overrides of an applied
     * configuration and a recorded rejection.
     */
    void close() {
        registry.setRejectedConfiguration(null);
        if (applied) {
            applied = false;
            registry.setOverrides(null, null);
        }
    }

    /**
     * Applies {@code properties}, or rejects all of them when one is malformed (see the class comment).
     *
     * @param properties the configuration, or {@code null} when there is none (deleted, or never created)
     */
    @Override
    public void updated(Dictionary<String, ?> properties) {
        if (properties == null) {
            if (applied) {
                log.log(System.Logger.Level.INFO, "configuration " + PID + " deleted; conduit.transport and "
                        + "conduit.transport.strict apply again");
            }
            applied = false;
            registry.setRejectedConfiguration(null);
            registry.setOverrides(null, null);
            problem(null);
            return;
        }
        List<String> problems = new ArrayList<>();
        String transport = text(properties.get(TRANSPORT));
        if (transport != null) {
            try {
                ConduitProperties.parsePreference("property " + TRANSPORT, transport);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        Boolean strict = null;
        try {
            strict = bool(properties.get(STRICT));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        if (!problems.isEmpty()) {
            String rejection = "configuration " + PID + " REJECTED, none of its values applied: "
                    + String.join("; ", problems);
            registry.setRejectedConfiguration(rejection);
            problem(rejection);
            log.log(System.Logger.Level.ERROR, rejection + ". " + inEffect()
                    + ". Correct the configuration, or delete it to return to the system properties");
            return;
        }
        registry.setOverrides(transport, strict); // the values were checked above: it does not throw
        registry.setRejectedConfiguration(null);
        applied = true;
        // the selection it names once every transport bundle registered its provider (not "none" at start-up)
        Object file = properties.get(FILEINSTALL_FILENAME);
        Boolean strictApplied = strict;
        registry.whenStarted(() -> log.log(System.Logger.Level.INFO, appliedLine(file, transport, strictApplied)));
        List<String> unknown = unknownKeys(properties);
        if (!unknown.isEmpty()) {
            StringBuilder w = new StringBuilder("configuration " + PID + ": unknown ")
                    .append(unknown.size() == 1 ? "key " : "keys ");
            for (int i = 0; i < unknown.size(); i++) {
                String key = unknown.get(i);
                String bare = withoutByteOrderMark(key);
                String like = closestKey(key);
                String note = bare != null ? " (" + byteOrderMark(bare) + ")"
                        : like != null ? " (did you mean '" + like + "'?)" : "";
                w.append(i == 0 ? "" : ", ").append('\'').append(bare != null ? "<BOM>" + bare : key).append('\'')
                        .append(note);
            }
            boolean anyKnown = properties.get(TRANSPORT) != null || properties.get(STRICT) != null;
            String warning = w.append(" ignored; known keys: ").append(TRANSPORT).append(", ").append(STRICT)
                    .append(anyKnown ? " (the other values were applied)" : " (it sets neither, so nothing changed)")
                    .toString();
            log.log(System.Logger.Level.WARNING, warning);
            problem(warning);
        } else {
            problem(null);
        }
    }

    /**
     * @return the one line logged for an applied configuration, e.g. {@code configuration io.conduit.transport
     *         applied (file:/opt/gateway/conf/io.conduit.transport.cfg): transport='epoll,nio', strict=system property
     *         conduit.transport.strict; selected: epoll}: a changed file is applied only once FileInstall saw it
     *         unchanged across two polls, so this line tells the operator which version took effect. At start-up it
     *         is made once the framework has started ({@link TransportRegistry#whenStarted}), so the selection it
     *         names is the one made with every transport registered
     */
    private String appliedLine(Object file, String transport, Boolean strict) {
        TransportSelection selection = registry.selection();
        return "configuration " + PID + " applied" + (file != null ? " (" + file + ")" : "") + ": "
                + TRANSPORT + "=" + (transport != null ? "'" + transport + "'"
                        : "system property " + ConduitProperties.TRANSPORT) + ", "
                + STRICT + "=" + (strict != null ? strict : "system property " + ConduitProperties.STRICT)
                + "; selected: " + selection.selected().orElse("none (" + selection.reason() + ")");
    }

    /**
     * @return the keys of {@code properties} this configuration does not know, in order; keys with a dot are left
     *         out (Configuration Admin's and FileInstall's own, e.g. {@code service.pid},
     *         {@code felix.fileinstall.filename})
     */
    static List<String> unknownKeys(Dictionary<String, ?> properties) {
        List<String> unknown = new ArrayList<>();
        for (java.util.Enumeration<String> keys = properties.keys(); keys.hasMoreElements(); ) {
            String key = keys.nextElement();
            if (!key.contains(".") && !key.equals(TRANSPORT) && !key.equals(STRICT)) {
                unknown.add(key);
            }
        }
        java.util.Collections.sort(unknown);
        return unknown;
    }

    /** @return what a byte order mark before the first key {@code bare} did to the file, and what to do */
    private static String byteOrderMark(String bare) {
        return "the file starts with a UTF-8 byte order mark, " + (bare.startsWith("#") || bare.startsWith("!")
                ? "which turns its first line, a comment, into a key" : "read as part of its first key '" + bare + "'")
                + ": save the file as UTF-8 without a byte order mark";
    }

    /**
     * @return {@code key} without the UTF-8 byte order mark it starts with, as FileInstall decodes one (three
     *         ISO-8859-1 characters in a {@code .cfg} file, U+FEFF in a UTF-8 {@code .config} file), or {@code null}
     */
    static String withoutByteOrderMark(String key) {
        // the gateway's GatewayConfig has the same rule and text for its own keys (this package is not exported)
        for (String mark : List.of("\u00EF\u00BB\u00BF", "\uFEFF")) {
            if (key.startsWith(mark)) {
                return key.substring(mark.length());
            }
        }
        return null;
    }

    /**
     * @return the known key {@code key} is a plausible typo of ({@link Suggestions}: the same letters in another
     *         case, or at most one edit per four characters, 1 to 3: the gateway's rule for its own keys), or
     *         {@code null}
     */
    static String closestKey(String key) {
        return Suggestions.closest(key, List.of(TRANSPORT, STRICT));
    }

    /** @return what a rejected configuration leaves in effect, for its log line */
    private String inEffect() {
        String preference = registry.preferenceOverride();
        Boolean strict = registry.strictOverride();
        if (preference == null && strict == null) {
            return "Still in effect, unchanged: system properties " + ConduitProperties.TRANSPORT + " and "
                    + ConduitProperties.STRICT;
        }
        return "Still in effect, unchanged: "
                + (preference == null ? "system property " + ConduitProperties.TRANSPORT
                        : TRANSPORT + "='" + preference + "'")
                + ", " + (strict == null ? "system property " + ConduitProperties.STRICT : STRICT + "=" + strict);
    }

    /** @return the preference text, or {@code null} for a missing or blank value */
    static String text(Object value) {
        if (value == null) {
            return null;
        }
        String s;
        if (value instanceof Collection) {
            StringJoiner j = new StringJoiner(",");
            for (Object o : (Collection<?>) value) {
                j.add(String.valueOf(o));
            }
            s = j.toString();
        } else if (value.getClass().isArray()) {
            StringJoiner j = new StringJoiner(",");
            for (int i = 0, n = Array.getLength(value); i < n; i++) {
                j.add(String.valueOf(Array.get(value, i)));
            }
            s = j.toString();
        } else {
            s = value.toString();
        }
        return s.isBlank() ? null : s;
    }

    /** @return the strict flag, or {@code null} for a missing or blank value */
    static Boolean bool(Object value) {
        if (value == null || value instanceof Boolean) {
            return (Boolean) value;
        }
        String s = value.toString();
        if (s.isBlank()) {
            return null;
        }
        if (s.trim().equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.trim().equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("property " + STRICT + "='" + s + "' is not a boolean; allowed values:"
                + " true, false (any case), or no value to use system property " + ConduitProperties.STRICT);
    }
}
