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
     *         {@code kqueue} 90, {@code io_uring} 50, {@code nio} 10, {@code nio-vthread} 5)
     */
    int ranking();

    /**
     * Whether {@code auto} (and the rest of a preference list after its named entries) may select this transport.
     * A transport that lacks channel kinds the others have returns {@code false}: it is then selected only when a
     * preference names it ({@code conduit.transport=name,nio}), and it is still listed with its availability.
     *
     * @return {@code true} (the default) when the automatic order may choose it
     * @since 0.9.0
     */
    default boolean autoSelectable() {
        return true;
    }

    /** @return whether the transport can be used here, probed once */
    Availability availability();

    /**
     * @return the transport
     * @throws io.conduit.transport.UnavailableTransportException when {@link #availability()} is unavailable
     */
    Transport transport();
}
