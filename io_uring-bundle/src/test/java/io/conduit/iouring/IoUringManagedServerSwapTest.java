package io.conduit.iouring;

import io.conduit.testsuite.ManagedServerSwapTest;
import io.conduit.transport.Transport;

/**
 * The swap suite {@link ManagedServerSwapTest} on io_uring: it swaps between two copies of io_uring under other
 * names. Its queued-connections case holds the old listener's loop, so the connections wait in the kernel's queue
 * with no accept completion reported: only {@code accept4(2)} in {@link IoUringServerSocket#acceptQueued()} takes
 * them before the close.
 */
class IoUringManagedServerSwapTest extends ManagedServerSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }
}
