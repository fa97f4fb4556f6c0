package io.conduit.kqueue;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DomainDatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link DomainDatagramTest} for the kqueue transport (over the emulation on Linux, where it still refuses Linux
 * abstract names as on macOS and FreeBSD); permutations: {@link KQueuePermutations#unixDatagrams()}.
 */
class KQueueDomainDatagramTest extends DomainDatagramTest {
    @Override
    protected List<Combo> permutations() {
        return KQueuePermutations.unixDatagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        KQueuePermutations.assertExpectedUnavailability(provider, availability);
    }
}
