package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.TcpInfoTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link TcpInfoTest} for the epoll transport; permutations: {@link EpollPermutations#streams()}. */
class EpollTcpInfoTest extends TcpInfoTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
