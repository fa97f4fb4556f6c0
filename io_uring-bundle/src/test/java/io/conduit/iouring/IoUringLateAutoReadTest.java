package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.LateAutoReadTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link LateAutoReadTest} for the io_uring transport; permutations: {@link IoUringPermutations#pairs()}. */
class IoUringLateAutoReadTest extends LateAutoReadTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.pairs();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
