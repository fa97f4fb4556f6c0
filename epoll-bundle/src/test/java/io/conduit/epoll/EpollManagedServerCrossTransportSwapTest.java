package io.conduit.epoll;

import io.conduit.testsuite.ManagedServerCrossTransportSwapTest;

/** The swap suite {@link ManagedServerCrossTransportSwapTest} between epoll and nio. */
class EpollManagedServerCrossTransportSwapTest extends ManagedServerCrossTransportSwapTest {

    @Override
    protected String transportUnderTest() {
        return "epoll";
    }
}
