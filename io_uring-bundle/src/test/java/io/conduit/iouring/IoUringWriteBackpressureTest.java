package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.WriteBackpressureTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link WriteBackpressureTest} for the io_uring transport; permutations: {@link IoUringPermutations#streams()}. */
class IoUringWriteBackpressureTest extends WriteBackpressureTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
