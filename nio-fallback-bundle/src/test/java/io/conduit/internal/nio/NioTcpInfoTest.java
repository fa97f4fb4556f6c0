package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.TcpInfoTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link TcpInfoTest} for the nio and nio-vthread transports; permutations: {@link NioPermutations#streams()}. */
class NioTcpInfoTest extends TcpInfoTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.streams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
