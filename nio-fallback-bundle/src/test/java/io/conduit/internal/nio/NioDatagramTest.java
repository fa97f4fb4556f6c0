package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link DatagramTest} for the nio and nio-vthread transports; permutations: {@link NioPermutations#datagrams()}. */
class NioDatagramTest extends DatagramTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
