package io.conduit.iouring;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.DomainDatagramTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link DomainDatagramTest} for the io_uring transport; permutations: {@link IoUringPermutations#unixDatagrams()}. */
class IoUringDomainDatagramTest extends DomainDatagramTest {

    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.unixDatagrams();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }
}
