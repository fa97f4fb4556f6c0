package io.conduit.epoll;

import static io.conduit.testsuite.AllocatorKind.ONE_BYTE_READS;
import static io.conduit.testsuite.AllocatorKind.POOLED;
import static io.conduit.testsuite.AllocatorKind.UNPOOLED;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.internal.nio.NioTransportProvider;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * The named permutations the epoll module runs the conformance testsuite with: epoll on both sides and both
 * cross pairs with nio (epoll server ← nio client, nio server ← epoll client), each with the pooled, the
 * unpooled and the adversarial one-byte-reads allocator. These are native tests on their own platform: epoll
 * being unavailable fails them ({@link #assertExpectedUnavailability}), it never skips them.
 */
final class EpollPermutations {

    static final TransportProvider EPOLL = new EpollTransportProvider();
    static final TransportProvider NIO = new NioTransportProvider();

    private EpollPermutations() {
    }

    /** Stream tests: 3 transport pairs × 3 allocators. */
    static List<Combo> streams() {
        return List.of(
                new Combo(EPOLL, EPOLL, POOLED),
                new Combo(EPOLL, EPOLL, UNPOOLED),
                new Combo(EPOLL, EPOLL, ONE_BYTE_READS),
                new Combo(EPOLL, NIO, POOLED),
                new Combo(EPOLL, NIO, UNPOOLED),
                new Combo(EPOLL, NIO, ONE_BYTE_READS),
                new Combo(NIO, EPOLL, POOLED),
                new Combo(NIO, EPOLL, UNPOOLED),
                new Combo(NIO, EPOLL, ONE_BYTE_READS));
    }

    /**
     * UDP: 3 transport pairs × pooled and unpooled; not with the one-byte-reads allocator, whose one-byte
     * buffers would hold only the first byte of each datagram by design.
     */
    static List<Combo> datagrams() {
        return List.of(
                new Combo(EPOLL, EPOLL, POOLED),
                new Combo(EPOLL, EPOLL, UNPOOLED),
                new Combo(EPOLL, NIO, POOLED),
                new Combo(EPOLL, NIO, UNPOOLED),
                new Combo(NIO, EPOLL, POOLED),
                new Combo(NIO, EPOLL, UNPOOLED));
    }

    /**
     * Unix datagrams: epoll with every allocator — the one-byte-reads allocator too, since received datagrams are
     * copied out of the receive slots into buffers that grow, so it cuts nothing. No cross pairs: nio has no Unix
     * datagram channels (its own module asserts that).
     */
    static List<Combo> unixDatagrams() {
        return List.of(
                new Combo(EPOLL, EPOLL, POOLED),
                new Combo(EPOLL, EPOLL, UNPOOLED),
                new Combo(EPOLL, EPOLL, ONE_BYTE_READS));
    }

    /**
     * Heavier stream scenarios (relay back-pressure, late auto-read): epoll on both sides with the pooled and
     * the unpooled allocator, and both cross pairs with nio, pooled.
     */
    static List<Combo> pairs() {
        return List.of(
                new Combo(EPOLL, EPOLL, POOLED),
                new Combo(EPOLL, EPOLL, UNPOOLED),
                new Combo(EPOLL, NIO, POOLED),
                new Combo(NIO, EPOLL, POOLED));
    }

    /**
     * Scenarios about addresses and closing, where the allocator plays no part: epoll on both sides and both
     * cross pairs with nio, pooled only.
     */
    static List<Combo> pairsPooled() {
        return List.of(
                new Combo(EPOLL, EPOLL, POOLED),
                new Combo(EPOLL, NIO, POOLED),
                new Combo(NIO, EPOLL, POOLED));
    }

    /** Tests whose other side is a plain JDK socket (the allocator does not matter): epoll once. */
    static List<Combo> epollOnly() {
        return List.of(new Combo(EPOLL, EPOLL, POOLED));
    }

    /** Nothing may be unavailable: this module's tests run on Linux x86_64 with the fragment on the class path. */
    static void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        AssertionError e = new AssertionError("transport '" + provider.name() + "' must be available on "
                + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + " with the native fragment on"
                + " the test class path, but is not: " + availability.unavailabilityCause(),
                availability.unavailabilityCause());
        fail(e.getMessage(), e);
    }
}
