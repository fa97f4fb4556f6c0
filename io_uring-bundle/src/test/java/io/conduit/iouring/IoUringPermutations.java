package io.conduit.iouring;

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
 * The named permutations the io_uring module runs the conformance testsuite with: io_uring on both sides and both
 * cross pairs with nio, each with the pooled, the unpooled and the adversarial one-byte-reads allocator. TCP and
 * Unix-domain stream run in the same stream permutations; UDP and Unix datagrams in their own. Native tests on their
 * own platform: io_uring being unavailable fails them, it never skips them.
 */
final class IoUringPermutations {

    static final TransportProvider IO_URING = new IoUringTransportProvider();
    static final TransportProvider NIO = new NioTransportProvider();

    private IoUringPermutations() {
    }

    /** Stream tests: 3 transport pairs × 3 allocators. */
    static List<Combo> streams() {
        return List.of(
                new Combo(IO_URING, IO_URING, POOLED),
                new Combo(IO_URING, IO_URING, UNPOOLED),
                new Combo(IO_URING, IO_URING, ONE_BYTE_READS),
                new Combo(IO_URING, NIO, POOLED),
                new Combo(IO_URING, NIO, UNPOOLED),
                new Combo(IO_URING, NIO, ONE_BYTE_READS),
                new Combo(NIO, IO_URING, POOLED),
                new Combo(NIO, IO_URING, UNPOOLED),
                new Combo(NIO, IO_URING, ONE_BYTE_READS));
    }

    /**
     * UDP: 3 transport pairs × pooled and unpooled; not with the one-byte-reads allocator, whose one-byte buffers
     * would hold only the first byte of each datagram by design.
     */
    static List<Combo> datagrams() {
        return List.of(
                new Combo(IO_URING, IO_URING, POOLED),
                new Combo(IO_URING, IO_URING, UNPOOLED),
                new Combo(IO_URING, NIO, POOLED),
                new Combo(IO_URING, NIO, UNPOOLED),
                new Combo(NIO, IO_URING, POOLED),
                new Combo(NIO, IO_URING, UNPOOLED));
    }

    /**
     * Unix datagrams: io_uring with every allocator (received datagrams are copied out of the receive slots into
     * buffers that grow, so the one-byte-reads allocator cuts nothing). No cross pairs: nio has no Unix datagram
     * channels.
     */
    static List<Combo> unixDatagrams() {
        return List.of(
                new Combo(IO_URING, IO_URING, POOLED),
                new Combo(IO_URING, IO_URING, UNPOOLED),
                new Combo(IO_URING, IO_URING, ONE_BYTE_READS));
    }

    /**
     * Heavier stream scenarios (relay back-pressure, late auto-read, TLS, connect and close, metrics): io_uring on
     * both sides, pooled and unpooled, and both cross pairs, pooled. The one-byte-reads allocator runs in the
     * byte-stream tests ({@link #streams()}), which keeps this module's two test passes (JDK 17 and 25) short.
     */
    static List<Combo> pairs() {
        return List.of(
                new Combo(IO_URING, IO_URING, POOLED),
                new Combo(IO_URING, IO_URING, UNPOOLED),
                new Combo(IO_URING, NIO, POOLED),
                new Combo(NIO, IO_URING, POOLED));
    }

    /** Addresses and closing, where the allocator plays no part: pooled only. */
    static List<Combo> pairsPooled() {
        return List.of(
                new Combo(IO_URING, IO_URING, POOLED),
                new Combo(IO_URING, NIO, POOLED),
                new Combo(NIO, IO_URING, POOLED));
    }

    /** Tests whose other side is a plain JDK socket: io_uring once. */
    static List<Combo> ioUringOnly() {
        return List.of(new Combo(IO_URING, IO_URING, POOLED));
    }

    /** Nothing may be unavailable: this module's tests run on Linux x86_64 with the fragment on the class path. */
    static void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        AssertionError e = new AssertionError("transport '" + provider.name() + "' must be available on "
                + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + " with the native fragment on"
                + " the test class path and io_uring allowed by the kernel, but is not: "
                + availability.unavailabilityCause(), availability.unavailabilityCause());
        fail(e.getMessage(), e);
    }
}
