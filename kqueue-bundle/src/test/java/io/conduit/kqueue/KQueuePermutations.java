package io.conduit.kqueue;

import static io.conduit.testsuite.AllocatorKind.ONE_BYTE_READS;
import static io.conduit.testsuite.AllocatorKind.POOLED;
import static io.conduit.testsuite.AllocatorKind.UNPOOLED;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.epoll.EpollTransportProvider;
import io.conduit.internal.nio.NioTransportProvider;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * The named permutations the kqueue module runs the conformance testsuite with, on Linux through the test-only
 * kqueue emulation ({@code -Dconduit.kqueue.emulation=true}, set by this module's surefire configuration).
 * kqueue↔kqueue with every allocator; cross pairs with nio and with epoll (the Linux native transport, whose
 * library loads from its fragment jar on the test class path) with the pooled allocator only, to keep the run short.
 */
final class KQueuePermutations {

    static final TransportProvider KQUEUE = new KQueueTransportProvider();
    static final TransportProvider NIO = new NioTransportProvider();
    static final TransportProvider EPOLL = new EpollTransportProvider();

    private KQueuePermutations() {
    }

    /** Stream tests: kqueue with every allocator, then both kqueue/nio and both kqueue/epoll cross pairs. */
    static List<Combo> streams() {
        return List.of(
                new Combo(KQUEUE, KQUEUE, POOLED),
                new Combo(KQUEUE, KQUEUE, UNPOOLED),
                new Combo(KQUEUE, KQUEUE, ONE_BYTE_READS),
                new Combo(KQUEUE, NIO, POOLED),
                new Combo(NIO, KQUEUE, POOLED),
                new Combo(KQUEUE, EPOLL, POOLED),
                new Combo(EPOLL, KQUEUE, POOLED));
    }

    /** Connect/close cases (the client transport matters most): kqueue alone, and a kqueue client of a nio server. */
    static List<Combo> connectAndClose() {
        return List.of(new Combo(KQUEUE, KQUEUE, POOLED), new Combo(NIO, KQUEUE, POOLED),
                new Combo(EPOLL, KQUEUE, POOLED));
    }

    /** Accepting under EMFILE is the server's business: kqueue once. */
    static List<Combo> kqueueOnly() {
        return List.of(new Combo(KQUEUE, KQUEUE, POOLED));
    }

    /** UDP: not with the one-byte-reads allocator, which would cut datagrams by design. */
    static List<Combo> datagrams() {
        return List.of(
                new Combo(KQUEUE, KQUEUE, POOLED),
                new Combo(KQUEUE, KQUEUE, UNPOOLED),
                new Combo(KQUEUE, NIO, POOLED),
                new Combo(NIO, KQUEUE, POOLED),
                new Combo(KQUEUE, EPOLL, POOLED),
                new Combo(EPOLL, KQUEUE, POOLED));
    }

    /**
     * Unix datagrams: kqueue with every allocator (the one-byte-reads one cuts nothing: received datagrams are
     * copied into buffers that grow), and both kqueue/epoll cross pairs, pooled. No nio pairs: nio has no Unix
     * datagram channels.
     */
    static List<Combo> unixDatagrams() {
        return List.of(
                new Combo(KQUEUE, KQUEUE, POOLED),
                new Combo(KQUEUE, KQUEUE, UNPOOLED),
                new Combo(KQUEUE, KQUEUE, ONE_BYTE_READS),
                new Combo(KQUEUE, EPOLL, POOLED),
                new Combo(EPOLL, KQUEUE, POOLED));
    }

    /** No permutation may be unavailable: the build passes -Dconduit.kqueue.emulation=true. */
    static void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        fail("transport '" + provider.name() + "' must be available in the kqueue module's tests (they run with"
                + " -D" + KQueue.EMULATION_PROPERTY + "=true on Linux) but is not", availability.unavailabilityCause());
    }
}
