package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.FramedEchoTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link FramedEchoTest} for the io_uring transport; permutations: {@link IoUringPermutations#streams()}. */
class IoUringFramedEchoTest extends FramedEchoTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
