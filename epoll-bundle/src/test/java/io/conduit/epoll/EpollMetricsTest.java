package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.MetricsTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link MetricsTest} for the epoll transport; permutations: {@link EpollPermutations#streams()} and
 * {@link EpollPermutations#datagrams()}.
 */
class EpollMetricsTest extends MetricsTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.streams();
    }

    @Override
    protected List<Combo> datagramPermutations() {
        return EpollPermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
