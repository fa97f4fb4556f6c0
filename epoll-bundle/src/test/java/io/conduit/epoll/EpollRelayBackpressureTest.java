package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.RelayBackpressureTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link RelayBackpressureTest} for the epoll transport; permutations: {@link EpollPermutations#pairs()}. */
class EpollRelayBackpressureTest extends RelayBackpressureTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.pairs();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
