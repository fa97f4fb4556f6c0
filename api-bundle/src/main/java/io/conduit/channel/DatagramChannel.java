package io.conduit.channel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;

import io.conduit.concurrent.Future;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A UDP endpoint. Unconnected, it reads and writes {@link DatagramPacket}s; once connected it also accepts
 * plain {@link io.conduit.buffer.Buffer}s, sent to the connected peer, and reads only that peer's datagrams.
 * Empty datagrams are delivered; a datagram larger than the receive buffer is reported as truncated.
 *
 * <p>Addresses, the same on every transport: a connected channel sends a {@link DatagramPacket} whose recipient
 * is the connected peer or {@code null}; a packet to any other address fails its own write promise with a
 * {@link java.nio.channels.AlreadyConnectedException} naming both addresses, and the channel stays open.
 * Connecting a connected channel fails the same way until it is disconnected. Unconnected, a datagram without
 * a recipient fails its write with a {@link java.nio.channels.NotYetConnectedException}. An unresolved recipient
 * or connect address fails with a {@link java.nio.channels.UnresolvedAddressException}; an address that is not
 * an {@link InetSocketAddress} with a {@link java.nio.channels.UnsupportedAddressTypeException}; all of them
 * with a message naming the address and what to do.
 */
@ProviderType
public interface DatagramChannel extends Channel {

    /** @return {@code true} when connected to one peer */
    boolean isConnected();

    @Override
    InetSocketAddress localAddress();

    @Override
    InetSocketAddress remoteAddress();

    /** Joins multicast {@code group} on {@code networkInterface} ({@code IP_ADD_MEMBERSHIP}). */
    Future<Void> joinGroup(InetAddress group, NetworkInterface networkInterface);

    /** Leaves multicast {@code group} on {@code networkInterface}. */
    Future<Void> leaveGroup(InetAddress group, NetworkInterface networkInterface);
}
