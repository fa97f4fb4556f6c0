/**
 * Conduit kqueue transport (macOS, FreeBSD): JNI facade over kqueue/kevent and socket system calls, the
 * kqueue event-loop poller and sockets for the shared channel core. No package is exported; the provider is
 * found with {@link java.util.ServiceLoader}. The native library comes from an OS/arch-named fragment
 * ({@code io.conduit.kqueue.<os>.<arch>}) or is extracted from {@code META-INF/native/}.
 */
module io.conduit.kqueue {
    requires io.conduit.api;
    // OSGi only: Declarative Services registration (KQueueProviderComponent is loaded only by SCR).
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.framework;

    provides io.conduit.transport.spi.TransportProvider with io.conduit.kqueue.KQueueTransportProvider;
}
