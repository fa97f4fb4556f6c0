package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.CloseFutureOnLoopTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link CloseFutureOnLoopTest} for the nio and nio-vthread transports; permutations: {@link NioPermutations.eachTransport()}. */
class NioCloseFutureOnLoopTest extends CloseFutureOnLoopTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.eachTransport();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
