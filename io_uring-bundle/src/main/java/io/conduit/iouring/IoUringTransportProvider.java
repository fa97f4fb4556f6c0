package io.conduit.iouring;

import io.conduit.transport.Availability;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

/**
 * Provides the {@code io_uring} transport (Linux, JNI): native, ranking {@value #RANKING}, below epoll (100) and
 * kqueue (90), above nio (10). {@code auto} selects it when epoll is unavailable (its bundle stopped, its library
 * missing); a preference naming it selects it first. Available when {@link IoUring}'s one-time probe loaded the
 * library, created a ring and found every opcode it needs. Found through {@link java.util.ServiceLoader}.
 * Thread-safe.
 */
public final class IoUringTransportProvider implements TransportProvider {

    /** The transport's name. */
    public static final String NAME = IoUring.NAME;

    /** The ranking: below epoll's 100 and kqueue's 90, above nio's 10. */
    static final int RANKING = 50;

    /** Holder: made on first use after the probe said available. */
    private static final class Holder {
        static final IoUringTransport TRANSPORT = new IoUringTransport();
    }

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
        return RANKING;
    }

    /** {@code true}: it has every channel kind (TCP, UDP, Unix stream and datagram), so {@code auto} may pick it. */
    @Override
    public boolean autoSelectable() {
        return true;
    }

    @Override
    public Availability availability() {
        return IoUring.availability();
    }

    /**
     * @throws io.conduit.transport.UnavailableTransportException with the probe's cause when unavailable
     */
    @Override
    public Transport transport() {
        IoUring.ensureAvailability();
        return Holder.TRANSPORT;
    }

    @Override
    public String toString() {
        return "TransportProvider[io_uring, ranking " + RANKING + "]";
    }
}
