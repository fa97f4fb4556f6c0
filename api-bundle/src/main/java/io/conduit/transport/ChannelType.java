package io.conduit.transport;

/** The kinds of channel a {@link Transport} may make. */
public enum ChannelType {
    /** TCP ({@code AF_INET/AF_INET6}, {@code SOCK_STREAM}): {@link io.conduit.channel.SocketChannel} and its server. */
    TCP,
    /** UDP ({@code SOCK_DGRAM}): {@link io.conduit.channel.DatagramChannel}; there is no server kind. */
    UDP,
    /** Unix-domain stream sockets: {@link io.conduit.channel.DomainSocketChannel} and its server. */
    UNIX_STREAM,
    /** Unix-domain datagram sockets. */
    UNIX_DATAGRAM
}
