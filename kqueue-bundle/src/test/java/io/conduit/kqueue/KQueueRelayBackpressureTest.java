package io.conduit.kqueue;

import io.conduit.testsuite.RelayBackpressureTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link RelayBackpressureTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations.kqueueOnly()}. */
class KQueueRelayBackpressureTest extends RelayBackpressureTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.kqueueOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
