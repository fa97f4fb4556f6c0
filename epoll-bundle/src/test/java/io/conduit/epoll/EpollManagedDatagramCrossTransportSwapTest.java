package io.conduit.epoll;

import io.conduit.testsuite.ManagedDatagramCrossTransportSwapTest;

/** The swap suite {@link ManagedDatagramCrossTransportSwapTest} between epoll and nio. */
class EpollManagedDatagramCrossTransportSwapTest extends ManagedDatagramCrossTransportSwapTest {

    @Override
    protected String transportUnderTest() {
        return "epoll";
    }
}
