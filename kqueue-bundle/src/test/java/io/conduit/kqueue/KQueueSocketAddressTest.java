package io.conduit.kqueue;

import io.conduit.testsuite.SocketAddressTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link SocketAddressTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations#connectAndClose()}. */
class KQueueSocketAddressTest extends SocketAddressTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.connectAndClose();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
