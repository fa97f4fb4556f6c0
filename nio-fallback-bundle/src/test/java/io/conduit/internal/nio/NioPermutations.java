package io.conduit.internal.nio;

import static io.conduit.testsuite.AllocatorKind.ONE_BYTE_READS;
import static io.conduit.testsuite.AllocatorKind.POOLED;
import static io.conduit.testsuite.AllocatorKind.UNPOOLED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * The named permutations the nio module runs the conformance testsuite with. {@code nio-vthread} permutations
 * are always listed: on a JVM older than 21 each of them asserts that the transport is unavailable because a
 * 21+ JVM is needed (they never vanish silently).
 */
final class NioPermutations {

    static final TransportProvider NIO = new NioTransportProvider();
    static final TransportProvider VTHREAD = new NioVirtualThreadTransportProvider();

    private NioPermutations() {
    }

    /** Stream tests: nio with every allocator, nio-vthread with two, and both cross pairs. */
    static List<Combo> streams() {
        return List.of(
                new Combo(NIO, NIO, POOLED),
                new Combo(NIO, NIO, UNPOOLED),
                new Combo(NIO, NIO, ONE_BYTE_READS),
                new Combo(VTHREAD, VTHREAD, POOLED),
                new Combo(VTHREAD, VTHREAD, ONE_BYTE_READS),
                new Combo(NIO, VTHREAD, POOLED),
                new Combo(VTHREAD, NIO, UNPOOLED));
    }

    /** Tests where one side is a plain JDK socket or the allocator does not matter: each transport once. */
    static List<Combo> eachTransport() {
        return List.of(new Combo(NIO, NIO, POOLED), new Combo(VTHREAD, VTHREAD, POOLED));
    }

    /**
     * UDP: nio only (nio-vthread has no UDP); not with the one-byte-reads allocator, which would truncate
     * datagrams by design.
     */
    static List<Combo> datagrams() {
        return List.of(new Combo(NIO, NIO, POOLED), new Combo(NIO, NIO, UNPOOLED));
    }

    /**
     * Unix datagrams: each transport once. Neither has them (java.nio has no Unix-domain DatagramChannel); the
     * conformance test asserts that each says so and refuses the channel type.
     */
    static List<Combo> unixDatagrams() {
        return List.of(new Combo(NIO, NIO, POOLED), new Combo(VTHREAD, VTHREAD, POOLED));
    }

    /** The only expected unavailability: nio-vthread on a JVM older than 21, saying so. */
    static void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        assertEquals(NioVirtualThreadTransportProvider.NAME, provider.name(), "only nio-vthread may be unavailable");
        assertTrue(Runtime.version().feature() < 21, "nio-vthread must be available on JVM " + Runtime.version()
                + " but is not: " + availability);
        String message = availability.unavailabilityCause().getMessage();
        assertTrue(message.contains("21+ JVM"), message);
    }
}
