package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.MetricsTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link MetricsTest} for the io_uring transport; permutations: {@link IoUringPermutations.pairs()} and
 * {@link IoUringPermutations#datagrams()}.
 */
class IoUringMetricsTest extends MetricsTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.pairs();
    }

    @Override
    protected List<Combo> datagramPermutations() {
        return IoUringPermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
