package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * A datagram socket: UDP, or Unix-domain ({@code AF_UNIX}, {@code SOCK_DGRAM}) under an
 * {@link IoDomainDatagramChannel}. Non-blocking semantics; loop thread only (see {@link IoSocket}).
 */
@ConsumerType
public interface IoDatagramSocket extends IoSocket {

    /**
     * Receives one datagram into {@code dst}; an empty datagram is a valid result. A datagram longer than
     * {@code dst.remaining()} is cut.
     *
     * @return the sender, or {@code null} when no datagram is waiting
     */
    SocketAddress receive(ByteBuffer dst) throws IOException;

    /**
     * Sends {@code src} as one datagram to {@code target} ({@code null} = the connected peer).
     *
     * @return {@code true} when sent; {@code false} when the send buffer is full (nothing was sent)
     */
    boolean send(ByteBuffer src, SocketAddress target) throws IOException;

    /** Receives the datagrams of one {@link #receiveBatch} call. Loop thread only. */
    @FunctionalInterface
    interface DatagramSink {
        /**
         * @param data the payload between position and limit; valid only during this call (copy it)
         * @param sender where it came from
         * @param recipient the real destination address ({@code IP_RECVORIGDSTADDR}), or {@code null} when not
         *        known (the core then reports the channel's local address)
         * @param truncated {@code true} when the datagram was longer than the receive buffer and was cut
         */
        void datagram(ByteBuffer data, SocketAddress sender, SocketAddress recipient, boolean truncated);
    }

    /**
     * Optional batch receive ({@code recvmmsg(2)}): receives up to {@code maxDatagrams} waiting datagrams with as
     * few system calls as the transport can and hands each to {@code sink}, in arrival order, before returning.
     * The sink only copies; the core fires pipeline events after this call returns.
     *
     * @return datagrams handed to {@code sink} ({@code 0} when none was waiting), or {@code -1} when this socket
     *         does not batch: the core then calls {@link #receive(ByteBuffer)} instead, for the rest of the
     *         channel's life — so answer {@code -1} only for a lasting reason, never for a mode (connected) or a
     *         transient error. Receiving and sending batch independently: {@code -1} here does not stop
     *         {@link #sendBatch}, nor the other way round. A socket that reports truncation must batch receives,
     *         since {@link #receive(ByteBuffer)} has no way to say a datagram was cut
     */
    default int receiveBatch(int maxDatagrams, DatagramSink sink) throws IOException {
        return -1;
    }

    /**
     * Optional batch send ({@code sendmmsg(2)}): sends {@code srcs[i]} to {@code targets[i]} ({@code null} = the
     * connected peer) for {@code i < count}, in order, with as few system calls as the transport can. Buffer
     * positions are not changed.
     *
     * @return how many leading datagrams were sent ({@code 0} when the send buffer is full), or {@code -1} when
     *         this socket does not batch: the core then calls {@link #send(ByteBuffer, SocketAddress)} for the
     *         rest of the channel's life (as for {@link #receiveBatch})
     * @throws IOException when the first datagram cannot be sent (it was not sent; the others are untouched)
     */
    default int sendBatch(ByteBuffer[] srcs, SocketAddress[] targets, int count) throws IOException {
        return -1;
    }

    /** {@code connect(2)}: only {@code remoteAddress}'s datagrams are received; sends go there by default. */
    void connect(SocketAddress remoteAddress) throws IOException;

    /** Dissolves the association made by {@link #connect(SocketAddress)}. */
    void disconnect() throws IOException;

    boolean isConnected();

    /**
     * Optional, for handing an {@code SO_REUSEPORT} UDP socket over to a successor bound to the same address
     * ({@code io.conduit.transport.ManagedDatagramEndpoint}): {@code connect(2)}s the socket to {@code sink}, an
     * address nobody sends from, so that the kernel's reuseport lookup stops choosing it for datagrams of every other
     * sender (Linux: a connected socket only matches its peer, and a group that has connected members falls back to
     * scoring), while the socket <em>stays unconnected for the channel core</em>: {@link #isConnected()} keeps
     * answering {@code false}, receives still report each datagram's sender, and the datagrams that were queued
     * before the call are not lost. A socket whose {@code connect} would discard them (java.nio's
     * {@code DatagramChannel.connect} does) receives them first and hands them to {@code queued}, in arrival order;
     * the others leave them queued, to be read as usual. Sending after this call may fail (java.nio refuses to send
     * from a connected socket to another address): send from the successor instead. Loop thread only.
     *
     * @param sink   where to connect: an address of the same family that no datagram comes from, e.g. a socket the
     *               caller holds
     * @param queued receives the datagrams taken out of the queue before the connect (payload between position and
     *               limit, valid during the call only); not called by sockets that leave them queued
     * @return {@code true} when done; {@code false} (the default) when this socket cannot do it, and nothing changed
     * @throws IOException when the {@code connect(2)} failed (the socket is unchanged)
     */
    default boolean connectAway(SocketAddress sink, DatagramSink queued) throws IOException {
        return false;
    }

    /** {@code IP_ADD_MEMBERSHIP} / {@code IPV6_JOIN_GROUP}. */
    void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException;

    /** {@code IP_DROP_MEMBERSHIP}; no effect when not a member. */
    void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException;
}
