package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.FramedEchoTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link FramedEchoTest} for the epoll transport; permutations: {@link EpollPermutations#streams()}. */
class EpollFramedEchoTest extends FramedEchoTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
