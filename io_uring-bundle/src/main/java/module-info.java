/**
 * Conduit io_uring transport (Linux 5.11+): JNI facade over io_uring_setup, io_uring_enter and io_uring_register,
 * the submission and completion rings read and written from Java, the channels of the shared channel core on top
 * of them (TCP for now), and its {@code TransportProvider}. The implementation package is not exported; the
 * native library comes from an arch-named fragment ({@code io.conduit.iouring.linux.<arch>}) or is extracted from
 * {@code META-INF/native/} on the class/module path.
 */
module io.conduit.iouring {
    requires io.conduit.api;
    // OSGi only: Declarative Services registration (IoUringProviderComponent is loaded only by SCR).
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.framework;

    provides io.conduit.transport.spi.TransportProvider with io.conduit.iouring.IoUringTransportProvider;
}
