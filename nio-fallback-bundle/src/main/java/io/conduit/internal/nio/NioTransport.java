package io.conduit.internal.nio;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoHandlerFactory;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.core.IoChannels;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * The {@code nio} and {@code nio-vthread} transports: the shared channel core over {@code java.nio} sockets.
 * They differ only in their {@link Sockets} (non-blocking selector sockets, or blocking sockets driven by
 * virtual threads) and their loops' {@link io.conduit.transport.spi.IoHandler}. Thread-safe.
 */
final class NioTransport implements Transport {

    /** How a transport makes its sockets and its loops' pollers. */
    interface Sockets {
        IoStreamSocket stream(ProtocolFamily family) throws IOException;

        IoServerSocket server(ProtocolFamily family) throws IOException;

        /** @throws UnsupportedOperationException when the transport has no UDP */
        IoDatagramSocket datagram() throws IOException;

        IoHandlerFactory handlerFactory();
    }

    private final String name;
    private final Sockets sockets;
    /** The groups it made, its channel types and the shared checks. */
    private final IoTransportSupport support;

    NioTransport(String name, Set<ChannelType> channelTypes, Sockets sockets) {
        this.name = name;
        this.sockets = sockets;
        this.support = new IoTransportSupport(name, channelTypes);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isNative() {
        return false;
    }

    @Override
    public Set<ChannelType> channelTypes() {
        return support.channelTypes();
    }

    @Override
    public boolean supports(ChannelOption<?> option) {
        return IoTransportSupport.isCoreOption(option) || NioSocket.mapsOption(option);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads) {
        return newEventLoopGroup(nThreads, null);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        return support.newGroup(nThreads, threadFactory, sockets.handlerFactory(), IoEventLoopGroup.Options.defaults());
    }

    /** @return {@code true} when {@code loop} belongs to a group of this transport */
    boolean owns(EventLoop loop) {
        return support.owns(loop);
    }

    /**
     * {@inheritDoc}
     *
     * @throws UnsupportedOperationException for {@link ChannelType#UNIX_DATAGRAM} (java.nio has none), saying to use
     *         the epoll or kqueue transport; for UDP on {@code nio-vthread}
     */
    @Override
    public Channel newChannel(ChannelType type, EventLoop loop) {
        checkNotUnixDatagram(type);
        support.checkType(type);
        support.checkLoop(loop);
        try {
            switch (type) {
                case TCP:
                    return IoChannels.socketChannel(name, sockets.stream(StandardProtocolFamily.INET6), loop);
                case UNIX_STREAM:
                    return IoChannels.domainSocketChannel(name, sockets.stream(StandardProtocolFamily.UNIX), loop);
                case UDP:
                    return IoChannels.datagramChannel(name, sockets.datagram(), loop);
                default:
                    throw new UnsupportedOperationException("the '" + name + "' transport has no " + type + " channels");
            }
        } catch (IOException e) {
            throw support.openFailed(type, "socket", e);
        }
    }

    @Override
    public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
        checkNotUnixDatagram(type);
        support.checkServerType(type);
        support.checkLoop(loop);
        try {
            ProtocolFamily family = type == ChannelType.TCP ? StandardProtocolFamily.INET6 : StandardProtocolFamily.UNIX;
            return IoChannels.serverChannel(name, type, sockets.server(family), loop);
        } catch (IOException e) {
            throw support.openFailed(type, "listener", e);
        }
    }

    /**
     * @throws UnsupportedOperationException for {@link ChannelType#UNIX_DATAGRAM}: the JDK (17 through 25) has no
     *         Unix-domain {@link java.nio.channels.DatagramChannel}; the message names the transports that have them
     */
    private void checkNotUnixDatagram(ChannelType type) {
        if (type == ChannelType.UNIX_DATAGRAM) {
            throw new UnsupportedOperationException("the '" + name + "' transport has no UNIX_DATAGRAM channels"
                    + " (Unix-domain datagram sockets, AF_UNIX/SOCK_DGRAM): java.nio has no Unix-domain"
                    + " DatagramChannel (JDK 17 through 25); use the epoll transport (Linux) or the kqueue transport"
                    + " (macOS, FreeBSD), or a UNIX_STREAM channel");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
