package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.HalfClosureTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link HalfClosureTest} for the io_uring transport; permutations: {@link IoUringPermutations#streams()}. */
class IoUringHalfClosureTest extends HalfClosureTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
