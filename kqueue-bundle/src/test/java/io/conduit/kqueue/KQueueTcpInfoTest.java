package io.conduit.kqueue;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.TcpInfoTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link TcpInfoTest} for the kqueue transport; permutations: {@link KQueuePermutations#streams()}. */
class KQueueTcpInfoTest extends TcpInfoTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
