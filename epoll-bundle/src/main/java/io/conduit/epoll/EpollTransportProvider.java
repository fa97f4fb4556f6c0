package io.conduit.epoll;

import io.conduit.transport.Availability;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

/**
 * Provides the {@code epoll} transport (Linux, JNI): native, ranking 100, available when {@link Epoll}'s
 * one-time probe loaded the library and created an epoll fd and an eventfd. Found through
 * {@link java.util.ServiceLoader} ({@code module-info} {@code provides} and {@code META-INF/services}).
 * Thread-safe; the probe runs on the first {@link #availability()} call.
 */
public final class EpollTransportProvider implements TransportProvider {

    /** The transport's name. */
    public static final String NAME = Epoll.NAME;

    /** Holder: made on first use after the probe said available. */
    private static final class Holder {
        static final EpollTransport TRANSPORT = new EpollTransport();
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
        return 100;
    }

    @Override
    public Availability availability() {
        return Epoll.availability();
    }

    /**
     * @throws io.conduit.transport.UnavailableTransportException with every load attempt when unavailable
     */
    @Override
    public Transport transport() {
        Epoll.ensureAvailability();
        return Holder.TRANSPORT;
    }

    @Override
    public String toString() {
        return "TransportProvider[epoll, ranking 100]";
    }
}
