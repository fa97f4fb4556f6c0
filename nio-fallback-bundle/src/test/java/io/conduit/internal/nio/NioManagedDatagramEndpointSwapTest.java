package io.conduit.internal.nio;

import io.conduit.testsuite.ManagedDatagramEndpointSwapTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedDatagramEndpointSwapTest} on nio: it swaps between two copies of nio under other names. */
class NioManagedDatagramEndpointSwapTest extends ManagedDatagramEndpointSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return NioPermutations.NIO.transport();
    }
}
