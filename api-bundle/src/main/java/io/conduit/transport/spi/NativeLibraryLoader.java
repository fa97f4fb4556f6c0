package io.conduit.transport.spi;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

import io.conduit.internal.transport.ConduitProperties;

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

    private static final System.Logger LOGGER = System.getLogger(NativeLibraryLoader.class.getName());

    private NativeLibraryLoader() {
    }

    /**
     * @return the architecture part of native library names: {@code x86_64} for {@code os.arch} {@code amd64}
     *         or {@code x86_64}, {@code aarch64} for {@code aarch64}/{@code arm64}; otherwise {@code os.arch}
     *         lower-cased
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
     * @throws UnsatisfiedLinkError when every attempt failed: the message names the library and how to provide
     *         it, and each attempt's failure is attached with {@link Throwable#addSuppressed}
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
        try {
            return extractAndLoad(name, fileName, resource, host, load);
        } catch (Throwable t) {
            failures.add(attempt("extracting " + resource + " from the class loader of " + host.getName()
                    + " failed", t));
        }

        UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot load native library '" + name + "' ("
                + fileName + ") for " + System.getProperty("os.name") + "/" + arch() + ": install the native"
                + " fragment bundle holding " + resource + " beside the host bundle (OSGi), put that fragment"
                + " jar on the class or module path, or put " + fileName + " in a directory of java.library.path."
                + " The " + failures.size() + " failed attempts are attached as suppressed exceptions.");
        for (Throwable failure : failures) {
            error.addSuppressed(failure);
        }
        throw error;
    }

    private static String extractAndLoad(String name, String fileName, String resource, Class<?> host,
                                         Consumer<String> load) throws IOException {
        ClassLoader loader = host.getClassLoader();
        URL url = loader == null ? ClassLoader.getSystemResource(resource) : loader.getResource(resource);
        if (url == null) {
            throw new IOException("resource " + resource + " not found by class loader " + loader);
        }
        // Both properties by the rule of every Conduit property: a malformed value fails this attempt, naming it.
        String configured = ConduitProperties.parseText(WORKDIR_PROPERTY, System.getProperty(WORKDIR_PROPERTY));
        Path workdir = Path.of(configured != null ? configured : System.getProperty("java.io.tmpdir"));
        boolean delete = ConduitProperties.parseBoolean(DELETE_AFTER_LOADING_PROPERTY,
                System.getProperty(DELETE_AFTER_LOADING_PROPERTY), true);
        Files.createDirectories(workdir);
        int dot = fileName.lastIndexOf('.');
        String prefix = (dot > 0 ? fileName.substring(0, dot) : fileName) + "_";
        String suffix = dot > 0 ? fileName.substring(dot) : "";
        // A new file per call: a library file can be bound to one class loader only.
        Path file = Files.createTempFile(workdir, prefix, suffix);
        try {
            try (InputStream in = url.openStream()) {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
            load.accept(file.toAbsolutePath().toString());
            return logged(name, "extracted " + url + " to " + file + (delete ? " (deleted after loading)" : ""));
        } finally {
            if (delete) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    LOGGER.log(System.Logger.Level.WARNING, "could not delete extracted native library " + file
                            + "; delete it by hand", e);
                }
            }
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
