package io.conduit.transport;

/** The kinds of channel a {@link Transport} may make. */
public enum ChannelType {
    /** TCP ({@code AF_INET/AF_INET6}, {@code SOCK_STREAM}): {@link io.conduit.channel.SocketChannel} and its server. */
    TCP,
    /** UDP ({@code SOCK_DGRAM}): {@link io.conduit.channel.DatagramChannel}; there is no server kind. */
    UDP,
    /** Unix-domain stream sockets: {@link io.conduit.channel.DomainSocketChannel} and its server. */
    UNIX_STREAM,
    /**
     * Unix-domain datagram sockets ({@code AF_UNIX}, {@code SOCK_DGRAM}): {@link io.conduit.channel.DomainDatagramChannel},
     * reading and writing {@link io.conduit.channel.DomainDatagramPacket}s; there is no server kind. The native
     * transports have them: epoll (Linux, also with abstract names) and kqueue (macOS, FreeBSD; socket file paths
     * only). {@code nio} and {@code nio-vthread} do not — the JDK (17 through 25) has no Unix-domain
     * {@link java.nio.channels.DatagramChannel} — and list no such type in {@link Transport#channelTypes()}; their
     * factories throw {@link UnsupportedOperationException} naming the type and saying to use epoll or kqueue.
     */
    UNIX_DATAGRAM
}
