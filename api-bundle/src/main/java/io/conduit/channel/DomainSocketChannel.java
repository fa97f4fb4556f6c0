package io.conduit.channel;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Unix-domain stream socket connection ({@code AF_UNIX}, {@code SOCK_STREAM}).
 *
 * <p>{@link #localAddress()} and {@link #remoteAddress()} are a {@link java.net.UnixDomainSocketAddress} for a
 * socket file path (an empty path for an unnamed socket), or — on Linux with the epoll or io_uring transport — a
 * {@link UnixAbstractAddress} for a name in the abstract namespace ({@code unix(7)}).
 */
@ProviderType
public interface DomainSocketChannel extends DuplexChannel {

    /**
     * @return the credentials of the peer process at connect time ({@code SO_PEERCRED})
     * @throws UnsupportedOperationException when the transport cannot read them (the message names the transport)
     * @throws ChannelClosedException when the channel is not connected
     */
    PeerCredentials peerCredentials();
}
