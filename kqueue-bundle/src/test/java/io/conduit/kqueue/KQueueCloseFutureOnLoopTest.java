package io.conduit.kqueue;

import io.conduit.testsuite.CloseFutureOnLoopTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link CloseFutureOnLoopTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations.kqueueOnly()}. */
class KQueueCloseFutureOnLoopTest extends CloseFutureOnLoopTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.kqueueOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
