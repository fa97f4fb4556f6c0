package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.StreamEchoTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link StreamEchoTest} for the io_uring transport; permutations: {@link IoUringPermutations#streams()}. */
class IoUringStreamEchoTest extends StreamEchoTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
