package io.conduit.iouring;

import io.conduit.testsuite.ManagedServerTransportGoneTest;
import io.conduit.transport.Transport;

/**
 * The swap suite {@link ManagedServerTransportGoneTest} on io_uring: it swaps between two copies of io_uring under
 * other names.
 */
class IoUringManagedServerTransportGoneTest extends ManagedServerTransportGoneTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }
}
