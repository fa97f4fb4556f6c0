package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/** A UDP socket. Non-blocking semantics; loop thread only (see {@link IoSocket}). */
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

    /** {@code connect(2)}: only {@code remoteAddress}'s datagrams are received; sends go there by default. */
    void connect(SocketAddress remoteAddress) throws IOException;

    /** Dissolves the association made by {@link #connect(SocketAddress)}. */
    void disconnect() throws IOException;

    boolean isConnected();

    /** {@code IP_ADD_MEMBERSHIP} / {@code IPV6_JOIN_GROUP}. */
    void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException;

    /** {@code IP_DROP_MEMBERSHIP}; no effect when not a member. */
    void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException;
}
