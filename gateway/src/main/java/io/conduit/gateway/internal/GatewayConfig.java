package io.conduit.gateway.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads typed values out of a component's configuration properties (Configuration Admin, via Declarative Services),
 * with errors that name the configuration, the property and an example of a valid value.
 *
 * <p>Values written by Felix FileInstall in {@code .cfg} files arrive as strings; {@code .config} files and programs
 * may pass numbers, arrays and collections. Every reader accepts both. Stateless and thread-safe.
 */
public final class GatewayConfig {

    private GatewayConfig() {
    }

    /**
     * The configuration's name as used in log lines: the FileInstall file name when present, else the PID.
     *
     * @param props component properties
     * @return e.g. {@code io.conduit.gateway.relay-redis.cfg}, or the PID, or {@code "(unnamed)"}
     */
    public static String name(Map<String, ?> props) {
        Object file = props.get("felix.fileinstall.filename");
        if (file != null) {
            String f = file.toString();
            int slash = f.lastIndexOf('/');
            return slash >= 0 ? f.substring(slash + 1) : f;
        }
        Object pid = props.get("service.pid");
        if (pid == null) {
            pid = props.get("component.name");
        }
        return pid != null ? pid.toString() : "(unnamed)";
    }

    /**
     * The configuration's Configuration Admin PID ({@code service.pid}), for the shell commands.
     *
     * @param props component properties
     * @return e.g. {@code io.conduit.gateway.relay~redis}, else the {@linkplain #name(Map) name}
     */
    public static String pid(Map<String, ?> props) {
        Object pid = props.get("service.pid");
        return pid != null ? pid.toString() : name(props);
    }

    /**
     * A required endpoint URI.
     *
     * @throws IllegalArgumentException when missing or malformed, e.g.
     *         {@code missing 'upstream' (e.g. upstream = tcp://127.0.0.1:6379)}
     */
    public static GatewayUri uri(Map<String, ?> props, String key, String example) {
        Object v = props.get(key);
        if (v == null || v.toString().isBlank()) {
            throw new IllegalArgumentException("missing '" + key + "' (e.g. " + key + " = " + example + ")");
        }
        try {
            return GatewayUri.parse(v.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + key + "' " + e.getMessage(), e);
        }
    }

    /**
     * A required, non-empty list of endpoint URIs: an array, a collection, or one string with the URIs separated by
     * commas and/or blanks.
     *
     * @throws IllegalArgumentException when missing, empty or when any element is malformed (the first bad one named)
     */
    public static List<GatewayUri> uris(Map<String, ?> props, String key, String example) {
        Object v = props.get(key);
        List<String> texts = new ArrayList<>();
        if (v instanceof String[] array) {
            for (String s : array) {
                split(s, texts);
            }
        } else if (v instanceof Collection<?> c) {
            for (Object o : c) {
                split(String.valueOf(o), texts);
            }
        } else if (v != null) {
            split(v.toString(), texts);
        }
        if (texts.isEmpty()) {
            throw new IllegalArgumentException("missing '" + key + "' (e.g. " + key + " = " + example + ")");
        }
        List<GatewayUri> result = new ArrayList<>(texts.size());
        for (String t : texts) {
            try {
                result.add(GatewayUri.parse(t));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + key + "' " + e.getMessage(), e);
            }
        }
        return List.copyOf(result);
    }

    private static void split(String s, List<String> into) {
        for (String part : s.split("[,\\s]+")) {
            if (!part.isEmpty()) {
                into.add(part);
            }
        }
    }

    /**
     * An optional non-negative integer with a unit suffix in its key (e.g. {@code connect.timeout.ms}).
     *
     * @param min smallest accepted value
     * @throws IllegalArgumentException when not an integer or below {@code min}
     */
    public static int intValue(Map<String, ?> props, String key, int defaultValue, int min) {
        Object v = props.get(key);
        if (v == null || v.toString().isBlank()) {
            return defaultValue;
        }
        long value;
        if (v instanceof Number n) {
            value = n.longValue();
        } else {
            try {
                value = Long.parseLong(v.toString().strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + key + "' = '" + v + "' is not a whole number (e.g. " + key
                        + " = " + defaultValue + ")");
            }
        }
        if (value < min || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + key + "' = " + value + " is out of range " + min + ".."
                    + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    /**
     * An optional boolean: {@code true}/{@code false} in any case.
     *
     * @throws IllegalArgumentException for any other text
     */
    public static boolean boolValue(Map<String, ?> props, String key, boolean defaultValue) {
        Object v = props.get(key);
        if (v == null || v.toString().isBlank()) {
            return defaultValue;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String s = v.toString().strip().toLowerCase(Locale.ROOT);
        if (s.equals("true") || s.equals("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new IllegalArgumentException("'" + key + "' = '" + v + "' is not true or false");
    }
}
