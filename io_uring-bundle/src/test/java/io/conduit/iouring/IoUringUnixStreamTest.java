package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.UnixStreamTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link UnixStreamTest} for the io_uring transport; permutations: {@link IoUringPermutations#pairsPooled()}. */
class IoUringUnixStreamTest extends UnixStreamTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.pairsPooled();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
