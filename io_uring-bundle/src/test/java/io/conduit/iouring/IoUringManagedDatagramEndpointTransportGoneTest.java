package io.conduit.iouring;

import io.conduit.testsuite.ManagedDatagramEndpointTransportGoneTest;
import io.conduit.transport.Transport;

/**
 * The swap suite {@link ManagedDatagramEndpointTransportGoneTest} on io_uring: it swaps between two copies of
 * io_uring under other names.
 */
class IoUringManagedDatagramEndpointTransportGoneTest extends ManagedDatagramEndpointTransportGoneTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }
}
