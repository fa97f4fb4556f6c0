package io.conduit.transport.spi;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.jar.Manifest;
import java.util.function.Consumer;

import io.conduit.internal.config.ConduitProperties;

/**
 * Loads the JNI library of a native transport for a <em>host class</em> (the transport bundle's class that
 * declares the native methods), trying in order:
 * <ol>
 *   <li><b>{@code System.loadLibrary(name)}</b> through the host's method reference. Inside OSGi the host
 *       bundle's class loader answers {@code findLibrary} with the file the framework selected from the
 *       {@code Bundle-NativeCode} header of the arch-named fragment; elsewhere this searches
 *       {@code java.library.path}.</li>
 *   <li><b>{@code java.library.path}</b>: each directory is searched for {@link System#mapLibraryName} of the
 *       name, which is loaded with {@code System.load(absolutePath)}.</li>
 *   <li><b>Extraction</b>: the resource {@code META-INF/native/<mapped name>} of the host's class loader is
 *       copied to {@code conduit.native.workdir} (default {@code java.io.tmpdir}) under a new, unique file
 *       name, loaded with {@code System.load}, and deleted afterwards unless
 *       {@code conduit.native.deleteLibAfterLoading=false}.</li>
 * </ol>
 *
 * <p><b>Why the host passes method references.</b> {@code System.load} and {@code System.loadLibrary} are
 * caller-sensitive: the library is bound to the class loader of the class that calls them, and
 * {@code JNI_OnLoad}'s {@code FindClass} resolves through that loader. A method reference such as
 * {@code System::loadLibrary} written in the host class calls from a class of the host's loader (the lambda's
 * hidden class is a nestmate of the host), so the library is bound to the host bundle, not to this API bundle.
 * (Verified: JDK 25 names {@code io.conduit.epoll.Epoll$$Lambda} as the caller of {@code System::loadLibrary} in
 * its native-access warning, and a method reference created in a class of another loader binds the library
 * to that other loader — see the epoll bundle's {@code ClassLoaderIsolationTest}.)
 * The host therefore calls, from its own class:
 * <pre>{@code
 * // in io.conduit.epoll.Epoll, a class of the host bundle:
 * NativeLibraryLoader.load("conduit_epoll_" + NativeLibraryLoader.arch(), Epoll.class,
 *         System::loadLibrary, System::load);
 * }</pre>
 *
 * <p><b>One file per class loader.</b> The JVM binds a library file to one class loader; loading the same path
 * from a second loader fails. Every extraction writes a new file, so a refreshed or updated host bundle (a new
 * class loader) gets its own copy.
 *
 * <p>Threading: stateless and thread-safe; callers load once (e.g. from a class initialiser or a probe that
 * runs once). On JDK 24+ the JVM warns on the first native load unless it runs with
 * {@code --enable-native-access=ALL-UNNAMED} (class path, OSGi) or {@code --enable-native-access=<module>}.
 */
public final class NativeLibraryLoader {

    /** System property: directory for extracted libraries; default {@code java.io.tmpdir}; not empty. */
    public static final String WORKDIR_PROPERTY = "conduit.native.workdir";

    /**
     * System property: {@code false} keeps extracted library files after loading; default {@code true}; any value
     * but {@code true}/{@code false} (any case) fails the extraction attempt, naming the property.
     */
    public static final String DELETE_AFTER_LOADING_PROPERTY = "conduit.native.deleteLibAfterLoading";

    /** Resource folder of native libraries inside jars and fragments. */
    public static final String RESOURCE_FOLDER = "META-INF/native/";

    /** Architectures native fragments are built for, as {@link #arch()} names them. */
    private static final List<String> KNOWN_ARCHITECTURES = List.of("x86_64", "aarch64", "armv7");

    private static final System.Logger LOGGER = System.getLogger(NativeLibraryLoader.class.getName());

    private NativeLibraryLoader() {
    }

    /**
     * @return the architecture part of native library names: {@code x86_64} for {@code os.arch} {@code amd64}
     *         or {@code x86_64}, {@code aarch64} for {@code aarch64}/{@code arm64}, {@code armv7} for the
     *         32-bit ARM JVMs' {@code arm} (also {@code armv7l}, {@code arm_le}: the library is built for
     *         ARMv7-A, hard float); otherwise {@code os.arch} lower-cased
     */
    public static String arch() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x86-64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            case "arm":
            case "armv7l":
            case "arm_le":
                return "armv7";
            default:
                return arch;
        }
    }

    /**
     * Loads the library {@code name} for {@code host}, trying the three ways in the class comment in order.
     *
     * @param name        the library name without prefix and suffix, e.g. {@code conduit_epoll_x86_64}
     * @param host        the class whose class loader the library must be bound to (it declares or shares the
     *                    natives) and whose class loader holds {@code META-INF/native/}
     * @param loadLibrary {@code System::loadLibrary}, written in a class of the host's class loader
     * @param load        {@code System::load}, written in a class of the host's class loader
     * @return how the library was loaded, for diagnostics, e.g.
     *         {@code "extracted jar:file:/x.jar!/META-INF/native/libfoo.so to /tmp/libfoo_123.so"}
     * @throws UnsatisfiedLinkError when every attempt failed; each attempt's failure is attached with
     *         {@link Throwable#addSuppressed}. The message names the library and leads with the most specific
     *         reason: the work directory ({@value #WORKDIR_PROPERTY}) cannot be written or cannot execute code (a
     *         {@code noexec} mount); only the library of another architecture is there (which one, and the fragment
     *         to install); the library was found but did not load (the loader's text); else how to provide it
     */
    public static String load(String name, Class<?> host, Consumer<String> loadLibrary, Consumer<String> load) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(loadLibrary, "loadLibrary");
        Objects.requireNonNull(load, "load");
        String fileName = System.mapLibraryName(name);
        List<Throwable> failures = new ArrayList<>(3);

        // (a) the class loader's findLibrary (OSGi Bundle-NativeCode), then the JVM's own search
        try {
            loadLibrary.accept(name);
            return logged(name, "System.loadLibrary(\"" + name + "\") from " + host.getName());
        } catch (Throwable t) {
            failures.add(attempt("System.loadLibrary(\"" + name + "\") from " + host.getName()
                    + " (class loader " + host.getClassLoader() + ") failed", t));
        }

        // (b) java.library.path, explicitly
        String libraryPath = System.getProperty("java.library.path", "");
        try {
            String found = null;
            for (String dir : libraryPath.split(File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isRegularFile(Path.of(dir, fileName))) {
                    found = Path.of(dir, fileName).toAbsolutePath().toString();
                    break;
                }
            }
            if (found == null) {
                throw new IOException(fileName + " is not in any directory of java.library.path=" + libraryPath);
            }
            load.accept(found);
            return logged(name, "System.load(\"" + found + "\") from java.library.path");
        } catch (Throwable t) {
            failures.add(attempt("java.library.path lookup of " + fileName + " failed", t));
        }

        // (c) extraction of META-INF/native/<file> from the host's class loader
        String resource = RESOURCE_FOLDER + fileName;
        ClassLoader loader = host.getClassLoader();
        URL url = resource(loader, resource);
        String problem; // the reason the error leads with, or null for the general advice
        if (url == null) {
            failures.add(attempt("extracting " + resource + " from the class loader of " + host.getName()
                    + " failed", new IOException("resource " + resource + " not found by class loader " + loader)));
            problem = foreignArchitecture(name, resource, loader);
        } else {
            try {
                return extractAndLoad(name, fileName, url, load);
            } catch (Throwable t) {
                failures.add(attempt("extracting " + resource + " from the class loader of " + host.getName()
                        + " failed", t));
                problem = t instanceof WorkdirException ? t.getMessage()
                        : "found " + url + " but extracting or loading it failed: " + t;
            }
        }

        UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot load native library '" + name + "' ("
                + fileName + ") for " + System.getProperty("os.name") + "/" + arch() + ": " + (problem != null
                        ? problem + "."
                        : "install the native fragment bundle holding " + resource + " beside the host bundle (OSGi),"
                                + " put that fragment jar on the class or module path, or put " + fileName
                                + " in a directory of java.library.path.")
                + " The " + failures.size() + " failed attempts are attached as suppressed exceptions.");
        for (Throwable failure : failures) {
            error.addSuppressed(failure);
        }
        throw error;
    }

    /** @return the resource's URL from {@code loader} (the system class loader for {@code null}), or {@code null} */
    private static URL resource(ClassLoader loader, String resource) {
        return loader == null ? ClassLoader.getSystemResource(resource) : loader.getResource(resource);
    }

    /**
     * When {@code name} ends in this JVM's architecture and {@code loader} holds libraries of other known
     * architectures instead, says which ones are there (every one, in {@link #KNOWN_ARCHITECTURES} order) and which
     * one is needed, e.g. "found libconduit_epoll_aarch64.so
     * (fragment io.conduit.epoll.linux.aarch64) but this JVM is x86_64 (os.arch=amd64): install
     * io.conduit.epoll.linux.x86_64". The fragment's name is the {@code Bundle-SymbolicName} of the manifest beside
     * the library ({@code META-INF/MANIFEST.MF} of the same jar or bundle entry).
     *
     * @return that sentence, or {@code null} when no library of another architecture is there
     */
    static String foreignArchitecture(String name, String resource, ClassLoader loader) {
        String arch = arch();
        if (!name.endsWith("_" + arch)) {
            return null;
        }
        String base = name.substring(0, name.length() - arch.length());
        List<String> found = new ArrayList<>();
        String needed = null;
        for (String other : KNOWN_ARCHITECTURES) {
            if (other.equals(arch)) {
                continue;
            }
            String otherFile = System.mapLibraryName(base + other);
            URL url = resource(loader, RESOURCE_FOLDER + otherFile);
            if (url == null) {
                continue;
            }
            String fragment = symbolicName(url);
            if (needed == null && fragment != null && fragment.endsWith(other)) {
                needed = fragment.substring(0, fragment.length() - other.length()) + arch;
            }
            found.add(otherFile + (fragment != null ? " (fragment " + fragment + ")" : " (" + url + ")"));
        }
        if (found.isEmpty()) {
            return null;
        }
        return "found " + String.join(", ", found) + " but this JVM is " + arch + " (os.arch="
                + System.getProperty("os.arch") + "): install "
                + (needed != null ? needed : "the native fragment holding " + resource);
    }

    /**
     * @return the {@code Bundle-SymbolicName} (without attributes) of the manifest next to the native library at
     *         {@code library} ({@code META-INF/native/x} to {@code META-INF/MANIFEST.MF}), or {@code null} when there
     *         is none or it cannot be read
     */
    private static String symbolicName(URL library) {
        try (InputStream in = new URL(library, "../MANIFEST.MF").openStream()) {
            String value = new Manifest(in).getMainAttributes().getValue("Bundle-SymbolicName");
            if (value == null) {
                return null;
            }
            int semicolon = value.indexOf(';');
            return (semicolon >= 0 ? value.substring(0, semicolon) : value).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String extractAndLoad(String name, String fileName, URL url, Consumer<String> load)
            throws IOException {
        // Both properties by the rule of every Conduit property: a malformed value fails this attempt, naming it.
        String configured = ConduitProperties.parseText(WORKDIR_PROPERTY, System.getProperty(WORKDIR_PROPERTY));
        Path workdir = Path.of(configured != null ? configured : System.getProperty("java.io.tmpdir"));
        String workdirText = workdir + " (" + (configured != null ? WORKDIR_PROPERTY
                : WORKDIR_PROPERTY + " is not set, so java.io.tmpdir") + ")";
        boolean delete = ConduitProperties.parseBoolean(DELETE_AFTER_LOADING_PROPERTY,
                System.getProperty(DELETE_AFTER_LOADING_PROPERTY), true);
        int dot = fileName.lastIndexOf('.');
        String prefix = (dot > 0 ? fileName.substring(0, dot) : fileName) + "_";
        String suffix = dot > 0 ? fileName.substring(dot) : "";
        Path file = null;
        try {
            try {
                Files.createDirectories(workdir);
                // A new file per call: a library file can be bound to one class loader only.
                file = Files.createTempFile(workdir, prefix, suffix);
                try (InputStream in = url.openStream()) {
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                }
                makeExecutable(file);
            } catch (IOException e) {
                throw new WorkdirException("found " + url + " but cannot extract it to the directory " + workdirText
                        + ": " + e + ". Set " + WORKDIR_PROPERTY + " to a writable directory on a file system that"
                        + " allows executing code (not mounted noexec)", e);
            }
            try {
                load.accept(file.toAbsolutePath().toString());
            } catch (UnsatisfiedLinkError e) {
                if (!Files.isExecutable(file)) { // access(2) X_OK: false on a noexec mount although the x bit is set
                    throw new WorkdirException("found " + url + " and extracted it to the directory " + workdirText
                            + ", but that directory cannot execute code: its file system is mounted noexec (or a"
                            + " security policy forbids executing there), so loading failed with \"" + e.getMessage()
                            + "\". Set " + WORKDIR_PROPERTY + " to a directory on a file system that allows executing"
                            + " code", e);
                }
                throw e;
            }
            return logged(name, "extracted " + url + " to " + file + (delete ? " (deleted after loading)" : ""));
        } finally {
            if (delete && file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    LOGGER.log(System.Logger.Level.WARNING, "could not delete extracted native library " + file
                            + "; delete it by hand", e);
                }
            }
        }
    }

    /** Gives the owner read, write and execute permission, as a library file has; no-op without POSIX permissions. */
    private static void makeExecutable(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException notPosix) {
            // e.g. Windows: there is no execute bit to set
        }
    }

    /** The extraction failed because of the work directory: its message names the directory and the property. */
    private static final class WorkdirException extends IOException {
        private static final long serialVersionUID = 1L;

        WorkdirException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static String logged(String name, String how) {
        LOGGER.log(System.Logger.Level.DEBUG, () -> "loaded native library " + name + ": " + how);
        return how;
    }

    private static Throwable attempt(String what, Throwable cause) {
        // One error per attempt, naming it; the original failure (any type) is its cause.
        UnsatisfiedLinkError e = new UnsatisfiedLinkError(what + ": " + cause);
        e.initCause(cause);
        return e;
    }
}
