package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;

import io.conduit.transport.Availability;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.NativeLibraryLoader;
import io.conduit.transport.spi.unix.NativeTransportProbe;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Whether the kqueue transport can run here (unavailability is a value). The probe runs once, when this class
 * initialises:
 * <ul>
 *   <li>{@code conduit.noNative=true}: unavailable, the cause names the property; nothing is loaded.</li>
 *   <li>macOS, FreeBSD: loads {@code libconduit_kqueue_<arch>} through {@link NativeLibraryLoader} (fragment
 *       {@code Bundle-NativeCode} / {@code java.library.path} / extraction, every failed attempt attached).</li>
 *   <li>Linux: kqueue does not exist there. Only with {@code -Dconduit.kqueue.emulation=true} (the kqueue
 *       bundle's own tests) is the <em>test</em> build of the library loaded — from the file named by
 *       {@code conduit.kqueue.emulation.library}, else from {@code java.library.path}; it runs over the
 *       project's kqueue emulation ({@code native-fragments/kqueue-emulation}). Without the property the
 *       transport is unavailable with a cause saying so.</li>
 *   <li>any other system: unavailable, naming it.</li>
 * </ul>
 * After loading, the probe creates a real kqueue, registers, triggers and deletes an {@code EVFILT_USER} event
 * on it and closes it.
 *
 * <p>The library is loaded with method references written here, so it is bound to this bundle's class loader
 * (see {@link NativeLibraryLoader}). Thread-safe: computed once by class initialisation.
 */
final class KQueue {

    /** System property that disables every native transport. */
    static final String NO_NATIVE_PROPERTY = NativeTransportProbe.NO_NATIVE_PROPERTY;
    /** System property that lets the kqueue transport run on Linux over the test-only emulation. */
    static final String EMULATION_PROPERTY = "conduit.kqueue.emulation";
    /** System property: absolute path of the Linux test build of the library (with {@link #EMULATION_PROPERTY}). */
    static final String EMULATION_LIBRARY_PROPERTY = "conduit.kqueue.emulation.library";
    /** the transport's name */
    static final String NAME = "kqueue";
    /** the cause on Linux without {@link #EMULATION_PROPERTY} */
    static final String LINUX_CAUSE = "kqueue is a BSD/macOS facility; on Linux it runs only against the test"
            + " emulation with -D" + EMULATION_PROPERTY + "=true";

    /** how the library was loaded, or {@code null}; written once during initialisation */
    private static volatile String loadedHow;

    private static final Availability AVAILABILITY = probe(System::getProperty, System::loadLibrary, System::load);

    private KQueue() {
    }

    static boolean isAvailable() {
        return AVAILABILITY.isAvailable();
    }

    /** @return why kqueue cannot be used (load attempts suppressed in it), or {@code null} when available */
    static Throwable unavailabilityCause() {
        return AVAILABILITY.unavailabilityCause();
    }

    /** @throws UnavailableTransportException with {@link #unavailabilityCause()} as cause when unavailable */
    static void ensureAvailability() {
        AVAILABILITY.ensureAvailability(NAME);
    }

    static Availability availability() {
        return AVAILABILITY;
    }

    /** @return how the library was loaded (diagnostics), or {@code null} */
    static String loadedHow() {
        return loadedHow;
    }

    /** @return the library name for this JVM's architecture, e.g. {@code conduit_kqueue_aarch64} */
    static String libraryName() {
        return "conduit_kqueue_" + NativeLibraryLoader.arch();
    }

    /**
     * The probe; package-private so tests can run its decisions with other system properties (a second, real
     * load is never attempted by tests: a library binds to one class loader).
     */
    static Availability probe(UnaryOperator<String> properties, Consumer<String> loadLibrary, Consumer<String> load) {
        Availability disabled = NativeTransportProbe.disabledByProperty(NAME, properties);
        if (disabled != null) {
            return disabled;
        }
        boolean emulation;
        try {
            emulation = IoTransportSupport.booleanProperty(properties, EMULATION_PROPERTY, false);
        } catch (IllegalArgumentException e) {
            return Availability.unavailable(e); // malformed: an error naming the property, nothing is loaded
        }
        String os = String.valueOf(properties.apply("os.name"));
        String lower = os.toLowerCase(Locale.ROOT);
        try {
            if (lower.startsWith("mac") || lower.startsWith("darwin") || lower.startsWith("freebsd")) {
                loadedHow = NativeLibraryLoader.load(libraryName(), KQueue.class, loadLibrary, load);
            } else if (lower.startsWith("linux")) {
                if (!emulation) {
                    return Availability.unavailable(new UnsupportedOperationException(LINUX_CAUSE));
                }
                String path = properties.apply(EMULATION_LIBRARY_PROPERTY);
                if (path != null && !path.isEmpty()) {
                    if (!Files.isRegularFile(Path.of(path))) {
                        throw new UnsatisfiedLinkError(EMULATION_LIBRARY_PROPERTY + "=" + path + " names no file: build"
                                + " native-fragments/kqueue-emulation first (mvn -pl native-fragments/kqueue-emulation"
                                + " compile)");
                    }
                    load.accept(Path.of(path).toAbsolutePath().toString());
                    loadedHow = "System.load(\"" + path + "\") (Linux test build over the kqueue emulation)";
                } else {
                    loadedHow = NativeLibraryLoader.load(libraryName(), KQueue.class, loadLibrary, load);
                }
            } else {
                return Availability.unavailable(new UnsupportedOperationException("kqueue needs macOS or FreeBSD;"
                        + " this is " + os));
            }
            int kq = ERRORS.check("kqueue", Native.kqueue());
            try {
                ERRORS.check("kevent(EV_ADD EVFILT_USER)", Native.keventChange(kq, 0, NativeAbi.EVFILT_USER,
                        NativeAbi.EV_ADD | NativeAbi.EV_CLEAR, NativeAbi.NOTE_FFNOP, 0, 0));
                ERRORS.check("kevent(NOTE_TRIGGER)", Native.keventChange(kq, 0, NativeAbi.EVFILT_USER, 0,
                        NativeAbi.NOTE_TRIGGER, 0, 0));
                ERRORS.check("kevent(EV_DELETE EVFILT_USER)", Native.keventChange(kq, 0, NativeAbi.EVFILT_USER,
                        NativeAbi.EV_DELETE, 0, 0, 0));
            } finally {
                Native.close(kq);
            }
            return Availability.available();
        } catch (Exception | LinkageError e) {
            return Availability.unavailable(e);
        }
    }
}
