package io.conduit.iouring;

import io.conduit.testsuite.ManagedServerCrossTransportSwapTest;

/**
 * The swap suite {@link ManagedServerCrossTransportSwapTest} between io_uring and nio, a listener on a Linux abstract
 * name (which only io_uring binds) among them.
 */
class IoUringManagedServerCrossTransportSwapTest extends ManagedServerCrossTransportSwapTest {

    @Override
    protected String transportUnderTest() {
        return IoUring.NAME;
    }
}
