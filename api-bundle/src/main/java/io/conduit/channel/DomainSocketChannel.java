package io.conduit.channel;

import java.net.UnixDomainSocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/** A Unix-domain stream socket connection ({@code AF_UNIX}, {@code SOCK_STREAM}). */
@ProviderType
public interface DomainSocketChannel extends DuplexChannel {

    @Override
    UnixDomainSocketAddress localAddress();

    @Override
    UnixDomainSocketAddress remoteAddress();

    /**
     * @return the credentials of the peer process at connect time ({@code SO_PEERCRED})
     * @throws UnsupportedOperationException when the transport cannot read them (the message names the transport)
     * @throws ChannelClosedException when the channel is not connected
     */
    PeerCredentials peerCredentials();
}
