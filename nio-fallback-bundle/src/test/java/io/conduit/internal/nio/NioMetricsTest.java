package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.MetricsTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link MetricsTest} for the nio and nio-vthread transports; permutations: {@link NioPermutations#streams()} and
 * {@link NioPermutations#datagrams()}.
 */
class NioMetricsTest extends MetricsTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.streams();
    }

    @Override
    protected List<Combo> datagramPermutations() {
        return NioPermutations.datagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
