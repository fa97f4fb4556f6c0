package io.conduit.channel;

import java.net.SocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Unix-domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}, see {@code unix(7)}): reliable and
 * ordered on one host, message boundaries kept. Unconnected, it reads and writes {@link DomainDatagramPacket}s;
 * once connected it also accepts plain {@link io.conduit.buffer.Buffer}s, sent to the connected peer, and
 * reads only that peer's datagrams. Empty datagrams are delivered.
 *
 * <p>Addresses are {@link java.net.UnixDomainSocketAddress}es (a socket file path; an empty path for an unnamed
 * socket) or — on Linux with the epoll transport — {@link UnixAbstractAddress}es. Binding to a path creates the
 * socket file; the channel removes it when it closes (only while the path still holds that very file). A
 * datagram from an unnamed (never bound) socket reports the empty path as its sender and cannot be answered,
 * so bind both ends to exchange replies.
 *
 * <p>Sizes ({@code unix(7)}): a datagram larger than the sender's {@code SO_SNDBUF} fails its write with an
 * {@link java.io.IOException} naming {@code EMSGSIZE}; one larger than the transport's receive slot (epoll:
 * 65,536 bytes) is delivered cut, with {@link DomainDatagramPacket#truncated()} set. A peer whose receive queue
 * is full makes the write wait (the socket is not writable), as for any datagram channel.
 *
 * <p>Address errors follow {@link DatagramChannel}: sending to another address than the connected peer fails
 * that write with {@link java.nio.channels.AlreadyConnectedException}, a packet without recipient on an
 * unconnected channel with {@link java.nio.channels.NotYetConnectedException}, an address of another kind with
 * {@link java.nio.channels.UnsupportedAddressTypeException}.
 */
@ProviderType
public interface DomainDatagramChannel extends Channel {

    /** @return {@code true} when connected to one peer */
    boolean isConnected();

    /** @return the bound address, {@code null} before bind/connect, an empty path for an unnamed socket */
    @Override
    SocketAddress localAddress();

    /** @return the connected peer, or {@code null} when not connected */
    @Override
    SocketAddress remoteAddress();
}
