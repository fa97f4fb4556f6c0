package io.conduit.kqueue;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.MetricsTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link MetricsTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations#streams()} and
 * {@link KQueuePermutations#datagrams()}.
 */
class KQueueMetricsTest extends MetricsTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.streams();
    }

    @Override
    protected List<Combo> datagramPermutations() {
        return KQueuePermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
