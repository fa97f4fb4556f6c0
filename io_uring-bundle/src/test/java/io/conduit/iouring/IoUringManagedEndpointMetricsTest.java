package io.conduit.iouring;

import io.conduit.testsuite.ManagedEndpointMetricsTest;
import io.conduit.transport.Transport;

/**
 * The swap suite {@link ManagedEndpointMetricsTest} on io_uring: it swaps between two copies of io_uring under other
 * names.
 */
class IoUringManagedEndpointMetricsTest extends ManagedEndpointMetricsTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }
}
