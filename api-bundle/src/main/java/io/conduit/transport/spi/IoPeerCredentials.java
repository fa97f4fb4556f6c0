package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import io.conduit.channel.PeerCredentials;

/** Implemented by an {@link IoStreamSocket} of a Unix-domain socket that can read {@code SO_PEERCRED}. */
@ConsumerType
public interface IoPeerCredentials {
    /**
     * @return the peer's credentials ({@code struct ucred}, {@code unix(7)})
     * @throws io.conduit.channel.ChannelClosedException when the socket is not connected
     */
    PeerCredentials peerCredentials();
}
