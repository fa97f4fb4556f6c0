package io.conduit.kqueue;

import io.conduit.transport.Availability;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

/**
 * Provides the {@code kqueue} transport (macOS, FreeBSD; ranking 90, native). Its availability is probed once
 * ({@link KQueue}): it loads the library and creates a real kqueue; {@code conduit.noNative=true} disables it;
 * on Linux it is available only to the kqueue bundle's tests, over the test-only emulation
 * ({@code -Dconduit.kqueue.emulation=true}). Found through {@link java.util.ServiceLoader}; thread-safe.
 */
public final class KQueueTransportProvider implements TransportProvider {

    /** The transport's name. */
    public static final String NAME = KQueue.NAME;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public int ranking() {
        return 90;
    }

    @Override
    public Availability availability() {
        return KQueue.availability();
    }

    @Override
    public Transport transport() {
        KQueue.ensureAvailability();
        return KQueueTransport.INSTANCE;
    }

    @Override
    public String toString() {
        return "TransportProvider[kqueue, ranking 90, " + (KQueue.isAvailable() ? "available]" : "unavailable]");
    }
}
