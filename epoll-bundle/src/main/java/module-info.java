/**
 * Conduit epoll transport (Linux): JNI facade over epoll, eventfd, timerfd and socket system calls, the
 * channels of the shared channel core on top of it, and its {@code TransportProvider}. The implementation
 * package is not exported; the native library comes from an arch-named fragment
 * ({@code io.conduit.epoll.linux.<arch>}) or is extracted from {@code META-INF/native/} on the class/module path.
 */
module io.conduit.epoll {
    requires io.conduit.api;
    // OSGi only: Declarative Services registration (EpollProviderComponent is loaded only by SCR).
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.framework;

    provides io.conduit.transport.spi.TransportProvider with io.conduit.epoll.EpollTransportProvider;
}
