package io.conduit.iouring;

import io.conduit.testsuite.ManagedDatagramCrossTransportSwapTest;

/** The swap suite {@link ManagedDatagramCrossTransportSwapTest} between io_uring and nio. */
class IoUringManagedDatagramCrossTransportSwapTest extends ManagedDatagramCrossTransportSwapTest {

    @Override
    protected String transportUnderTest() {
        return "io_uring";
    }
}
