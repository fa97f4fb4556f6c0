package io.conduit.gateway.internal.config;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;

/**
 * Reads typed values out of a component's configuration properties (Configuration Admin, via Declarative Services),
 * with errors that name the configuration, the property and an example of a valid value.
 *
 * <p>Values written by Felix FileInstall in {@code .cfg} files arrive as strings; {@code .config} files and programs
 * may pass numbers, arrays and collections. Every reader accepts both. Stateless and thread-safe.
 */
public final class GatewayConfig {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

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
            if (f.startsWith("file:")) {
                try { // FileInstall writes a URL: 'a%20b.cfg' is the file 'a b.cfg'
                    Path p = Path.of(URI.create(f)).getFileName();
                    if (p != null) {
                        return p.toString();
                    }
                } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException notAFileUrl) {
                    // the name as written
                }
            }
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
     * Refuses a singleton configuration of one of the gateway's factory components: Declarative Services hands a
     * component the configuration of its PID too ({@code conf/io.conduit.gateway.echo.cfg}, without {@code -<name>}),
     * but echo and relay configurations are factory configurations, one file each.
     *
     * @param kind       {@code echo} or {@code relay}
     * @param factoryPid the component's factory PID
     * @param props      the component properties
     * @throws IllegalArgumentException for a singleton configuration, naming the file and the name it needs
     */
    static void requireFactoryConfiguration(String kind, String factoryPid, Map<String, ?> props) {
        if (!singletonOf(factoryPid, props)) {
            return;
        }
        if (props.get("felix.fileinstall.filename") != null) {
            String file = name(props);
            int dot = file.lastIndexOf('.');
            String ext = dot > 0 ? file.substring(dot) : ".cfg";
            throw new IllegalArgumentException(file + " has no '-<name>': " + kind + " configurations are factory "
                    + "configurations, one file per " + kind + " named " + factoryPid + "-<name>" + ext
                    + "; rename it (e.g. to " + factoryPid + "-1" + ext + ")");
        }
        throw new IllegalArgumentException("'" + props.get("service.pid") + "' is a singleton configuration: " + kind
                + " configurations are factory configurations of " + factoryPid + " (files " + factoryPid
                + "-<name>.cfg)");
    }

    /**
     * @return whether {@code props} are those of the singleton configuration of {@code factoryPid} (PID
     *         {@code factoryPid}, or targeted: {@code factoryPid|...}), not of one of its factory configurations
     *         (which have a {@code service.factoryPid})
     */
    static boolean singletonOf(String factoryPid, Map<String, ?> props) {
        Object pid = props.get("service.pid");
        return props.get("service.factoryPid") == null && pid != null
                && (pid.toString().equals(factoryPid) || pid.toString().startsWith(factoryPid + "|"));
    }

    /**
     * Key prefixes that Configuration Admin, Felix FileInstall, Declarative Services and the framework put into a
     * component's properties ({@code service.pid}, {@code service.factoryPid}, {@code felix.fileinstall.filename},
     * {@code component.name}, {@code component.id}, ...): never reported as unknown. Keys starting with {@code .}
     * (private configuration properties) are not reported either.
     */
    static final List<String> FRAMEWORK_KEY_PREFIXES = List.of("service.", "component.", "felix.", "osgi.",
            "objectClass", ":");

    /**
     * The keys of {@code props} that are neither in {@code known} nor the framework's own, each with the known key it
     * is most likely a typo of.
     *
     * @param known the keys the component reads
     * @return e.g. {@code unknown key 'upstrem' (did you mean 'upstream'?)} or
     *         {@code unknown keys 'colour', 'zerocopy' (did you mean 'zeroCopy'?)}, or {@code null} when every key is
     *         known
     */
    public static String unknownKeys(Map<String, ?> props, List<String> known) {
        List<String> keys = new ArrayList<>();
        for (String key : new java.util.TreeSet<>(props.keySet())) {
            if (known.contains(key) || key.startsWith(".") || FRAMEWORK_KEY_PREFIXES.stream().anyMatch(key::startsWith)) {
                continue;
            }
            String bare = withoutByteOrderMark(key);
            if (bare != null) {
                keys.add("'<BOM>" + bare + "' (" + byteOrderMark(bare) + ")");
                continue;
            }
            String guess = closest(key, known);
            keys.add("'" + key + "'" + (guess != null ? " (did you mean '" + guess + "'?)" : ""));
        }
        if (keys.isEmpty()) {
            return null;
        }
        return (keys.size() == 1 ? "unknown key " : "unknown keys ") + String.join(", ", keys);
    }

    /**
     * A UTF-8 byte order mark (EF BB BF) at the start of a file, as FileInstall's readers decode it: ISO-8859-1 for
     * {@code .cfg} files (as {@code java.util.Properties} reads a stream), UTF-8 for {@code .config} files.
     */
    private static final List<String> BYTE_ORDER_MARKS = List.of("\u00EF\u00BB\u00BF", "\uFEFF");

    /**
     * @param bare the first key without the mark
     * @return what the byte order mark did to the file and what to do
     */
    static String byteOrderMark(String bare) {
        return bare.startsWith("#") || bare.startsWith("!")
                ? "the file starts with a UTF-8 byte order mark, which turns its first line, a comment, into a key: save"
                        + " the file as UTF-8 without a byte order mark"
                : "the file starts with a UTF-8 byte order mark, read as part of its first key '" + bare + "': save the"
                        + " file as UTF-8 without a byte order mark";
    }

    /** @return {@code key} without the byte order mark it starts with, or {@code null} when it starts with none */
    static String withoutByteOrderMark(String key) {
        for (String mark : BYTE_ORDER_MARKS) {
            if (key.startsWith(mark)) {
                return key.substring(mark.length());
            }
        }
        return null;
    }

    /** @return the known key {@code key} is a plausible typo of (same letters in another case, or a few edits), or null */
    private static String closest(String key, List<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = k.equalsIgnoreCase(key) ? 0 : distance(key.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        // one edit per four characters, at least one, at most three: 'upstrem' -> 'upstream', not 'port' -> 'listen'
        int allowed = Math.max(1, Math.min(3, key.length() / 4));
        return bestDistance <= allowed ? best : null;
    }

    /** @return the Levenshtein distance of {@code a} and {@code b} (insertions, deletions, substitutions) */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                row[j] = Math.min(substitute, Math.min(previous[j] + 1, row[j - 1] + 1));
            }
            int[] t = previous;
            previous = row;
            row = t;
        }
        return previous[b.length()];
    }

    /**
     * Runs {@code parse}, then tells about the {@linkplain #unknownKeys unknown keys}: Configuration Admin passes any
     * key through, so a misspelt one would be ignored silently. A configuration that is valid without them runs, with
     * one WARNING line naming them and the known keys; one that is not fails with them named first, as they often
     * explain the other problem ({@code upstrem}: "missing 'upstream'").
     *
     * @param kind e.g. {@code "relay"}, for the warning
     * @throws IllegalArgumentException naming the unknown keys first, then the first other problem
     */
    static <T> T validated(String kind, Map<String, ?> props, List<String> known, java.util.function.Supplier<T> parse) {
        String unknown = unknownKeys(props, known);
        T value;
        try {
            value = parse.get();
        } catch (IllegalArgumentException e) {
            throw unknown == null ? e : new IllegalArgumentException(unknown + "; " + e.getMessage(), e);
        }
        if (unknown != null) {
            LOG.log(System.Logger.Level.WARNING, kind + " " + name(props) + ": " + unknown + ", ignored; the keys of " + kind
                    + " configurations are: " + String.join(", ", known));
        }
        return value;
    }

    /**
     * Tells about keys of a valid configuration that cannot act on its endpoints, such as
     * {@value #UDP_RECEIVE_BUFFER_KEY} on an echo without UDP endpoints: one WARNING line naming the configuration
     * (its file), the keys and why they have no effect. They are ignored and the configuration runs, as with
     * {@linkplain #validated unknown keys}: the key is well-formed, its value was checked, and the endpoints work as
     * configured; only the user's intent (perhaps a {@code udp://} endpoint left out of {@code listen}) is in doubt.
     *
     * @param kind      e.g. {@code "echo"}, for the warning
     * @param keys      the keys that have no effect here; those absent from {@code props} are not named
     * @param appliesTo the endpoints the keys act on, e.g. {@code "UDP endpoints"}
     * @param listen    the configuration's {@code listen} value, which has none of those endpoints
     * @return the line logged, or {@code null} when {@code props} holds none of {@code keys}
     */
    static String warnWithoutEffect(String kind, Map<String, ?> props, List<String> keys, String appliesTo,
            Object listen) {
        List<String> present = new ArrayList<>();
        for (String key : keys) {
            if (props.containsKey(key)) {
                present.add("'" + key + "'");
            }
        }
        if (present.isEmpty()) {
            return null;
        }
        boolean one = present.size() == 1;
        String line = kind + " " + name(props) + ": " + (one ? "key " : "keys ") + String.join(", ", present)
                + (one ? " has" : " have") + " no effect, ignored: " + (one ? "it applies" : "they apply") + " to "
                + appliesTo + " only, and 'listen' (" + listen + ") has none";
        LOG.log(System.Logger.Level.WARNING, line);
        return line;
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
     * @return the value, or {@code defaultValue} when the key is absent
     * @throws IllegalArgumentException when empty, not an integer or below {@code min}, naming the key, the value and
     *         the range ({@link #EMPTY_VALUE})
     */
    public static int intValue(Map<String, ?> props, String key, int defaultValue, int min) {
        Object v = props.get(key);
        if (v == null) {
            return defaultValue;
        }
        return intValue(key, v, min, defaultValue, "for the default, " + defaultValue);
    }

    /**
     * The key of the receive buffer ({@code SO_RCVBUF}, socket(7)) of an echo's or relay's UDP listening socket, in
     * bytes: {@value}.
     */
    public static final String UDP_RECEIVE_BUFFER_KEY = "udp.receive.buffer.bytes";
    /**
     * Default of {@value #UDP_RECEIVE_BUFFER_KEY}: 4 MiB. The kernel's default (212,992 bytes, {@code
     * net.core.rmem_default}) holds about 200 small datagrams; 100 clients with 16 datagrams in flight each overflowed
     * it, and 1 to 4 % of the datagrams were dropped on loopback before the gateway read them. Linux caps the value
     * at {@code net.core.rmem_max} and doubles it for its bookkeeping (socket(7)).
     */
    public static final int DEFAULT_UDP_RECEIVE_BUFFER_BYTES = 4 << 20;
    /** Smallest {@value #UDP_RECEIVE_BUFFER_KEY} accepted, in bytes (Linux raises smaller values to about 2 KiB). */
    static final int MIN_UDP_RECEIVE_BUFFER_BYTES = 4096;

    /**
     * {@value #UDP_RECEIVE_BUFFER_KEY}: the receive buffer of a UDP listening socket, in bytes.
     *
     * @return the value, or {@link #DEFAULT_UDP_RECEIVE_BUFFER_BYTES} when the key is absent
     * @throws IllegalArgumentException when empty or not a whole number from {@value #MIN_UDP_RECEIVE_BUFFER_BYTES} to
     *         {@link Integer#MAX_VALUE}, naming the key and the value
     */
    public static int udpReceiveBufferBytes(Map<String, ?> props) {
        return intValue(props, UDP_RECEIVE_BUFFER_KEY, DEFAULT_UDP_RECEIVE_BUFFER_BYTES, MIN_UDP_RECEIVE_BUFFER_BYTES);
    }

    /**
     * An optional positive integer whose absence turns a feature off (e.g. {@code max.connections}).
     *
     * @param example a valid value for the error message
     * @return the value, or 0 when the key is absent
     * @throws IllegalArgumentException when empty, not an integer or not in 1..{@link Integer#MAX_VALUE}
     */
    public static int positiveOrOff(Map<String, ?> props, String key, int example) {
        Object v = props.get(key);
        if (v == null) {
            return 0;
        }
        return intValue(key, v, 1, example, "to leave it off");
    }

    /**
     * @param absent what leaving the key out does, for the message about an empty value (e.g. {@code "for the
     *               default, 10000"})
     */
    private static int intValue(String key, Object v, int min, int example, String absent) {
        long value;
        if (v instanceof Number n) {
            value = n.longValue();
        } else {
            String text = v.toString().strip();
            if (text.isEmpty()) {
                throw empty(key, v, "a whole number in " + min + ".." + Integer.MAX_VALUE + " (e.g. " + key + " = "
                        + example + ")", absent);
            }
            try {
                value = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + key + "' = '" + v + "' is not a whole number (e.g. " + key
                        + " = " + example + ")");
            }
        }
        if (value < min || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + key + "' = " + value + " is out of range " + min + ".."
                    + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    /**
     * An optional choice among fixed words, e.g. {@code proxy.protocol.accept = v1|v2|any}; case and surrounding
     * blanks are ignored.
     *
     * @param allowed the words accepted, in lower case, in the order the error lists them
     * @return the word given, in lower case, or {@code null} when the key is absent
     * @throws IllegalArgumentException for an empty value ({@link #EMPTY_VALUE}) and any other text, e.g.
     *         {@code 'proxy.protocol.send' = 'v3' is not v1 or v2}
     */
    public static String choice(Map<String, ?> props, String key, List<String> allowed) {
        Object v = props.get(key);
        if (v == null) {
            return null;
        }
        String s = v.toString().strip().toLowerCase(Locale.ROOT);
        if (allowed.contains(s)) {
            return s;
        }
        String words = allowed.size() == 1 ? allowed.get(0)
                : String.join(", ", allowed.subList(0, allowed.size() - 1)) + " or " + allowed.get(allowed.size() - 1);
        if (s.isEmpty()) {
            throw empty(key, v, words, "to leave it off");
        }
        throw new IllegalArgumentException("'" + key + "' = '" + v + "' is not " + words);
    }

    /**
     * An optional boolean: {@code true}/{@code false} in any case.
     *
     * @return the value, or {@code defaultValue} when the key is absent
     * @throws IllegalArgumentException for an empty value ({@link #EMPTY_VALUE}) and any other text
     */
    public static boolean boolValue(Map<String, ?> props, String key, boolean defaultValue) {
        Object v = props.get(key);
        if (v == null) {
            return defaultValue;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String s = v.toString().strip().toLowerCase(Locale.ROOT);
        if (s.equals("true") || s.equals("false")) {
            return Boolean.parseBoolean(s);
        }
        if (s.isEmpty()) {
            throw empty(key, v, "true or false", "for the default, " + defaultValue);
        }
        throw new IllegalArgumentException("'" + key + "' = '" + v + "' is not true or false");
    }

    /**
     * How an empty value ({@code key =} in a {@code .cfg} file, which Configuration Admin passes on as an empty
     * string) of a number, a boolean or a choice is refused: {@value}, with the key, the value as written, what is
     * allowed and what leaving the key out does. An empty value was once read as an absent key, so a line whose value
     * was forgotten ({@code udp.receive.buffer.bytes =}) ran silently with the default while any other bad value
     * stopped the endpoint with one line; absent and empty differ, as {@code listen} already knew ("missing").
     */
    public static final String EMPTY_VALUE = "'%s' = '%s' is empty; allowed: %s; remove the line %s";

    private static IllegalArgumentException empty(String key, Object v, String allowed, String absent) {
        return new IllegalArgumentException(String.format(Locale.ROOT, EMPTY_VALUE, key, v, allowed, absent));
    }
}
