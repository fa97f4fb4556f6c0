package io.conduit.internal.channel.core;

import io.conduit.channel.Channel;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.PeerCredentials;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoPeerCredentials;
import io.conduit.transport.spi.IoStreamSocket;

/**
 * A Unix-domain stream connection on the shared channel core. Its addresses are those the transport's socket
 * reports: {@link java.net.UnixDomainSocketAddress}, or {@link io.conduit.channel.UnixAbstractAddress} (epoll).
 */
public final class IoDomainSocketChannel extends StreamChannel implements DomainSocketChannel {

    public IoDomainSocketChannel(String transportName, IoStreamSocket socket, Channel parent, EventLoop loop) {
        super(transportName, ChannelType.UNIX_STREAM, socket, parent, loop);
    }

    /**
     * @throws UnsupportedOperationException when the transport's socket cannot read {@code SO_PEERCRED}
     *         (it then implements no {@link IoPeerCredentials})
     */
    @Override
    public PeerCredentials peerCredentials() {
        if (socket() instanceof IoPeerCredentials p) {
            return p.peerCredentials();
        }
        throw new UnsupportedOperationException("the '" + transportName() + "' transport cannot read the peer"
                + " credentials (SO_PEERCRED) of Unix-domain sockets; use a native transport such as epoll");
    }
}
