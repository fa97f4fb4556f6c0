package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import java.io.IOException;
import java.net.SocketAddress;

/** A listening stream socket. Non-blocking semantics; loop thread only (see {@link IoSocket}). */
@ConsumerType
public interface IoServerSocket extends IoSocket {

    /**
     * {@code bind(2)} + {@code listen(2)} with {@code backlog}: the channel's {@code SO_BACKLOG}, which the core keeps
     * and passes here (since 0.11.0; a socket no longer sees that option); {@code 0} =
     * {@link IoTransportSupport#defaultBacklog()} ({@link IoTransportSupport#listenBacklog(int, int)}).
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
}
