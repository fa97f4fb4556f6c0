package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.UnixStreamTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link UnixStreamTest} for the epoll transport; permutations: {@link EpollPermutations#pairsPooled()}. */
class EpollUnixStreamTest extends UnixStreamTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.pairsPooled();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
