package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link DatagramTest} for the io_uring transport; permutations: {@link IoUringPermutations#datagrams()}. */
class IoUringDatagramTest extends DatagramTest {

    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
