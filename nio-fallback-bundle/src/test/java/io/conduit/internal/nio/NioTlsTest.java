package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.TlsTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link TlsTest} for the nio and nio-vthread transports; permutations: {@link NioPermutations#streams()}. */
class NioTlsTest extends TlsTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
