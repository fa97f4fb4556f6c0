package io.conduit.transport.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader's order of attempts, extraction and error reporting, with recording stand-ins for
 * {@code System::loadLibrary} / {@code System::load} (real libraries are loaded by the epoll bundle's tests).
 */
class NativeLibraryLoaderTest {

    private static final String NAME = "conduit_loader_test";
    private static final String FILE = System.mapLibraryName(NAME);

    @TempDir
    Path dir;

    private final List<String> calls = new ArrayList<>();

    @AfterEach
    void clearProperties() {
        System.clearProperty(NativeLibraryLoader.WORKDIR_PROPERTY);
        System.clearProperty(NativeLibraryLoader.DELETE_AFTER_LOADING_PROPERTY);
    }

    private Consumer<String> failing(String kind) {
        return arg -> {
            calls.add(kind + ":" + arg);
            throw new UnsatisfiedLinkError("no " + arg + " (test)");
        };
    }

    private Consumer<String> recording(String kind, List<byte[]> contents) {
        return arg -> {
            calls.add(kind + ":" + arg);
            try {
                contents.add(Files.readAllBytes(Path.of(arg)));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
    }

    /** A class loader whose only resource is META-INF/native/FILE holding {@code content}. */
    private ClassLoader loaderWithLibrary(String content) throws IOException {
        Path root = Files.createTempDirectory(dir, "cp");
        Path lib = root.resolve(NativeLibraryLoader.RESOURCE_FOLDER + FILE);
        Files.createDirectories(lib.getParent());
        Files.writeString(lib, content);
        return new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
    }

    /** A host class defined by {@code loader}: any class works, the loader is what matters for resources. */
    private static Class<?> hostIn(ClassLoader loader) {
        return java.lang.reflect.Proxy.newProxyInstance(loader, new Class<?>[] {Runnable.class}, (p, m, a) -> null)
                .getClass();
    }

    @Test
    void loadLibrarySuccessStopsTheSearch() {
        String how = NativeLibraryLoader.load(NAME, getClass(), arg -> calls.add("loadLibrary:" + arg),
                failing("load"));
        assertEquals(List.of("loadLibrary:" + NAME), calls);
        assertTrue(how.contains("System.loadLibrary"), how);
    }

    @Test
    void javaLibraryPathIsSearchedExplicitlyWithAbsolutePaths() throws IOException {
        Path lib = dir.resolve(FILE);
        Files.writeString(lib, "lib");
        String saved = System.getProperty("java.library.path");
        System.setProperty("java.library.path", dir.resolve("missing") + java.io.File.pathSeparator + dir);
        try {
            List<byte[]> loaded = new ArrayList<>();
            String how = NativeLibraryLoader.load(NAME, getClass(), failing("loadLibrary"), recording("load", loaded));
            assertEquals(List.of("loadLibrary:" + NAME, "load:" + lib.toAbsolutePath()), calls);
            assertTrue(how.contains("java.library.path"), how);
        } finally {
            System.setProperty("java.library.path", saved);
        }
    }

    @Test
    void extractsTheResourceOfTheHostClassLoaderToTheWorkdirAndDeletesIt() throws IOException {
        Path workdir = dir.resolve("work");
        System.setProperty(NativeLibraryLoader.WORKDIR_PROPERTY, workdir.toString());
        List<byte[]> loaded = new ArrayList<>();
        NativeLibraryLoader.load(NAME, hostIn(loaderWithLibrary("library bytes")), failing("loadLibrary"),
                recording("load", loaded));
        assertEquals(2, calls.size(), calls::toString);
        String extracted = calls.get(1).substring("load:".length());
        assertTrue(Path.of(extracted).startsWith(workdir), extracted);
        assertTrue(Path.of(extracted).getFileName().toString().startsWith("libconduit_loader_test_"), extracted);
        assertArrayEquals("library bytes".getBytes(StandardCharsets.UTF_8), loaded.get(0));
        assertFalse(Files.exists(Path.of(extracted)), "deleted after loading by default");
    }

    @Test
    void everyExtractionGetsItsOwnFileSoEachClassLoaderBindsItsOwnCopy() throws IOException {
        System.setProperty(NativeLibraryLoader.WORKDIR_PROPERTY, dir.resolve("work").toString());
        System.setProperty(NativeLibraryLoader.DELETE_AFTER_LOADING_PROPERTY, "false");
        List<byte[]> loaded = new ArrayList<>();
        NativeLibraryLoader.load(NAME, hostIn(loaderWithLibrary("one")), failing("loadLibrary"), recording("load", loaded));
        NativeLibraryLoader.load(NAME, hostIn(loaderWithLibrary("two")), failing("loadLibrary"), recording("load", loaded));
        String first = calls.get(1);
        String second = calls.get(3);
        assertNotEquals(first, second);
        assertTrue(Files.exists(Path.of(first.substring(5))), "kept with deleteLibAfterLoading=false");
        assertEquals("one", new String(loaded.get(0), StandardCharsets.UTF_8));
        assertEquals("two", new String(loaded.get(1), StandardCharsets.UTF_8));
    }

    @Test
    void allAttemptsFailingThrowsOneErrorNamingTheLibraryWithEveryAttemptSuppressed() throws IOException {
        System.setProperty(NativeLibraryLoader.WORKDIR_PROPERTY, dir.resolve("work").toString());
        Path before = dir.resolve("work");
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibraryLoader.load(NAME,
                hostIn(loaderWithLibrary("broken")), failing("loadLibrary"), failing("load")));
        assertTrue(e.getMessage().contains("'" + NAME + "'"), e.getMessage());
        // the library is there: the message says so and quotes the loader instead of advising to install it
        assertTrue(e.getMessage().contains("found ") && e.getMessage().contains("META-INF/native/" + FILE
                + " but extracting or loading it failed: java.lang.UnsatisfiedLinkError: no "), e.getMessage());
        assertEquals(3, e.getSuppressed().length);
        assertTrue(e.getSuppressed()[0].getMessage().contains("System.loadLibrary"), e.getSuppressed()[0].getMessage());
        assertTrue(e.getSuppressed()[1].getMessage().contains("java.library.path"), e.getSuppressed()[1].getMessage());
        assertTrue(e.getSuppressed()[2].getMessage().contains("extracting"), e.getSuppressed()[2].getMessage());
        try (var files = Files.list(before)) {
            assertEquals(0, files.count(), "a failed extraction leaves no file behind");
        }
    }

    @Test
    void missingResourceIsReportedAsAnAttempt() {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibraryLoader.load(NAME,
                hostIn(new URLClassLoader(new URL[0], null)), failing("loadLibrary"), failing("load")));
        assertTrue(e.getSuppressed()[2].getCause().getMessage().contains("not found"),
                e.getSuppressed()[2].getCause().getMessage());
        assertTrue(e.getMessage().contains("install the native fragment bundle holding META-INF/native/" + FILE)
                && e.getMessage().contains("java.library.path"), e.getMessage());
    }

    /**
     * A work directory that cannot be made (its parent is a regular file; as root, permissions alone would not stop
     * the write): the error leads with the directory and names {@code conduit.native.workdir}, not the advice to
     * install a fragment that is there.
     */
    @Test
    void anUnwritableWorkdirIsNamedWithItsProperty() throws IOException {
        Path notADirectory = dir.resolve("plain-file");
        Files.writeString(notADirectory, "x");
        Path workdir = notADirectory.resolve("work");
        System.setProperty(NativeLibraryLoader.WORKDIR_PROPERTY, workdir.toString());
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibraryLoader.load(NAME,
                hostIn(loaderWithLibrary("library bytes")), failing("loadLibrary"), failing("load")));
        assertTrue(e.getMessage().contains("but cannot extract it to the directory " + workdir
                + " (conduit.native.workdir)"), e.getMessage());
        assertTrue(e.getMessage().contains("Set conduit.native.workdir to a writable directory"), e.getMessage());
        assertFalse(e.getMessage().contains("install the native fragment"), e.getMessage());
        assertEquals(List.of("loadLibrary:" + NAME), calls, "nothing was loaded");
    }

    /**
     * Only the library of another architecture is there, in a folder whose manifest names its fragment (the epoll
     * bundle's {@code EpollLibraryProblemsTest} does the same with a fragment jar): the error says
     * which one was found and names the fragment of this JVM's architecture to install.
     */
    @Test
    void aLibraryOfAnotherArchitectureIsNamedWithTheFragmentToInstall() throws IOException {
        String arch = NativeLibraryLoader.arch();
        String other = "aarch64".equals(arch) ? "x86_64" : "aarch64";
        String otherFile = System.mapLibraryName("conduit_loader_test_" + other);
        Path root = Files.createTempDirectory(dir, "fragment"); // an unpacked fragment: the manifest is a file
        Files.createDirectories(root.resolve(NativeLibraryLoader.RESOURCE_FOLDER));
        Files.writeString(root.resolve(NativeLibraryLoader.RESOURCE_FOLDER + otherFile), "lib");
        Files.writeString(root.resolve("META-INF/MANIFEST.MF"), "Manifest-Version: 1.0\nBundle-SymbolicName: "
                + "io.conduit.loadertest.linux." + other + ";singleton:=false\n");
        ClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibraryLoader.load(
                "conduit_loader_test_" + arch, hostIn(loader), failing("loadLibrary"), failing("load")));
        assertTrue(e.getMessage().contains("found " + otherFile + " (fragment io.conduit.loadertest.linux." + other
                + ") but this JVM is " + arch + " (os.arch=" + System.getProperty("os.arch")
                + "): install io.conduit.loadertest.linux." + arch + "."), e.getMessage());
    }

    /**
     * The libraries of two other architectures are there (both foreign fragments installed, none for this JVM): the
     * error names both, in the loader's order of known architectures, and still the one fragment to install.
     */
    @Test
    void everyLibraryOfAnotherArchitectureIsNamed() throws IOException {
        String arch = NativeLibraryLoader.arch();
        List<String> others = new java.util.ArrayList<>(List.of("x86_64", "aarch64", "armv7"));
        others.remove(arch);
        List<URL> roots = new java.util.ArrayList<>();
        for (String other : others) {
            Path root = Files.createTempDirectory(dir, "fragment-" + other);
            Files.createDirectories(root.resolve(NativeLibraryLoader.RESOURCE_FOLDER));
            Files.writeString(root.resolve(NativeLibraryLoader.RESOURCE_FOLDER
                    + System.mapLibraryName("conduit_loader_test_" + other)), "lib");
            Files.writeString(root.resolve("META-INF/MANIFEST.MF"), "Manifest-Version: 1.0\nBundle-SymbolicName: "
                    + "io.conduit.loadertest.linux." + other + "\n");
            roots.add(root.toUri().toURL());
        }
        ClassLoader loader = new URLClassLoader(roots.toArray(URL[]::new), null);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibraryLoader.load(
                "conduit_loader_test_" + arch, hostIn(loader), failing("loadLibrary"), failing("load")));
        assertTrue(e.getMessage().contains("found " + System.mapLibraryName("conduit_loader_test_" + others.get(0))
                + " (fragment io.conduit.loadertest.linux." + others.get(0) + "), "
                + System.mapLibraryName("conduit_loader_test_" + others.get(1))
                + " (fragment io.conduit.loadertest.linux." + others.get(1) + ") but this JVM is " + arch
                + " (os.arch=" + System.getProperty("os.arch") + "): install io.conduit.loadertest.linux." + arch
                + "."), e.getMessage());
    }

    /** Without a manifest the error still names the library found (by its URL) and the resource that is needed. */
    @Test
    void aLibraryOfAnotherArchitectureWithoutManifestIsNamedByItsUrl() throws IOException {
        String arch = NativeLibraryLoader.arch();
        String other = "aarch64".equals(arch) ? "x86_64" : "aarch64";
        String otherFile = System.mapLibraryName("conduit_loader_test_" + other);
        Path root = Files.createTempDirectory(dir, "cp");
        Files.createDirectories(root.resolve(NativeLibraryLoader.RESOURCE_FOLDER));
        Files.writeString(root.resolve(NativeLibraryLoader.RESOURCE_FOLDER + otherFile), "lib");
        ClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLibraryLoader.load(
                "conduit_loader_test_" + arch, hostIn(loader), failing("loadLibrary"), failing("load")));
        assertTrue(e.getMessage().contains("found " + otherFile + " (file:"), e.getMessage());
        assertTrue(e.getMessage().contains("install the native fragment holding META-INF/native/"
                + System.mapLibraryName("conduit_loader_test_" + arch)), e.getMessage());
    }

    @Test
    void archNamesFollowLibraryNames() {
        String saved = System.getProperty("os.arch");
        try {
            System.setProperty("os.arch", "amd64");
            assertEquals("x86_64", NativeLibraryLoader.arch());
            System.setProperty("os.arch", "aarch64");
            assertEquals("aarch64", NativeLibraryLoader.arch());
        } finally {
            System.setProperty("os.arch", saved);
        }
    }
}
