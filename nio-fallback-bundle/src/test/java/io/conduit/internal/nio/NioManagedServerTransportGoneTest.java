package io.conduit.internal.nio;

import io.conduit.testsuite.ManagedServerTransportGoneTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedServerTransportGoneTest} on nio: it swaps between two copies of nio under other names. */
class NioManagedServerTransportGoneTest extends ManagedServerTransportGoneTest {

    @Override
    protected Transport transportUnderTest() {
        return NioPermutations.NIO.transport();
    }
}
