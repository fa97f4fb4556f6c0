package io.conduit.channel;

import java.net.SocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A Unix-domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}, see {@code unix(7)}): reliable and
 * ordered on one host, message boundaries kept. Unconnected, it reads and writes {@link DomainDatagramPacket}s;
 * once connected it also accepts plain {@link io.conduit.buffer.Buffer}s, sent to the connected peer, and
 * reads only that peer's datagrams. Empty datagrams are delivered.
 *
 * <p>Addresses are {@link java.net.UnixDomainSocketAddress}es (a socket file path, at most {@code sun_path}'s
 * length less one: 107 bytes on Linux, 103 on macOS and FreeBSD; an empty path for an unnamed socket) or — on
 * Linux with the epoll transport — {@link UnixAbstractAddress}es; kqueue rejects those with an
 * {@link java.nio.channels.UnsupportedAddressTypeException} saying abstract names are Linux-only (even over its
 * Linux test emulation). Binding to a path creates the
 * socket file; the channel removes it when it closes (only while the path still holds that very file). A
 * datagram from an unnamed (never bound) socket reports the empty path as its sender and cannot be answered,
 * so bind both ends to exchange replies.
 *
 * <p>Transports: epoll (Linux) and kqueue (macOS, FreeBSD); {@code nio} and {@code nio-vthread} have no Unix
 * datagram channels (see {@link io.conduit.transport.ChannelType#UNIX_DATAGRAM}). Threading as for any
 * {@link Channel}: every method may be called from any thread; handlers run on the channel's event loop.
 *
 * <p>Sizes, in bytes: a datagram larger than the sender may send fails its write with an
 * {@link java.io.IOException} whose message says "Message too long" ({@code EMSGSIZE}) and names the datagram's
 * length and the socket's {@code SO_SNDBUF}; the channel stays open. The sender's limit is the system's:
 * <ul>
 *   <li>Linux ({@code unix(7)}): a little less than {@code SO_SNDBUF} (default {@code net.core.wmem_default},
 *       212,992 on most systems; the kernel doubles a value that is set);</li>
 *   <li>macOS: {@code SO_SNDBUF}, whose default for Unix datagram sockets is the sysctl
 *       {@code net.local.dgram.maxdgram} — only <b>2,048</b> — while the receiver must have room for the datagram
 *       in its {@code SO_RCVBUF} ({@code net.local.dgram.recvspace}); raise both options on the two sockets to
 *       exchange larger datagrams;</li>
 *   <li>FreeBSD: likewise {@code SO_SNDBUF}, defaulting to its own {@code net.local.dgram.maxdgram}.</li>
 * </ul>
 * A datagram larger than the receive slot (65,536 bytes on epoll and kqueue) is delivered cut to the slot, with
 * {@link DomainDatagramPacket#truncated()} set ({@code recvmsg(2)}'s {@code MSG_TRUNC}). A peer whose receive
 * queue is full makes the write wait (the socket is not writable), as for any datagram channel; every waiting
 * write is sent in order once the peer reads again, or fails when the channel closes.
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
