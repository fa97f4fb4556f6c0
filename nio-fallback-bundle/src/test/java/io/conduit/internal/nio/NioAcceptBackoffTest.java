package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.AcceptBackoffTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link AcceptBackoffTest} for the nio and nio-vthread transports; permutations: {@link NioPermutations#eachTransport()}. */
class NioAcceptBackoffTest extends AcceptBackoffTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.eachTransport();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
