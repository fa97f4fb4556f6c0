package io.conduit.kqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.transport.Availability;

import java.util.Map;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

/**
 * Availability of the kqueue transport: available in this module's tests (Linux: over the emulation), the
 * library's ABI facts come from native code, and the probe's decisions for other settings — without the
 * emulation property on Linux, with {@code conduit.noNative}, on another OS — never load anything.
 */
class KQueueAvailabilityTest {

    /** A loader that must not be called: the decision is made before any library is loaded. */
    private static final Consumer<String> NO_LOAD = name -> fail("the probe tried to load " + name);

    @Test
    void isAvailableInTheseTestsAndSaysHowTheLibraryWasLoaded() {
        KQueue.ensureAvailability();
        assertTrue(new KQueueTransportProvider().availability().isAvailable());
        assertEquals(90, new KQueueTransportProvider().ranking());
        assertTrue(new KQueueTransportProvider().isNative());
        assertTrue(KQueue.loadedHow() != null && !KQueue.loadedHow().isEmpty(), String.valueOf(KQueue.loadedHow()));
    }

    @Test
    void withoutTheEmulationPropertyLinuxReportsKqueueUnavailableWithTheCause() {
        Availability a = KQueue.probe(Map.of("os.name", "Linux")::get, NO_LOAD, NO_LOAD);
        assertFalse(a.isAvailable());
        assertEquals("kqueue is a BSD/macOS facility; on Linux it runs only against the test emulation with"
                + " -Dconduit.kqueue.emulation=true", a.unavailabilityCause().getMessage());
        Availability off = KQueue.probe(Map.of("os.name", "Linux", KQueue.EMULATION_PROPERTY, "false")::get,
                NO_LOAD, NO_LOAD);
        assertEquals(KQueue.LINUX_CAUSE, off.unavailabilityCause().getMessage());
    }

    @Test
    void noNativeDisablesKqueueBeforeAnythingIsLoaded() {
        Availability a = KQueue.probe(Map.of("os.name", "Mac OS X", "conduit.noNative", "true")::get, NO_LOAD, NO_LOAD);
        assertFalse(a.isAvailable());
        assertTrue(a.unavailabilityCause().getMessage().contains("conduit.noNative=true"),
                a.unavailabilityCause().getMessage());
    }

    @Test
    void otherSystemsAreNamedInTheCause() {
        Availability a = KQueue.probe(Map.of("os.name", "Windows 11")::get, NO_LOAD, NO_LOAD);
        assertTrue(a.unavailabilityCause().getMessage().contains("Windows 11"), a.unavailabilityCause().getMessage());
    }

    @Test
    void keventLayoutComesFromTheLibrary() {
        KQueue.ensureAvailability();
        // 64 bytes on FreeBSD 12+ and the emulation, 32 on macOS and FreeBSD 11 (LP64)
        assertTrue(NativeAbi.KEVENT_SIZE == 64 || NativeAbi.KEVENT_SIZE == 32, "sizeof(struct kevent) = "
                + NativeAbi.KEVENT_SIZE);
        assertEquals(0, NativeAbi.KEVENT_IDENT_OFFSET);
        assertTrue(NativeAbi.KEVENT_UDATA_OFFSET > NativeAbi.KEVENT_DATA_OFFSET);
        if (NativeAbi.EMULATION) {
            assertEquals(64, NativeAbi.KEVENT_SIZE);
            assertEquals(-1, NativeAbi.EVFILT_READ);
            assertEquals(-11, NativeAbi.EVFILT_USER);
        }
    }

    @Test
    void bsdOptionsAreDeclaredHonestly() {
        KQueue.ensureAvailability();
        KQueueTransport t = KQueueTransport.INSTANCE;
        if (NativeAbi.EMULATION) {
            // Linux has no accept filters and no TCP_NOPUSH, and refuses to change SO_SNDLOWAT
            assertFalse(t.supports(io.conduit.channel.ChannelOption.SO_ACCEPTFILTER));
            assertFalse(t.supports(io.conduit.channel.ChannelOption.TCP_NOPUSH));
            assertFalse(t.supports(io.conduit.channel.ChannelOption.SO_SNDLOWAT));
        } else {
            assertTrue(t.supports(io.conduit.channel.ChannelOption.TCP_NOPUSH));
            assertTrue(t.supports(io.conduit.channel.ChannelOption.SO_SNDLOWAT));
        }
        assertTrue(t.supports(io.conduit.channel.ChannelOption.TCP_NODELAY));
        assertFalse(t.supports(io.conduit.channel.ChannelOption.TCP_CORK), "TCP_CORK is Linux-only");
        assertNull(KQueue.unavailabilityCause());
    }
}
