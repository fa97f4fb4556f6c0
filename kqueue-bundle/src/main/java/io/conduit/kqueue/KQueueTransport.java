package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;

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
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * The {@code kqueue} transport: the shared channel core over kqueue-driven sockets (TCP, UDP, Unix-domain
 * stream and Unix-domain datagram). Made only when {@link KQueue#isAvailable()}. Thread-safe.
 *
 * <p>Addresses: IP addresses and Unix socket file paths; a Linux abstract Unix name
 * ({@link io.conduit.channel.UnixAbstractAddress}) is refused ({@link #supportsAddress} says so, binds and
 * connects fail naming it) — the BSDs have no abstract namespace, and the Linux test build over the emulation
 * refuses them the same way so that it behaves as on macOS and FreeBSD.
 *
 * <p>Options: the standard ones, {@code SO_REUSEPORT}, and the BSD ones where the system has them —
 * {@code SO_ACCEPTFILTER} (FreeBSD), {@code TCP_NOPUSH} and {@code SO_SNDLOWAT} (macOS, FreeBSD).
 * {@link #supports} answers from the loaded library: on the Linux test build over the emulation none of the three
 * BSD options is supported (Linux has no accept filters and no {@code TCP_NOPUSH}, and refuses to change
 * {@code SO_SNDLOWAT}).
 */
final class KQueueTransport implements Transport {

    static final KQueueTransport INSTANCE = new KQueueTransport();

    /** The groups it made, its channel types (TCP, UDP, Unix stream and datagram) and the shared checks. */
    private final IoTransportSupport support = new IoTransportSupport(KQueue.NAME,
            EnumSet.of(ChannelType.TCP, ChannelType.UDP, ChannelType.UNIX_STREAM, ChannelType.UNIX_DATAGRAM));

    private KQueueTransport() {
    }

    @Override
    public String name() {
        return KQueue.NAME;
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
        if (IoTransportSupport.isCoreOption(option)
                || option == ChannelOption.SO_SNDBUF || option == ChannelOption.SO_RCVBUF
                || option == ChannelOption.SO_KEEPALIVE || option == ChannelOption.SO_REUSEADDR
                || option == ChannelOption.SO_LINGER || option == ChannelOption.SO_BROADCAST
                || option == ChannelOption.IP_TOS || option == ChannelOption.IP_MULTICAST_TTL
                || option == ChannelOption.IP_MULTICAST_LOOP || option == ChannelOption.TCP_NODELAY) {
            return true;
        }
        if (option == ChannelOption.SO_REUSEPORT) {
            return NativeAbi.SO_REUSEPORT >= 0;
        }
        if (option == ChannelOption.SO_ACCEPTFILTER) {
            return NativeAbi.HAS_SO_ACCEPTFILTER;
        }
        if (option == ChannelOption.TCP_NOPUSH) {
            return NativeAbi.HAS_TCP_NOPUSH;
        }
        if (option == ChannelOption.SO_SNDLOWAT) {
            return NativeAbi.SO_SNDLOWAT_SETTABLE;
        }
        return false;
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads) {
        return newEventLoopGroup(nThreads, null);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        if (nThreads < 0) {
            throw new IllegalArgumentException("nThreads must be >= 0 (0 = twice the processors), got " + nThreads);
        }
        KQueue.ensureAvailability();
        return support.newGroup(nThreads, threadFactory, KQueueIoHandler::new, IoEventLoopGroup.Options.defaults());
    }

    @Override
    public Channel newChannel(ChannelType type, EventLoop loop) {
        support.checkType(type);
        support.checkLoop(loop);
        try {
            switch (type) {
                case TCP: {
                    int[] fam = new int[1];
                    int fd = inetSocket(NativeAbi.SOCK_STREAM, fam);
                    return IoChannels.socketChannel(name(), new KQueueStreamSocket(fd, fam[0], false), loop);
                }
                case UNIX_STREAM: {
                    int fd = ERRORS.check("socket(AF_UNIX)", Native.socket(NativeAbi.AF_UNIX, NativeAbi.SOCK_STREAM, 0));
                    return IoChannels.domainSocketChannel(name(),
                            new KQueueStreamSocket(fd, NativeAbi.AF_UNIX, false), loop);
                }
                case UNIX_DATAGRAM: {
                    int fd = ERRORS.check("socket(AF_UNIX, SOCK_DGRAM)",
                            Native.socket(NativeAbi.AF_UNIX, NativeAbi.SOCK_DGRAM, 0));
                    return IoChannels.domainDatagramChannel(name(), new KQueueDatagramSocket(fd, NativeAbi.AF_UNIX), loop);
                }
                case UDP: {
                    int[] fam = new int[1];
                    int fd = inetSocket(NativeAbi.SOCK_DGRAM, fam);
                    return IoChannels.datagramChannel(name(), new KQueueDatagramSocket(fd, fam[0]), loop);
                }
                default:
                    throw new UnsupportedOperationException("the 'kqueue' transport has no " + type + " channels");
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
            int fd;
            int family;
            if (type == ChannelType.TCP) {
                int[] fam = new int[1];
                fd = inetSocket(NativeAbi.SOCK_STREAM, fam);
                family = fam[0];
            } else {
                fd = ERRORS.check("socket(AF_UNIX)", Native.socket(NativeAbi.AF_UNIX, NativeAbi.SOCK_STREAM, 0));
                family = NativeAbi.AF_UNIX;
            }
            KQueueServerSocket socket;
            try {
                socket = new KQueueServerSocket(fd, family);
            } catch (IOException e) {
                Native.close(fd);
                throw e;
            }
            return IoChannels.serverChannel(name(), type, socket, loop);
        } catch (IOException e) {
            throw support.openFailed(type, "listener", e);
        }
    }

    /**
     * A dual-stack {@code AF_INET6} socket ({@code IPV6_V6ONLY} off, so IPv4 peers appear as IPv4-mapped
     * addresses), or {@code AF_INET} where the system has no IPv6
     * ({@link io.conduit.transport.spi.unix.UnixSockets#openInet}).
     */
    private static int inetSocket(int type, int[] familyOut) throws IOException {
        int[] fdAndFamily = NativeAbi.SOCKETS.openInet(type);
        familyOut[0] = fdAndFamily[1];
        return fdAndFamily[0];
    }

    @Override
    public String toString() {
        return name();
    }
}
