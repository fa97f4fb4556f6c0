package io.conduit.epoll;

import io.conduit.testsuite.Combo;
import io.conduit.testsuite.SpliceForwardingTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/** {@link SpliceForwardingTest} for the epoll transport; permutations: {@link EpollPermutations#epollOnly()}. */
class EpollSpliceForwardingTest extends SpliceForwardingTest {
    @Override
    protected List<Combo> permutations() {
        return EpollPermutations.epollOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        EpollPermutations.assertExpectedUnavailability(provider, availability);
    }

    @Override
    protected long splicePipesCreated() {
        return EpollSplicePipe.PIPES_CREATED.get();
    }

    @Override
    protected long splicePipesClosed() {
        return EpollSplicePipe.PIPES_CLOSED.get();
    }
}
