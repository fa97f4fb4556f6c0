package io.conduit.gateway.internal.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What Felix FileInstall and Configuration Admin will make of one file of the configuration directory, told before
 * they act, in words a user can act on: a file whose PID no component reads is ignored by everyone without a word,
 * and a file Configuration Admin rejects (an empty key, two keys that differ only in case) makes FileInstall print a
 * stack trace and drop the file. {@link ConfigurationFileWatch} applies these checks to every file FileInstall reads.
 *
 * <p>Stateless and thread-safe.
 */
final class ConfigurationFileCheck {

    /** PID of the API bundle's transport selection ({@code conf/io.conduit.transport.cfg}). */
    static final String TRANSPORT_PID = "io.conduit.transport";

    private ConfigurationFileCheck() {
    }

    /**
     * A configuration file's name as FileInstall reads it: the name without its extension is a PID, or, when it has
     * a {@code -} after its first character, a factory PID (before the first {@code -}) and the configuration's alias
     * (after it).
     *
     * @param file  the file name, e.g. {@code io.conduit.gateway.relay-redis.cfg}
     * @param pid   the PID, or the factory PID, e.g. {@code io.conduit.gateway.relay}
     * @param alias the factory configuration's alias, e.g. {@code redis}; {@code null} for a singleton PID
     */
    record FileName(String file, String pid, String alias) {

        /** @param file a file name with an extension ({@code .cfg}, {@code .config}) */
        static FileName of(String file) {
            int dot = file.lastIndexOf('.');
            String base = dot > 0 ? file.substring(0, dot) : file;
            int dash = base.indexOf('-');
            return dash > 0 ? new FileName(file, base.substring(0, dash), base.substring(dash + 1))
                    : new FileName(file, base, null);
        }

        boolean factory() {
            return alias != null;
        }

        /** @return e.g. {@code .cfg} */
        String extension() {
            int dot = file.lastIndexOf('.');
            return dot > 0 ? file.substring(dot) : "";
        }

        /** @return the PID Configuration Admin gives the configuration: {@code <factory PID>~<alias>} for a factory one */
        String configurationPid() {
            return factory() ? pid + "~" + alias : pid;
        }

        /** @return the PID without a target ({@code pid|bundle...}: a targeted PID names the same consumer) */
        String untargetedPid() {
            int bar = pid.indexOf('|');
            return bar > 0 ? pid.substring(0, bar) : pid;
        }
    }

    /**
     * The configurations the running framework reads.
     *
     * @param singletons PIDs read as one configuration each (a {@code ManagedService}, {@code io.conduit.transport})
     * @param factories  factory PIDs ({@code ManagedServiceFactory}, the gateway's echo and relay components)
     * @param alsoRead   PIDs some component reads although it is not listed for users (a Declarative Services
     *                   component with an optional configuration reads both forms)
     */
    record Known(Set<String> singletons, Set<String> factories, Set<String> alsoRead) {

        Known {
            singletons = Set.copyOf(singletons);
            factories = Set.copyOf(factories);
            alsoRead = Set.copyOf(alsoRead);
        }

        /** @return whether some component reads the configuration of {@code f} */
        boolean reads(FileName f) {
            String pid = f.untargetedPid();
            return alsoRead.contains(pid) || (f.factory() ? factories : singletons).contains(pid);
        }

        /**
         * @return the names of the files that are read, without extension, sorted, e.g.
         *         {@code io.conduit.gateway.echo-<name>, io.conduit.gateway.relay-<name>, io.conduit.transport}
         */
        String names() {
            Set<String> names = new TreeSet<>(singletons);
            for (String f : factories) {
                names.add(f + "-<name>");
            }
            return String.join(", ", names);
        }
    }

    /**
     * Why no component reads the file, with the name it probably should have, or else the names that are read.
     *
     * @return e.g. {@code ignored: no component reads factory PID 'io.conduit.gateway.echoo' (did you mean
     *         io.conduit.gateway.echo-typo.cfg?)}, {@code ignored: no component reads PID 'notes'; known names: ...},
     *         or {@code null} when some component reads it
     */
    static String nameProblem(FileName f, Known known) {
        if (known.reads(f)) {
            return null;
        }
        String pid = f.untargetedPid();
        String why;
        String guess = null;
        if (f.factory() && known.singletons().contains(pid)) {
            why = "'" + pid + "' takes one configuration, not factory configurations ('-" + f.alias()
                    + "'): name the file " + pid + f.extension();
        } else if (!f.factory() && known.factories().contains(pid)) {
            why = "'" + pid + "' takes factory configurations only, one file each named " + pid + "-<name>"
                    + f.extension() + ": rename the file (e.g. to " + pid + "-1" + f.extension() + ")";
        } else {
            guess = closest(f, known);
            why = "no component reads " + (f.factory() ? "factory PID '" : "PID '") + pid + "'"
                    + (guess != null ? " (did you mean " + guess + "?)" : "");
            if (guess == null) {
                // only without a name to use instead: the list would repeat on every misnamed file's line
                why += "; known names: " + known.names() + " (each .cfg or .config)";
            }
        }
        return "ignored: " + why;
    }

    /** @return the known file name {@code f} is a plausible misspelling of, or {@code null} */
    private static String closest(FileName f, Known known) {
        String pid = f.untargetedPid();
        String ext = f.extension();
        String alias = f.factory() ? f.alias() : "<name>";
        // io.conduit.gateway.echo.default / _default: the alias written after another separator than '-'
        if (!f.factory()) {
            for (String factory : new TreeSet<>(known.factories())) {
                if (pid.length() > factory.length() + 1 && pid.startsWith(factory)
                        && "._~ ".indexOf(pid.charAt(factory.length())) >= 0) {
                    return factory + "-" + pid.substring(factory.length() + 1) + ext;
                }
            }
        }
        String best = null;
        int bestScore = Integer.MAX_VALUE;
        Map<String, String> candidates = new HashMap<>();
        for (String s : known.singletons()) {
            candidates.put(s, s + ext);
        }
        for (String factory : known.factories()) {
            candidates.put(factory, factory + "-" + alias + ext);
        }
        for (String k : new TreeSet<>(candidates.keySet())) {
            // 'relay-redis.cfg' -> 'io.conduit.gateway.relay-redis.cfg': the known PID ends with the one written
            int score = k.endsWith("." + pid) ? 0
                    : GatewayConfig.distance(pid.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
            if (score < bestScore) {
                best = candidates.get(k);
                bestScore = score;
            }
        }
        int allowed = Math.max(1, Math.min(3, pid.length() / 4));
        return bestScore <= allowed ? best : null;
    }

    /**
     * What makes Configuration Admin reject the file's content (FileInstall then prints a stack trace and applies
     * nothing of the file): a line with an empty key ({@code = x}), or two keys that differ only in case.
     *
     * @param text the file's content
     * @return e.g. {@code line 2 ('= x') has an empty key ...}, or {@code null} when the keys are fine
     */
    static String contentProblem(String text) {
        Map<String, Key> seen = new HashMap<>();
        for (Key k : keys(text)) {
            if (k.key().isEmpty()) {
                return "line " + k.line() + " ('" + shorten(k.text()) + "') has an empty key, which Configuration Admin"
                        + " rejects (FileInstall: 'Key [] must not be an empty string'): write it as 'key = value' or"
                        + " delete it";
            }
            Key before = seen.putIfAbsent(k.key().toLowerCase(Locale.ROOT), k);
            if (before != null && !before.key().equals(k.key())) {
                return "keys '" + before.key() + "' (line " + before.line() + ") and '" + k.key() + "' (line "
                        + k.line() + ") differ only in case, which Configuration Admin rejects (FileInstall: 'Key ["
                        + before.key() + "] already present in different case'): keep one of them";
            }
        }
        return null;
    }

    /**
     * One key of a properties text.
     *
     * @param key  the key, escapes resolved
     * @param line the number of the (first physical) line it is on, from 1
     * @param text that line, stripped
     */
    record Key(String key, int line, String text) {
    }

    /**
     * The keys of a configuration file, as {@code java.util.Properties} (and FileInstall's reader of {@code .cfg}
     * files) reads them: comment lines start with {@code #} or {@code !}, a line ending in an odd number of
     * backslashes continues on the next one, a key ends at an unescaped {@code =}, {@code :} or blank. The
     * {@code .config} format uses the same keys ({@code key = value}, {@code #} comments).
     */
    static List<Key> keys(String text) {
        List<Key> keys = new ArrayList<>();
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = stripLeading(lines[i]);
            if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == '!') {
                continue;
            }
            int first = -1; // the line the key starts on (a lone backslash before it only continues)
            StringBuilder logical = new StringBuilder();
            while (true) {
                boolean continues = endsInEscape(line);
                String part = continues ? line.substring(0, line.length() - 1) : line;
                if (first < 0 && !part.isEmpty()) {
                    first = i;
                }
                logical.append(part);
                if (!continues || i + 1 >= lines.length) {
                    break;
                }
                line = stripLeading(lines[++i]);
            }
            if (logical.length() == 0) {
                continue; // only continuations up to the end
            }
            keys.add(new Key(key(logical), first + 1, lines[first].strip()));
        }
        return keys;
    }

    private static String key(CharSequence line) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length()) {
                char e = line.charAt(++i);
                switch (e) {
                    case 't' -> key.append('\t');
                    case 'n' -> key.append('\n');
                    case 'r' -> key.append('\r');
                    case 'f' -> key.append('\f');
                    case 'u' -> {
                        if (i + 4 < line.length() && line.subSequence(i + 1, i + 5).chars()
                                .allMatch(h -> Character.digit(h, 16) >= 0)) {
                            key.append((char) Integer.parseInt(line.subSequence(i + 1, i + 5).toString(), 16));
                            i += 4;
                        } else {
                            key.append('u');
                        }
                    }
                    default -> key.append(e);
                }
            } else if (c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f') {
                break;
            } else {
                key.append(c);
            }
        }
        return key.toString();
    }

    private static boolean endsInEscape(String line) {
        int backslashes = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    private static String stripLeading(String s) {
        int i = 0;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\f')) {
            i++;
        }
        return s.substring(i);
    }

    private static String shorten(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    /** @return the known PIDs of {@code pids}: a {@code service.pid} property may be a string, an array or a collection */
    static List<String> pids(Object pids) {
        List<String> out = new ArrayList<>();
        if (pids instanceof String s) {
            out.add(s);
        } else if (pids instanceof String[] a) {
            out.addAll(List.of(a));
        } else if (pids instanceof Collection<?> c) {
            c.forEach(p -> out.add(String.valueOf(p)));
        }
        return out;
    }
}
