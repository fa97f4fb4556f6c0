package io.conduit.iouring;

import io.conduit.testsuite.ReuseportSteeringTest;
import io.conduit.transport.Transport;

/** {@link ReuseportSteeringTest} on io_uring, which steers with {@code SO_ATTACH_REUSEPORT_CBPF}. */
class IoUringReuseportSteeringTest extends ReuseportSteeringTest {

    @Override
    protected Transport transportUnderTest() {
        return IoUringPermutations.IO_URING.transport();
    }

    @Override
    protected boolean steers() {
        return true;
    }
}
