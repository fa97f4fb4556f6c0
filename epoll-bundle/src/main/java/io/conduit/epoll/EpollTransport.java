package io.conduit.epoll;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.core.IoChannels;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * The {@code epoll} transport: the shared channel core over {@link EpollStreamSocket},
 * {@link EpollServerSocket} and {@link EpollDatagramSocket}, driven by one {@link EpollIoHandler} per loop.
 * Channel kinds: TCP, UDP, Unix-domain stream and Unix-domain datagram sockets.
 *
 * <p>Busy-wait loops (no blocking {@code epoll_wait}, one core spent per loop) are opted into with the system
 * property {@value #BUSY_WAIT_PROPERTY}{@code =true}, read when a group is made, or with
 * {@link #newEventLoopGroup(int, ThreadFactory, IoEventLoopGroup.Options)}.
 *
 * <p>Thread-safe.
 */
final class EpollTransport implements Transport {

    /** System property: {@code true} makes new epoll event loop groups busy-wait. */
    static final String BUSY_WAIT_PROPERTY = "conduit.epoll.busyWait";

    /** The groups it made, its channel types (TCP, UDP, Unix stream and datagram) and the shared checks. */
    private final IoTransportSupport support = new IoTransportSupport(Epoll.NAME,
            EnumSet.of(ChannelType.TCP, ChannelType.UDP, ChannelType.UNIX_STREAM, ChannelType.UNIX_DATAGRAM));

    @Override
    public String name() {
        return Epoll.NAME;
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
        return IoTransportSupport.isCoreOption(option) || EpollSocket.mapsOption(option);
    }

    /** Every kind, Linux abstract Unix names included (unix(7)). */
    @Override
    public boolean supportsAddress(SocketAddress address) {
        return true;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads) {
        return newEventLoopGroup(nThreads, null);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        boolean busy = IoTransportSupport.booleanProperty(System::getProperty, BUSY_WAIT_PROPERTY, false);
        return newEventLoopGroup(nThreads, threadFactory, IoEventLoopGroup.Options.defaults().busyWait(busy));
    }

    /**
     * A group with explicit options (e.g. {@link IoEventLoopGroup.Options#busyWait(boolean)}).
     *
     * @param nThreads loops; 0 = twice the available processors
     * @throws IllegalArgumentException when {@code nThreads < 0}
     * @throws io.conduit.transport.UnavailableTransportException when epoll is unavailable here
     */
    IoEventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory, IoEventLoopGroup.Options options) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads must be >= 0 (0 = twice the processors), got " + nThreads);
        }
        Epoll.ensureAvailability();
        return support.newGroup(nThreads, threadFactory, EpollIoHandler::new, options);
    }

    @Override
    public Channel newChannel(ChannelType type, EventLoop loop) {
        support.checkType(type);
        support.checkLoop(loop);
        try {
            switch (type) {
                case TCP:
                    return IoChannels.socketChannel(name(), EpollStreamSocket.open(false), loop);
                case UNIX_STREAM:
                    return IoChannels.domainSocketChannel(name(), EpollStreamSocket.open(true), loop);
                case UDP:
                    return IoChannels.datagramChannel(name(), EpollDatagramSocket.open(), loop);
                case UNIX_DATAGRAM:
                    return IoChannels.domainDatagramChannel(name(), EpollDatagramSocket.open(true), loop);
                default:
                    throw new UnsupportedOperationException("the 'epoll' transport has no " + type + " channels");
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
            return IoChannels.serverChannel(name(), type, EpollServerSocket.open(type == ChannelType.UNIX_STREAM), loop);
        } catch (IOException e) {
            throw support.openFailed(type, "listener", e);
        }
    }

    @Override
    public String toString() {
        return Epoll.NAME;
    }
}
