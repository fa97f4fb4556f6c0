package io.conduit.transport.spi;

import io.conduit.transport.Availability;
import io.conduit.transport.Transport;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Implemented by each transport bundle and registered with {@link java.util.ServiceLoader}
 * ({@code provides io.conduit.transport.spi.TransportProvider}) and, inside OSGi, as a service with the
 * properties {@code conduit.transport.name}, {@code conduit.transport.available} and {@code service.ranking}.
 *
 * <p>Implementations are thread-safe. {@link #availability()} runs its probe (loading native libraries,
 * creating kernel objects) at most once and returns the same answer afterwards.
 */
@ConsumerType
public interface TransportProvider {

    /** @return the transport name, e.g. {@code "epoll"}; lower case */
    String name();

    /** @return {@code true} when the transport needs a native library; {@code conduit.noNative} disables those */
    boolean isNative();

    /**
     * @return the rank in automatic selection: higher wins among available providers ({@code epoll} 100,
     *         {@code kqueue} 90, {@code nio} 10, {@code nio-vthread} 5)
     */
    int ranking();

    /** @return whether the transport can be used here, probed once */
    Availability availability();

    /**
     * @return the transport
     * @throws io.conduit.transport.UnavailableTransportException when {@link #availability()} is unavailable
     */
    Transport transport();
}
