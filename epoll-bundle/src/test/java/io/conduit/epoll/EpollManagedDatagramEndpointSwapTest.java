package io.conduit.epoll;

import io.conduit.testsuite.ManagedDatagramEndpointSwapTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedDatagramEndpointSwapTest} on epoll: it swaps between two copies of epoll under other names. */
class EpollManagedDatagramEndpointSwapTest extends ManagedDatagramEndpointSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return EpollPermutations.EPOLL.transport();
    }
}
