package io.conduit.internal.channel.core;

import io.conduit.channel.DomainDatagramChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;

/**
 * A Unix-domain datagram channel on the shared channel core ({@link ChannelType#UNIX_DATAGRAM}). Reads deliver
 * {@link io.conduit.channel.DomainDatagramPacket}s (empty ones included); writes take packets, or plain
 * buffers once connected. The socket is the transport's {@link IoDatagramSocket} of family {@code AF_UNIX}.
 */
public final class IoDomainDatagramChannel extends ChannelCore implements DomainDatagramChannel {

    public IoDomainDatagramChannel(String transportName, IoDatagramSocket socket, EventLoop loop) {
        super(transportName, ChannelType.UNIX_DATAGRAM, socket, null, loop);
    }

    @Override
    public boolean isConnected() {
        return ((DatagramIo) io).isConnected();
    }
}
