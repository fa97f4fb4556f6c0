package io.conduit.epoll;

import io.conduit.testsuite.ManagedServerSwapTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedServerSwapTest} on epoll: it swaps between two copies of epoll under other names. */
class EpollManagedServerSwapTest extends ManagedServerSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return EpollPermutations.EPOLL.transport();
    }
}
