package io.conduit.internal.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * An immutable snapshot of Conduit's system properties (docs/configuration.md), parsing rules included: the one place
 * that knows every {@code conduit.*} property of that table, its default and what it allows. Reading is separated
 * from parsing so the selection rules are pure functions of a snapshot ({@link #of(Map)} in tests,
 * {@link #fromSystem()} at run time). Two snapshots are equal when every raw value is equal.
 *
 * <p>One rule for every property: unset means the default; a set value must be one the property allows (booleans:
 * {@code true} or {@code false} in any case; surrounding whitespace is ignored; an empty value is never allowed), and
 * any other value is an error naming the property, the value and what is allowed. {@link #problems()} lists those
 * errors up front: the selection fails with them, and so does every new event loop group of the shared channel core
 * ({@link #checkSystemProperties()}). The code that uses a property parses it with the static methods here, so it
 * fails with the same message rather than reading a malformed value as something else.
 */
public final class ConduitProperties {

    public static final String TRANSPORT = "conduit.transport";
    public static final String STRICT = "conduit.transport.strict";
    public static final String NO_NATIVE = "conduit.noNative";
    public static final String NO_UNSAFE = "conduit.noUnsafe";
    public static final String NATIVE_WORKDIR = "conduit.native.workdir";
    public static final String DELETE_LIB_AFTER_LOADING = "conduit.native.deleteLibAfterLoading";
    public static final String KQUEUE_EMULATION = "conduit.kqueue.emulation";
    public static final String KQUEUE_EMULATION_LIBRARY = "conduit.kqueue.emulation.library";
    public static final String LEAK_DETECTION = "conduit.leakDetection";
    public static final String MAX_DIRECT_MEMORY = "conduit.maxDirectMemory";
    public static final String EPOLL_BUSY_WAIT = "conduit.epoll.busyWait";
    public static final String RECYCLER_MAX_CAPACITY = "conduit.recycler.maxCapacityPerThread";
    /** {@code false}: no metrics MBean is registered (read at each registration). */
    public static final String JMX = "conduit.jmx";
    /** {@code false}: event loops count nothing (read once, when the first loop is made). */
    public static final String METRICS = "conduit.metrics";

    /** The value {@code conduit.transport} takes when unset: native transports by ranking, then the others. */
    public static final String AUTO = "auto";

    /** The values of {@value #LEAK_DETECTION}, lower case. */
    public static final List<String> LEAK_DETECTION_MODES = List.of("disabled", "simple", "paranoid");

    /** Every property of docs/configuration.md's table with its default as documented, in documentation order. */
    public static final Map<String, String> DEFAULTS;

    /** What a property allows. */
    private enum Kind { PREFERENCE, BOOLEAN, TEXT, LEAK_MODE, POSITIVE_LONG, NON_NEGATIVE_INT }

    /** The {@link Kind} of every property of {@link #DEFAULTS}; the same keys. */
    private static final Map<String, Kind> KINDS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        Map<String, Kind> k = new LinkedHashMap<>();
        define(d, k, TRANSPORT, AUTO, Kind.PREFERENCE);
        define(d, k, STRICT, "false", Kind.BOOLEAN);
        define(d, k, NO_NATIVE, "false", Kind.BOOLEAN);
        define(d, k, NO_UNSAFE, "false", Kind.BOOLEAN);
        define(d, k, NATIVE_WORKDIR, "${java.io.tmpdir}", Kind.TEXT);
        define(d, k, DELETE_LIB_AFTER_LOADING, "true", Kind.BOOLEAN);
        define(d, k, KQUEUE_EMULATION, "false", Kind.BOOLEAN);
        define(d, k, KQUEUE_EMULATION_LIBRARY, "none", Kind.TEXT);
        define(d, k, LEAK_DETECTION, "simple", Kind.LEAK_MODE);
        define(d, k, MAX_DIRECT_MEMORY, "3/4 of the heap limit", Kind.POSITIVE_LONG);
        define(d, k, EPOLL_BUSY_WAIT, "false", Kind.BOOLEAN);
        define(d, k, RECYCLER_MAX_CAPACITY, "4096", Kind.NON_NEGATIVE_INT);
        define(d, k, JMX, "true", Kind.BOOLEAN);
        define(d, k, METRICS, "true", Kind.BOOLEAN);
        DEFAULTS = Collections.unmodifiableMap(d);
        KINDS = Collections.unmodifiableMap(k);
    }

    private static void define(Map<String, String> defaults, Map<String, Kind> kinds, String name, String defaultText,
            Kind kind) {
        defaults.put(name, defaultText);
        kinds.put(name, kind);
    }

    /** A transport name: lower-case letters, digits, '-', '_' and '.'; starts with a letter or digit. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

    /** Raw values of the properties in {@link #DEFAULTS} that are set; never holds {@code null} values. */
    private final Map<String, String> raw;

    private ConduitProperties(Map<String, String> raw) {
        this.raw = raw;
    }

    /** @return the current values of the system properties of {@link #DEFAULTS} */
    public static ConduitProperties fromSystem() {
        return read(System::getProperty);
    }

    /** @param values property name to raw value; names not in {@link #DEFAULTS} are ignored */
    public static ConduitProperties of(Map<String, String> values) {
        return read(values::get);
    }

    private static ConduitProperties read(Function<String, String> source) {
        Map<String, String> raw = new LinkedHashMap<>();
        for (String name : DEFAULTS.keySet()) {
            String value = source.apply(name);
            if (value != null) {
                raw.put(name, value);
            }
        }
        return new ConduitProperties(Collections.unmodifiableMap(raw));
    }

    /**
     * @param name a property of {@link #DEFAULTS}
     * @param value its new raw value, or {@code null} to unset it
     * @return a snapshot like this one with {@code name} replaced (run-time overrides of a system property)
     * @throws IllegalArgumentException when {@code name} is not a Conduit property
     */
    public ConduitProperties with(String name, String value) {
        if (!DEFAULTS.containsKey(name)) {
            throw new IllegalArgumentException("'" + name + "' is not a Conduit property; known: " + DEFAULTS.keySet());
        }
        Map<String, String> copy = new LinkedHashMap<>(raw);
        if (value == null) {
            copy.remove(name);
        } else {
            copy.put(name, value);
        }
        return new ConduitProperties(Collections.unmodifiableMap(copy));
    }

    /** @return the raw value, or {@code null} when the property is not set */
    public String raw(String name) {
        return raw.get(name);
    }

    /**
     * A boolean property: {@code true} or {@code false}, case-insensitive, surrounding whitespace ignored.
     *
     * @throws IllegalArgumentException naming the property, the value and the allowed values otherwise
     */
    public boolean bool(String name) {
        return parseBoolean(name, raw.get(name), Boolean.parseBoolean(DEFAULTS.get(name)));
    }

    /**
     * Parses a boolean property value: {@code true} or {@code false}, case-insensitive, surrounding whitespace
     * ignored; {@code null} (unset) gives {@code defaultValue}.
     *
     * @throws IllegalArgumentException for anything else, naming the property, the value and the allowed values
     */
    public static boolean parseBoolean(String name, String value, boolean defaultValue) {
        if (value == null) {
            return defaultValue;
        }
        String v = value.trim();
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("system property " + name + "='" + value
                + "' is not a boolean; allowed values: true, false (case-insensitive); default: " + defaultValue);
    }

    /**
     * Parses {@value #LEAK_DETECTION}: one of {@link #LEAK_DETECTION_MODES}, case-insensitive, surrounding
     * whitespace ignored.
     *
     * @return the mode in lower case; {@code simple} when {@code value} is {@code null} (unset)
     * @throws IllegalArgumentException for anything else, naming the property, the value and the allowed values
     */
    public static String parseLeakDetection(String value) {
        if (value == null) {
            return DEFAULTS.get(LEAK_DETECTION);
        }
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (LEAK_DETECTION_MODES.contains(v)) {
            return v;
        }
        throw invalid(LEAK_DETECTION, value, String.join(", ", LEAK_DETECTION_MODES) + " (case-insensitive)");
    }

    /**
     * Parses {@value #MAX_DIRECT_MEMORY}: a whole number of bytes, at least 1.
     *
     * @return the cap in bytes, or {@code -1} when {@code value} is {@code null} (unset:
     *         {@link #defaultMaxDirectMemory()} applies)
     * @throws IllegalArgumentException for anything else, naming the property, the value and what is allowed
     */
    public static long parseMaxDirectMemory(String value) {
        if (value == null) {
            return -1;
        }
        try {
            long bytes = Long.parseLong(value.trim());
            if (bytes > 0) {
                return bytes;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(MAX_DIRECT_MEMORY, value, "a whole number of bytes from 1 to " + Long.MAX_VALUE);
    }

    /**
     * @return the default of {@value #MAX_DIRECT_MEMORY}: 3/4 of {@link Runtime#maxMemory()}, which is also the JVM's
     *         default {@code -XX:MaxDirectMemorySize}
     */
    public static long defaultMaxDirectMemory() {
        return Runtime.getRuntime().maxMemory() / 4 * 3;
    }

    /**
     * Parses {@value #RECYCLER_MAX_CAPACITY}: a whole number from 0 (pooling disabled) to {@link Integer#MAX_VALUE}.
     *
     * @return the capacity; {@code 4096} when {@code value} is {@code null} (unset)
     * @throws IllegalArgumentException for anything else, naming the property, the value and what is allowed
     */
    public static int parseRecyclerCapacity(String value) {
        if (value == null) {
            return Integer.parseInt(DEFAULTS.get(RECYCLER_MAX_CAPACITY));
        }
        try {
            int capacity = Integer.parseInt(value.trim());
            if (capacity >= 0) {
                return capacity;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(RECYCLER_MAX_CAPACITY, value, "a whole number from 0 (pooling disabled) to "
                + Integer.MAX_VALUE);
    }

    /**
     * Checks a path property ({@value #NATIVE_WORKDIR}, {@value #KQUEUE_EMULATION_LIBRARY}): any value but an empty
     * one.
     *
     * @return the value without surrounding whitespace, or {@code null} when unset
     * @throws IllegalArgumentException naming the property when the value is empty or only whitespace
     */
    public static String parseText(String name, String value) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.isEmpty()) {
            throw invalid(name, value, name.equals(NATIVE_WORKDIR) ? "a directory path" : "a file path");
        }
        return v;
    }

    private static IllegalArgumentException invalid(String name, String value, String allowed) {
        return new IllegalArgumentException("system property " + name + "='" + value + "' is not valid; allowed"
                + " values: " + allowed + "; default: " + DEFAULTS.get(name));
    }

    /**
     * @return one error per set property of {@link #DEFAULTS} whose value is malformed, in documentation order, each
     *         naming the property, the value and what is allowed; empty when every value is valid. Not
     *         {@value #TRANSPORT}: the selection parses the preference it actually uses, which a run-time override
     *         may have taken the place of
     */
    public List<IllegalArgumentException> problems() {
        List<IllegalArgumentException> out = new ArrayList<>();
        for (Map.Entry<String, String> e : raw.entrySet()) {
            if (e.getKey().equals(TRANSPORT)) {
                continue;
            }
            try {
                check(e.getKey(), e.getValue());
            } catch (IllegalArgumentException problem) {
                out.add(problem);
            }
        }
        return out;
    }

    /** @return {@code true} when {@code name} is unset or has a value it allows */
    public boolean isValid(String name) {
        String value = raw.get(name);
        if (value == null) {
            return true;
        }
        try {
            check(name, value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void check(String name, String value) {
        switch (KINDS.get(name)) {
            case PREFERENCE -> parsePreference(name, value);
            case BOOLEAN -> parseBoolean(name, value, Boolean.parseBoolean(DEFAULTS.get(name)));
            case TEXT -> parseText(name, value);
            case LEAK_MODE -> parseLeakDetection(value);
            case POSITIVE_LONG -> parseMaxDirectMemory(value);
            case NON_NEGATIVE_INT -> parseRecyclerCapacity(value);
        }
    }

    /**
     * Fails fast when a Conduit system property that channels and event loops depend on is malformed: called where
     * work can start without a transport selection (a new event loop group of the shared core), so a malformed value
     * stops it up front instead of failing every read later. The selection's own properties ({@value #TRANSPORT},
     * {@value #STRICT}) are left to the selection: a configuration may override them.
     *
     * @throws IllegalArgumentException the first such problem of {@link #problems()} of {@link #fromSystem()}, the
     *         others appended to its message and attached as suppressed exceptions
     */
    public static void checkSystemProperties() {
        List<IllegalArgumentException> problems = fromSystem().with(STRICT, null).problems();
        if (problems.isEmpty()) {
            return;
        }
        StringBuilder message = new StringBuilder(problems.get(0).getMessage());
        for (int i = 1; i < problems.size(); i++) {
            message.append("; ").append(problems.get(i).getMessage());
        }
        IllegalArgumentException e = new IllegalArgumentException(message.toString());
        problems.forEach(e::addSuppressed);
        throw e;
    }

    /**
     * @return the {@code conduit.transport} preference parsed by {@link #parsePreference(String, String)}
     * @throws IllegalArgumentException when it is malformed
     */
    public List<String> transportPreference() {
        return parsePreference(TRANSPORT, raw.getOrDefault(TRANSPORT, AUTO));
    }

    /**
     * Parses a transport preference: {@code auto} (empty list) or an ordered comma-separated list of transport
     * names such as {@code "epoll, nio"}. Whitespace around names is ignored and names are lower-cased;
     * repeated names keep their first position.
     *
     * @param origin names where the text came from, for the error message (e.g. the property name)
     * @return the names in preference order; empty for {@code auto}
     * @throws IllegalArgumentException when the text is empty, has an empty entry, mixes {@code auto} with
     *         names, or has a name with characters other than letters (any case), digits, {@code .}, {@code _} and
     *         {@code -}: {@code IO_URING} is {@code io_uring}, as Karaf and OSGi configuration compares booleans and
     *         {@code auto} regardless of case
     */
    public static List<String> parsePreference(String origin, String text) {
        Objects.requireNonNull(text, "text");
        String hint = "; expected 'auto' or an ordered comma-separated list of transport names, e.g. 'epoll,nio'";
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException(origin + "='" + text + "' is empty" + hint);
        }
        if (trimmed.equalsIgnoreCase(AUTO)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String part : trimmed.split(",", -1)) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                throw new IllegalArgumentException(origin + "='" + text + "' has an empty entry" + hint);
            }
            if (name.equals(AUTO)) {
                throw new IllegalArgumentException(origin + "='" + text
                        + "' mixes 'auto' with transport names; use either 'auto' alone or a list of names"
                        + " (transports not listed are tried after the listed ones anyway)");
            }
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(origin + "='" + text + "' has an invalid transport name '"
                        + part.trim() + "' (allowed characters: letters a-z in any case, digits 0-9, '.', '_', '-')"
                        + hint);
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        return List.copyOf(names);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConduitProperties && ((ConduitProperties) o).raw.equals(raw);
    }

    @Override
    public int hashCode() {
        return raw.hashCode();
    }

    @Override
    public String toString() {
        return raw.toString();
    }
}
