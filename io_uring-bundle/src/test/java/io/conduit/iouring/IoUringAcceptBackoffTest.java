package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.AcceptBackoffTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link AcceptBackoffTest} for the io_uring transport; permutations: {@link IoUringPermutations#ioUringOnly()}. */
class IoUringAcceptBackoffTest extends AcceptBackoffTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.ioUringOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
