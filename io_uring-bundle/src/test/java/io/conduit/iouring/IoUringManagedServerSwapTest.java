package io.conduit.iouring;

import io.conduit.testsuite.ManagedServerSwapTest;
import io.conduit.transport.Transport;

/**
 * The swap suite {@link ManagedServerSwapTest} on io_uring, Unix-domain listeners included: it swaps between two
 * copies of io_uring under other names.
 */
class IoUringManagedServerSwapTest extends ManagedServerSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }
}
