package io.conduit.gateway.internal.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Checks every file of the configuration directory that FileInstall reads ({@link ConfigurationFileCheck}) on each
 * {@link #scan()}, and publishes one problem per file that nothing will apply: a new or changed problem is published
 * (the publisher logs it once), a solved one or a removed file's is withdrawn. A file's content is read again only
 * when its size or modification time changed; which PIDs are read is asked anew on every scan, as bundles come and go.
 *
 * <p>Thread-safe: {@link #scan()} and {@link #close()} are synchronized.
 */
final class ConfigurationFileWatch implements AutoCloseable {

    /** A published problem. */
    interface Published {
        /** Withdraws the problem. */
        void withdraw();
    }

    /** Publishes one file's problem (a status service, one WARNING line). */
    @FunctionalInterface
    interface Publisher {
        /**
         * @param file    the file name
         * @param pid     the configuration's PID as Configuration Admin would name it
         * @param kind    {@code echo}, {@code relay} or {@code metrics} for a file of the gateway's components,
         *                {@code file} otherwise
         * @param problem what is wrong and what to do
         */
        Published publish(String file, String pid, String kind, String problem);
    }

    private static final class Entry {
        long modified;
        long size = -1;
        /** Why Configuration Admin would reject the content, or {@code null}. */
        String contentProblem;
        /** The published problem, or {@code null}. */
        String problem;
        Published published;
    }

    private final Path dir;
    private final Pattern filter;
    private final Supplier<ConfigurationFileCheck.Known> known;
    private final Publisher publisher;
    /** Guarded by this. */
    private final Map<String, Entry> files = new HashMap<>();
    /** Guarded by this. */
    private boolean closed;

    /**
     * @param dir       the configuration directory
     * @param filter    the names FileInstall reads (its {@code felix.fileinstall.filter})
     * @param known     the PIDs the framework reads now
     * @param publisher publishes a file's problem
     */
    ConfigurationFileWatch(Path dir, Pattern filter, Supplier<ConfigurationFileCheck.Known> known,
            Publisher publisher) {
        this.dir = dir;
        this.filter = filter;
        this.known = known;
        this.publisher = publisher;
    }

    /** Checks the directory once; see the class comment. */
    synchronized void scan() {
        if (closed) {
            return;
        }
        Map<String, Path> now = list();
        files.entrySet().removeIf(e -> {
            if (!now.containsKey(e.getKey())) {
                withdraw(e.getValue());
                return true;
            }
            return false;
        });
        ConfigurationFileCheck.Known k = null;
        for (Map.Entry<String, Path> f : now.entrySet()) {
            String name = f.getKey();
            Entry e = files.computeIfAbsent(name, n -> new Entry());
            try {
                BasicFileAttributes a = Files.readAttributes(f.getValue(), BasicFileAttributes.class);
                if (a.size() != e.size || a.lastModifiedTime().toMillis() != e.modified) {
                    e.size = a.size();
                    e.modified = a.lastModifiedTime().toMillis();
                    e.contentProblem = ConfigurationFileCheck.contentProblem(
                            Files.readString(f.getValue(), StandardCharsets.ISO_8859_1));
                }
            } catch (NoSuchFileException gone) {
                withdraw(e);
                files.remove(name);
                continue;
            } catch (AccessDeniedException denied) {
                e.size = -1; // read again on the next scan
                e.contentProblem = "cannot be read (permission denied): give the gateway's user read access";
            } catch (IOException ex) {
                e.size = -1;
                e.contentProblem = "cannot be read: " + ex;
            }
            ConfigurationFileCheck.FileName fileName = ConfigurationFileCheck.FileName.of(name);
            String problem;
            if (e.contentProblem != null) {
                problem = (e.contentProblem.startsWith("cannot be read") ? e.contentProblem
                        : "cannot be applied: " + e.contentProblem) + "; the file's content is not applied until then";
            } else {
                if (k == null) {
                    k = known.get();
                }
                problem = ConfigurationFileCheck.nameProblem(fileName, k);
            }
            if (!Objects.equals(problem, e.problem)) {
                withdraw(e);
                e.problem = problem;
                if (problem != null) {
                    e.published = publisher.publish(name, fileName.configurationPid(), kind(fileName), problem);
                }
            }
        }
    }

    /**
     * @return {@code echo}, {@code relay} or {@code metrics} when the file is one of the gateway's components, else
     *         {@code file}
     */
    static String kind(ConfigurationFileCheck.FileName f) {
        if (f.pid().equals(EchoConfig.FACTORY_PID)) {
            return "echo";
        }
        if (f.pid().equals(MetricsConfig.PID)) {
            return "metrics";
        }
        return f.pid().equals(RelayConfig.FACTORY_PID) ? "relay" : "file";
    }

    /** @return the regular files FileInstall reads, by name, sorted */
    private Map<String, Path> list() {
        Map<String, Path> out = new TreeMap<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                if (filter.matcher(name).matches() && Files.isRegularFile(p)) {
                    out.put(name, p);
                }
            }
        } catch (IOException e) {
            // no directory (yet, or any more): FileInstall reads nothing either
        }
        return out;
    }

    private static void withdraw(Entry e) {
        if (e.published != null) {
            e.published.withdraw();
            e.published = null;
        }
        e.problem = null;
    }

    /** Withdraws every published problem; later scans do nothing. */
    @Override
    public synchronized void close() {
        closed = true;
        files.values().forEach(ConfigurationFileWatch::withdraw);
        files.clear();
    }
}
