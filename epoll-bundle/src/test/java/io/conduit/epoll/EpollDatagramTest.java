package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link DatagramTest} for the epoll transport; permutations: {@link EpollPermutations#datagrams()}. */
class EpollDatagramTest extends DatagramTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
