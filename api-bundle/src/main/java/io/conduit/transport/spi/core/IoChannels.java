package io.conduit.transport.spi.core;

import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.SocketChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.internal.channel.core.IoDatagramChannel;
import io.conduit.internal.channel.core.IoDomainDatagramChannel;
import io.conduit.internal.channel.core.IoDomainSocketChannel;
import io.conduit.internal.channel.core.IoServerSocketChannel;
import io.conduit.internal.channel.core.IoSocketChannel;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;

/**
 * Makes the channels of the shared channel core around a transport's sockets: a transport's
 * {@code Transport.newChannel} and {@code newServerChannel} call these and return the result. The core
 * implements every channel semantic (reads, writes, half-closure, connect, close, accept back-off, datagram
 * batches); the socket supplies only the system calls. The returned channels are not registered yet:
 * {@code Bootstrap}/{@code ServerBootstrap} register them.
 *
 * <p>Thread-safe; every method makes a new channel.
 */
public final class IoChannels {

    private IoChannels() {
    }

    /**
     * @param transportName the transport's name, e.g. {@code "epoll"}
     * @param socket a TCP socket, open and not registered
     * @param loop the loop to register with, or {@code null} when the bootstrap chooses it later
     */
    public static SocketChannel socketChannel(String transportName, IoStreamSocket socket, EventLoop loop) {
        return new IoSocketChannel(transportName, socket, null, loop);
    }

    /** Like {@link #socketChannel} for a Unix-domain stream socket ({@link ChannelType#UNIX_STREAM}). */
    public static DomainSocketChannel domainSocketChannel(String transportName, IoStreamSocket socket,
            EventLoop loop) {
        return new IoDomainSocketChannel(transportName, socket, null, loop);
    }

    /**
     * A listener; the connections it accepts are channels of the core too, handed to its pipeline unregistered
     * through {@code channelRead}.
     *
     * @param type {@link ChannelType#TCP} or {@link ChannelType#UNIX_STREAM}
     * @throws IllegalArgumentException for another type
     */
    public static ServerChannel serverChannel(String transportName, ChannelType type, IoServerSocket socket,
            EventLoop loop) {
        return new IoServerSocketChannel(transportName, type, socket, loop);
    }

    /** Like {@link #socketChannel} for a UDP socket: reads deliver {@link io.conduit.channel.DatagramPacket}s. */
    public static DatagramChannel datagramChannel(String transportName, IoDatagramSocket socket, EventLoop loop) {
        return new IoDatagramChannel(transportName, socket, loop);
    }

    /**
     * Like {@link #socketChannel} for a Unix-domain datagram socket ({@link ChannelType#UNIX_DATAGRAM}): reads
     * deliver {@link io.conduit.channel.DomainDatagramPacket}s.
     */
    public static DomainDatagramChannel domainDatagramChannel(String transportName, IoDatagramSocket socket,
            EventLoop loop) {
        return new IoDomainDatagramChannel(transportName, socket, loop);
    }
}
