package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;

import io.conduit.transport.Availability;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.NativeLibraryLoader;
import io.conduit.transport.spi.unix.NativeTransportProbe;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Whether the epoll transport can run here (unavailability is a value). The probe runs once, when this class
 * initialises: unless {@code conduit.noNative=true}, it loads {@code libconduit_epoll_<arch>.so} through
 * {@link NativeLibraryLoader} (fragment / {@code java.library.path} / extraction, every failed attempt
 * attached to the cause) and creates real kernel objects — an epoll fd and an eventfd — then closes them.
 *
 * <p>The library is loaded with method references {@code System::loadLibrary} and {@code System::load}
 * written here, so it is bound to this bundle's class loader (caller-sensitive methods; see
 * {@link NativeLibraryLoader}), which is also the loader {@code JNI_OnLoad} resolves {@link Native} with.
 *
 * <p>Thread-safe: the answer is computed once by class initialisation and never changes.
 */
final class Epoll {

    /** System property that disables every native transport. */
    static final String NO_NATIVE_PROPERTY = NativeTransportProbe.NO_NATIVE_PROPERTY;

    /** the transport's name in messages and selection */
    static final String NAME = "epoll";

    /** probes that tried to load the library and create kernel objects; 1 after initialisation */
    private static final AtomicInteger LOADING_PROBES = new AtomicInteger();

    /** how the library was loaded, or {@code null} when it was not; written once during initialisation */
    private static volatile String loadedHow;

    private static final Availability AVAILABILITY = probe(System::getProperty);

    private Epoll() {
    }

    /** @return {@code true} when the library is loaded and epoll/eventfd work here */
    static boolean isAvailable() {
        return AVAILABILITY.isAvailable();
    }

    /** @return why epoll cannot be used (every load attempt suppressed in it), or {@code null} when available */
    static Throwable unavailabilityCause() {
        return AVAILABILITY.unavailabilityCause();
    }

    /** @throws UnavailableTransportException with {@link #unavailabilityCause()} as cause when unavailable */
    static void ensureAvailability() {
        AVAILABILITY.ensureAvailability(NAME);
    }

    /** @return the availability value computed once */
    static Availability availability() {
        return AVAILABILITY;
    }

    /** @return how the library was loaded (for diagnostics), or {@code null} */
    static String loadedHow() {
        return loadedHow;
    }

    /** @return how many probes loaded the library and created kernel objects (1 in a normal run) */
    static int loadingProbeCount() {
        return LOADING_PROBES.get();
    }

    /** @return the library name for this JVM's architecture, e.g. {@code conduit_epoll_x86_64} */
    static String libraryName() {
        return "conduit_epoll_" + NativeLibraryLoader.arch();
    }

    /**
     * The probe; package-private so tests can run it with other system properties.
     *
     * @param properties system-property lookup
     */
    static Availability probe(UnaryOperator<String> properties) {
        return NativeTransportProbe.probeLinux(NAME, properties, () -> {
            LOADING_PROBES.incrementAndGet();
            loadedHow = NativeLibraryLoader.load(libraryName(), Epoll.class, System::loadLibrary, System::load);
            int epfd = ERRORS.check("epoll_create1", Native.epollCreate());
            try {
                int eventfd = ERRORS.check("eventfd", Native.eventfd(0, NativeAbi.EFD_CLOEXEC | NativeAbi.EFD_NONBLOCK));
                ERRORS.check("close", Native.close(eventfd));
            } finally {
                Native.close(epfd);
            }
        });
    }
}
