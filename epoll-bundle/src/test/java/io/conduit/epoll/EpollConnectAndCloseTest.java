package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.ConnectAndCloseTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link ConnectAndCloseTest} for the epoll transport; permutations: {@link EpollPermutations#streams()}. */
class EpollConnectAndCloseTest extends ConnectAndCloseTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
