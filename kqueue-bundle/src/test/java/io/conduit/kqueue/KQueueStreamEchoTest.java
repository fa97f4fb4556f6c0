package io.conduit.kqueue;

import io.conduit.testsuite.StreamEchoTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link StreamEchoTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations#streams()}. */
class KQueueStreamEchoTest extends StreamEchoTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
