package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DomainDatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link DomainDatagramTest} for the epoll transport; permutations: {@link EpollPermutations#unixDatagrams()}. The
 * Linux-only behaviour (abstract names) is in {@link EpollUnixDatagramTest}.
 */
class EpollDomainDatagramTest extends DomainDatagramTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.unixDatagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }
}
