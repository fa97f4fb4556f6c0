package io.conduit.internal.nio;

import io.conduit.testsuite.ManagedDatagramEndpointTransportGoneTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedDatagramEndpointTransportGoneTest} on nio: it swaps between two copies of nio under other names. */
class NioManagedDatagramEndpointTransportGoneTest extends ManagedDatagramEndpointTransportGoneTest {

    @Override
    protected Transport transportUnderTest() {
        return NioPermutations.NIO.transport();
    }
}
