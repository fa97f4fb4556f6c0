package io.conduit.internal.channel.core;

import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoServerSocket;

/**
 * A listener (TCP or Unix-domain) on the shared channel core. Accepted connections are passed to the pipeline
 * as unregistered {@link IoSocketChannel}s / {@link IoDomainSocketChannel}s through {@code channelRead}.
 */
public final class IoServerSocketChannel extends ChannelCore implements ServerChannel {

    static {
        // Load what accepting makes now: under EMFILE a class loader may fail to open its jar, and the JDK's class
        // path loader then drops that jar for good (every later class from it fails with NoClassDefFoundError).
        for (Class<?> c : new Class<?>[] {IoSocketChannel.class, IoDomainSocketChannel.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** @param type {@link ChannelType#TCP} or {@link ChannelType#UNIX_STREAM} */
    public IoServerSocketChannel(String transportName, ChannelType type, IoServerSocket socket, EventLoop loop) {
        super(transportName, type, socket, null, loop);
        if (type != ChannelType.TCP && type != ChannelType.UNIX_STREAM) {
            throw new IllegalArgumentException("no server channel of type " + type + " (TCP or UNIX_STREAM only)");
        }
    }
}
