package io.conduit.internal.nio;

import io.conduit.testsuite.ReuseportSteeringTest;
import io.conduit.transport.Transport;

/** {@link ReuseportSteeringTest} on nio, which cannot steer: the JDK has no {@code SO_ATTACH_REUSEPORT_CBPF}. */
class NioReuseportSteeringTest extends ReuseportSteeringTest {

    @Override
    protected Transport transportUnderTest() {
        return NioPermutations.NIO.transport();
    }

    @Override
    protected boolean steers() {
        return false;
    }
}
