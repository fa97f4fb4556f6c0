package io.conduit.iouring;

import io.conduit.testsuite.ManagedDatagramEndpointSwapTest;
import io.conduit.transport.Transport;

/**
 * The swap suite {@link ManagedDatagramEndpointSwapTest} on io_uring: it swaps between two copies of io_uring under
 * other names (the hand-over connects the old socket away, {@code IoUringDatagramSocket.connectAway}).
 */
class IoUringManagedDatagramEndpointSwapTest extends ManagedDatagramEndpointSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }
}
