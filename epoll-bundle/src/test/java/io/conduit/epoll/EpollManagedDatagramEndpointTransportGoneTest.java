package io.conduit.epoll;

import io.conduit.testsuite.ManagedDatagramEndpointTransportGoneTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedDatagramEndpointTransportGoneTest} on epoll: it swaps between two copies of epoll under other names. */
class EpollManagedDatagramEndpointTransportGoneTest extends ManagedDatagramEndpointTransportGoneTest {

    @Override
    protected Transport transportUnderTest() {
        return EpollPermutations.EPOLL.transport();
    }
}
