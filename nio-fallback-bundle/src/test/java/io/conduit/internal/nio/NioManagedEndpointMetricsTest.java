package io.conduit.internal.nio;

import io.conduit.testsuite.ManagedEndpointMetricsTest;
import io.conduit.transport.Transport;

/** The swap suite {@link ManagedEndpointMetricsTest} on nio: it swaps between two copies of nio under other names. */
class NioManagedEndpointMetricsTest extends ManagedEndpointMetricsTest {

    @Override
    protected Transport transportUnderTest() {
        return NioPermutations.NIO.transport();
    }
}
