package io.conduit.transport.spi.unix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.Availability;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The shared steps of a native transport's availability probe: the property, the OS, the transport's step. */
class NativeTransportProbeTest {

    private final AtomicInteger steps = new AtomicInteger();

    private Availability probe(Map<String, String> properties, NativeTransportProbe.Step step) {
        return NativeTransportProbe.probeLinux("epoll", properties::get, () -> {
            steps.incrementAndGet();
            step.run();
        });
    }

    @Test
    void onLinuxTheStepDecides() {
        assertTrue(probe(Map.of("os.name", "Linux"), () -> { }).isAvailable());
        IOException failure = new IOException("epoll_create1(..) failed");
        assertSame(failure, probe(Map.of("os.name", "Linux"), () -> {
            throw failure;
        }).unavailabilityCause());
        UnsatisfiedLinkError missing = new UnsatisfiedLinkError("no conduit_epoll_x86_64");
        assertSame(missing, probe(Map.of("os.name", "Linux"), () -> {
            throw missing;
        }).unavailabilityCause(), "a missing library is a cause, not an error thrown");
        assertEquals(3, steps.get());
    }

    @Test
    void noNativeDisablesBeforeTheStepRuns() {
        Availability a = probe(Map.of("os.name", "Linux", "conduit.noNative", "true"), () -> { });
        assertFalse(a.isAvailable());
        assertEquals("epoll is disabled by the system property conduit.noNative=true (no native library was loaded);"
                + " remove it or set it to false to use native transports", a.unavailabilityCause().getMessage());
        assertEquals(0, steps.get());
        assertNull(NativeTransportProbe.disabledByProperty("kqueue", Map.of("conduit.noNative", "false")::get));
        assertNull(NativeTransportProbe.disabledByProperty("kqueue", Map.<String, String>of()::get));
    }

    @Test
    void aMalformedPropertyIsTheCause() {
        Availability a = probe(Map.of("os.name", "Linux", "conduit.noNative", "yes please"), () -> { });
        assertInstanceOf(IllegalArgumentException.class, a.unavailabilityCause());
        assertTrue(a.unavailabilityCause().getMessage().contains("conduit.noNative"),
                a.unavailabilityCause().getMessage());
        assertEquals(0, steps.get());
    }

    @Test
    void anotherOsIsNamedAndNothingIsLoaded() {
        Availability a = probe(Map.of("os.name", "Mac OS X"), () -> { });
        assertEquals("epoll needs Linux; this is Mac OS X", a.unavailabilityCause().getMessage());
        assertEquals(0, steps.get());
    }
}
