package io.conduit.iouring;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.core.IoChannels;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * The {@code io_uring} transport: the shared channel core over {@link IoUringStreamSocket} and
 * {@link IoUringServerSocket}, driven by one {@link IoUringIoHandler} (one ring) per loop. Channel kinds: TCP,
 * UDP, Unix-domain stream and Unix-domain datagram ({@link IoUringDatagramSocket}).
 *
 * <p>Thread-safe.
 */
final class IoUringTransport implements Transport {

    /** The groups it made, its channel types (TCP, UDP, Unix stream and datagram) and the shared checks. */
    private final IoTransportSupport support = new IoTransportSupport(IoUring.NAME,
            EnumSet.of(ChannelType.TCP, ChannelType.UDP, ChannelType.UNIX_STREAM, ChannelType.UNIX_DATAGRAM));

    @Override
    public String name() {
        return IoUring.NAME;
    }

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public Set<ChannelType> channelTypes() {
        return support.channelTypes();
    }

    @Override
    public boolean supports(ChannelOption<?> option) {
        return IoTransportSupport.isCoreOption(option) || IoUringSocket.mapsOption(option);
    }

    /** IP socket addresses, Unix-domain paths and Linux abstract Unix names (unix(7)). */
    @Override
    public boolean supportsAddress(SocketAddress address) {
        return address == null || address instanceof InetSocketAddress
                || address instanceof UnixDomainSocketAddress || address instanceof UnixAbstractAddress;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads) {
        return newEventLoopGroup(nThreads, null);
    }

    /**
     * @param nThreads loops; 0 = twice the available processors
     * @throws IllegalArgumentException when {@code nThreads < 0}
     * @throws io.conduit.transport.UnavailableTransportException when io_uring is unavailable here
     */
    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads must be >= 0 (0 = twice the processors), got " + nThreads);
        }
        IoUring.ensureAvailability();
        return support.newGroup(nThreads, threadFactory, IoUringIoHandler::new, IoEventLoopGroup.Options.defaults());
    }

    @Override
    public Channel newChannel(ChannelType type, EventLoop loop) {
        support.checkType(type);
        support.checkLoop(loop);
        try {
            switch (type) {
                case UNIX_STREAM:
                    return IoChannels.domainSocketChannel(name(), IoUringStreamSocket.open(true), loop);
                case UDP:
                    return IoChannels.datagramChannel(name(), IoUringDatagramSocket.open(false), loop);
                case UNIX_DATAGRAM:
                    return IoChannels.domainDatagramChannel(name(), IoUringDatagramSocket.open(true), loop);
                default:
                    return IoChannels.socketChannel(name(), IoUringStreamSocket.open(false), loop);
            }
        } catch (IOException e) {
            throw support.openFailed(type, "socket", e);
        }
    }

    @Override
    public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
        support.checkServerType(type);
        support.checkLoop(loop);
        try {
            return IoChannels.serverChannel(name(), type, IoUringServerSocket.open(type == ChannelType.UNIX_STREAM),
                    loop);
        } catch (IOException e) {
            throw support.openFailed(type, "listener", e);
        }
    }

    @Override
    public String toString() {
        return IoUring.NAME;
    }
}
