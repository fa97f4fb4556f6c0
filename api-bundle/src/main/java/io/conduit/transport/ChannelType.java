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
     * reading and writing {@link io.conduit.channel.DomainDatagramPacket}s; there is no server kind. Only the epoll
     * transport has them (java.nio has no Unix datagram channel); the others' factories throw
     * {@link UnsupportedOperationException} naming the type.
     */
    UNIX_DATAGRAM
}
