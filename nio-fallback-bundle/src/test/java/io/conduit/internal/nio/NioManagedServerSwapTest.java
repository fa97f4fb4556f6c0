package io.conduit.internal.nio;

import io.conduit.testsuite.ManagedServerSwapTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedServerSwapTest} on nio: it swaps between two copies of nio under other names. */
class NioManagedServerSwapTest extends ManagedServerSwapTest {

    @Override
    protected Transport transportUnderTest() {
        return NioPermutations.NIO.transport();
    }
}
