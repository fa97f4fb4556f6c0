package io.conduit.kqueue;

import io.conduit.testsuite.TlsTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link TlsTest} for the kqueue transport (over the emulation on Linux); permutations: {@link KQueuePermutations#streams()}. */
class KQueueTlsTest extends TlsTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
