package io.conduit.iouring;

import io.conduit.concurrent.EventLoopGroup;
import io.conduit.testsuite.Combo;
import io.conduit.testsuite.SpliceForwardingTest;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;

/**
 * {@link SpliceForwardingTest} for the io_uring transport; permutations: {@link IoUringPermutations#ioUringOnly()}.
 * A source has a receive in flight (and bytes in a ring buffer) when forwarding begins: those bytes go first, through
 * the pipe ({@link IoUringStreamSocket#RECEIVED_BYTES_PIPED}), and the ring buffers come back when a forwarding
 * closes ({@link IoUringIoHandler#ringBuffersHeld}).
 */
class IoUringSpliceForwardingTest extends SpliceForwardingTest {
    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.ioUringOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }

    @Override
    protected long splicePipesCreated() {
        return IoUringSplicePipe.PIPES_CREATED.get();
    }

    @Override
    protected long splicePipesClosed() {
        return IoUringSplicePipe.PIPES_CLOSED.get();
    }

    @Override
    protected long bytesReceivedAheadAndPiped() {
        return IoUringStreamSocket.RECEIVED_BYTES_PIPED.get();
    }

    @Override
    protected long receiveBuffersHeld(EventLoopGroup group) {
        return IoUringTestSupport.onLoop(group, h -> h.ringBuffersHeld);
    }
}
