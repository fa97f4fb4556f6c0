package io.conduit.epoll;

import io.conduit.testsuite.ReuseportSteeringTest;
import io.conduit.transport.Transport;

/** {@link ReuseportSteeringTest} on epoll, which steers with {@code SO_ATTACH_REUSEPORT_CBPF}. */
class EpollReuseportSteeringTest extends ReuseportSteeringTest {

    @Override
    protected Transport transportUnderTest() {
        return EpollPermutations.EPOLL.transport();
    }

    @Override
    protected boolean steers() {
        return true;
    }
}
