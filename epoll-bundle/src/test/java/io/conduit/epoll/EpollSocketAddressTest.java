package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.SocketAddressTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link SocketAddressTest} for the epoll transport; permutations: {@link EpollPermutations#pairsPooled()}. */
class EpollSocketAddressTest extends SocketAddressTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.pairsPooled();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
