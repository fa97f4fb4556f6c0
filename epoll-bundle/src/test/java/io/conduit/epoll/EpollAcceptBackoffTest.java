package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.AcceptBackoffTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link AcceptBackoffTest} for the epoll transport; permutations: {@link EpollPermutations#epollOnly()}. */
class EpollAcceptBackoffTest extends AcceptBackoffTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.epollOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
