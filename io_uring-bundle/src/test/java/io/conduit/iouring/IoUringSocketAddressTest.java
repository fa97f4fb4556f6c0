package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.SocketAddressTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link SocketAddressTest} for the io_uring transport; permutations: {@link IoUringPermutations#pairsPooled()}. */
class IoUringSocketAddressTest extends SocketAddressTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.pairsPooled();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
