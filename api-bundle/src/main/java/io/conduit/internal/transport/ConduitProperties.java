package io.conduit.internal.transport;

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
 * An immutable snapshot of Conduit's system properties (DESIGN.md §4) with their parsing rules. Reading is
 * separated from parsing so the selection rules are pure functions of a snapshot ({@link #of(Map)} in tests,
 * {@link #fromSystem()} at run time). Two snapshots are equal when every raw value is equal.
 */
public final class ConduitProperties {

    public static final String TRANSPORT = "conduit.transport";
    public static final String STRICT = "conduit.transport.strict";
    public static final String NO_NATIVE = "conduit.noNative";
    public static final String NO_UNSAFE = "conduit.noUnsafe";
    public static final String NATIVE_WORKDIR = "conduit.native.workdir";
    public static final String DELETE_LIB_AFTER_LOADING = "conduit.native.deleteLibAfterLoading";
    public static final String LEAK_DETECTION = "conduit.leakDetection";

    /** The value {@code conduit.transport} takes when unset: native transports by ranking, then the others. */
    public static final String AUTO = "auto";

    /** Every property of DESIGN.md §4 with its default, in documentation order. */
    public static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        d.put(TRANSPORT, AUTO);
        d.put(STRICT, "false");
        d.put(NO_NATIVE, "false");
        d.put(NO_UNSAFE, "false");
        d.put(NATIVE_WORKDIR, "${java.io.tmpdir}");
        d.put(DELETE_LIB_AFTER_LOADING, "true");
        d.put(LEAK_DETECTION, "simple");
        DEFAULTS = Collections.unmodifiableMap(d);
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

    /** Parses a boolean property value; {@code null} gives {@code defaultValue}. */
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
     *         names, or has a name with characters other than {@code [a-z0-9._-]}
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
                        + part.trim() + "' (allowed characters: a-z 0-9 . _ -)" + hint);
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
