package io.conduit.internal.nio;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DomainDatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;
import java.util.Set;

/**
 * {@link DomainDatagramTest} for the nio and nio-vthread transports, which have no Unix datagram channels: every test
 * asserts that each transport says so and refuses the channel type naming epoll and kqueue. Permutations:
 * {@link NioPermutations#unixDatagrams()}.
 */
class NioDomainDatagramTest extends DomainDatagramTest {
    @Override
    protected List<Combo> permutations() {
        return NioPermutations.unixDatagrams();
    }

    @Override
    protected Set<String> transportsWithoutUnixDatagrams() {
        return Set.of(NioTransportProvider.NAME, NioVirtualThreadTransportProvider.NAME);
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        NioPermutations.assertExpectedUnavailability(provider, availability);
    }
}
