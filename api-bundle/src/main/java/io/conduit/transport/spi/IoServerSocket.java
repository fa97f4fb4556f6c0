package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import java.io.IOException;
import java.net.SocketAddress;

/** A listening stream socket. Non-blocking semantics; loop thread only (see {@link IoSocket}). */
@ConsumerType
public interface IoServerSocket extends IoSocket {

    /**
     * {@code bind(2)} + {@code listen(2)} with {@code backlog}; {@code 0} = the {@code SO_BACKLOG} option when set,
     * else {@link IoTransportSupport#defaultBacklog()} ({@link IoTransportSupport#listenBacklog(int, int)}).
     */
    void bind(SocketAddress localAddress, int backlog) throws IOException;

    @Override
    default void bind(SocketAddress localAddress) throws IOException {
        bind(localAddress, 0);
    }

    /**
     * {@code accept(2)}.
     *
     * @return the accepted connection (not yet registered), or {@code null} when none is pending
     * @throws IOException e.g. "Too many open files" ({@code EMFILE}/{@code ENFILE}); the core backs off and
     *         retries, it never closes the listener for that
     */
    IoStreamSocket accept() throws IOException;

    /**
     * {@link #accept()} for a listener that closes right after (the core takes in what is queued before it closes a
     * listener whose connections are kept, as a swap does): also a connection the kernel holds but has not reported
     * yet, which a completion-based transport's {@link #accept()} does not see until a completion arrives. Closing
     * the listener would reset such a connection. Default: {@link #accept()}.
     *
     * @return the accepted connection (not yet registered), or {@code null} when none is pending
     * @throws IOException as {@link #accept()}
     * @since 0.11.0
     */
    default IoStreamSocket acceptQueued() throws IOException {
        return accept();
    }

    /**
     * Steers the {@code SO_REUSEPORT} group this listener belongs to: every new connection of the group goes to the
     * listening socket at {@code index} in the group (the order they called {@code listen(2)}; on Linux a
     * {@code SO_ATTACH_REUSEPORT_CBPF} program, socket(7)); an index past the end falls back to the kernel's hash.
     * The program belongs to the group, so it also steers connections away from listeners of other transports.
     * Called on the listener's event loop, while it listens.
     *
     * @param index the place in the group, &gt;= 0
     * @return {@code true} when the group is steered; {@code false} when this transport cannot steer (the default)
     * @throws IOException the system call failed, e.g. the socket is not in a {@code SO_REUSEPORT} group
     */
    default boolean steerReuseportGroup(int index) throws IOException {
        return false;
    }

    /**
     * Removes what {@link #steerReuseportGroup(int)} attached, so the kernel's hash picks the listener again
     * ({@code SO_DETACH_REUSEPORT_BPF}, Linux 5.3+). Called on the listener's event loop.
     *
     * @return {@code true} when a program was removed; {@code false} when none was attached or this transport
     *         cannot steer (the default)
     * @throws IOException the system call failed otherwise
     */
    default boolean unsteerReuseportGroup() throws IOException {
        return false;
    }
}
