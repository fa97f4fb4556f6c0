package io.conduit.epoll;

import io.conduit.testsuite.ManagedEndpointMetricsTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedEndpointMetricsTest} on epoll: it swaps between two copies of epoll under other names. */
class EpollManagedEndpointMetricsTest extends ManagedEndpointMetricsTest {

    @Override
    protected Transport transportUnderTest() {
        return EpollPermutations.EPOLL.transport();
    }
}
