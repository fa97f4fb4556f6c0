package io.conduit.kqueue;

import io.conduit.testsuite.DatagramTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link DatagramTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations#datagrams()}. */
class KQueueDatagramTest extends DatagramTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
