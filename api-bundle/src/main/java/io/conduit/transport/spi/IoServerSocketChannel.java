package io.conduit.transport.spi;

import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.ChannelType;

/**
 * A listener (TCP or Unix-domain) on the shared channel core. Accepted connections are passed to the pipeline
 * as unregistered {@link IoSocketChannel}s / {@link IoDomainSocketChannel}s through {@code channelRead}.
 */
public final class IoServerSocketChannel extends AbstractIoChannel implements ServerChannel {

    /** @param type {@link ChannelType#TCP} or {@link ChannelType#UNIX_STREAM} */
    public IoServerSocketChannel(String transportName, ChannelType type, IoServerSocket socket, EventLoop loop) {
        super(transportName, type, socket, null, loop);
        if (type != ChannelType.TCP && type != ChannelType.UNIX_STREAM) {
            throw new IllegalArgumentException("no server channel of type " + type + " (TCP or UNIX_STREAM only)");
        }
    }
}
