package io.conduit.epoll;

import io.conduit.testsuite.ManagedServerTransportGoneTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedServerTransportGoneTest} on epoll: it swaps between two copies of epoll under other names. */
class EpollManagedServerTransportGoneTest extends ManagedServerTransportGoneTest {

    @Override
    protected Transport transportUnderTest() {
        return EpollPermutations.EPOLL.transport();
    }
}
