package io.conduit.epoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.Availability;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.NativeLibraryLoader;
import org.junit.jupiter.api.Test;

/** Native test on its own platform (and on emulated ones): fails (never skips) when the library cannot load. */
class EpollAvailabilityTest {

    @Test
    void availableOnLinuxWithTheLibraryExtractedFromTheFragmentJar() {
        Epoll.ensureAvailability(); // throws with every load attempt attached if the library is missing
        assertTrue(Epoll.isAvailable());
        assertNull(Epoll.unavailabilityCause());
        assertTrue(Epoll.loadedHow().contains("extracted"), Epoll.loadedHow());
        // this JVM's fragment: x86_64 here, aarch64 or armv7 when native-fragments/emulation runs this test
        String fragment = "epoll-linux-" + NativeLibraryLoader.arch();
        assertTrue(Epoll.loadedHow().contains(fragment), fragment + " expected in: " + Epoll.loadedHow());
    }

    @Test
    void probeLoadsAndCreatesKernelObjectsOnce() {
        for (int i = 0; i < 3; i++) {
            assertTrue(Epoll.isAvailable());
            Epoll.availability();
        }
        assertEquals(1, Epoll.loadingProbeCount());
    }

    @Test
    void noNativePropertyMakesEpollUnavailableWithoutLoadingAnything() {
        int before = Epoll.loadingProbeCount();
        Availability availability = Epoll.probe(key -> Epoll.NO_NATIVE_PROPERTY.equals(key) ? "true"
                : System.getProperty(key));
        assertFalse(availability.isAvailable());
        assertNotNull(availability.unavailabilityCause());
        assertTrue(availability.unavailabilityCause().getMessage().contains("conduit.noNative"),
                availability.unavailabilityCause().getMessage());
        assertEquals(before, Epoll.loadingProbeCount(), "no load attempt with conduit.noNative=true");
        UnavailableTransportException e = assertThrows(UnavailableTransportException.class,
                () -> availability.ensureAvailability(Epoll.NAME));
        assertTrue(e.getMessage().contains("epoll"), e.getMessage());
    }

    @Test
    void otherOperatingSystemsAreUnavailableWithTheirName() {
        Availability availability = Epoll.probe(key -> "os.name".equals(key) ? "Mac OS X" : null);
        assertFalse(availability.isAvailable());
        assertTrue(availability.unavailabilityCause().getMessage().contains("Mac OS X"));
    }
}
