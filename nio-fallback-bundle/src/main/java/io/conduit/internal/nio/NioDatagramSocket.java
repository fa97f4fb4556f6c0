package io.conduit.internal.nio;

import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.DatagramLimits;
import io.conduit.transport.spi.IoDatagramSocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.util.HashMap;
import java.util.Map;

/**
 * A UDP socket over a non-blocking {@link DatagramChannel}. Reads use {@code receive} also when connected
 * (NIO's {@code read} cannot tell an empty datagram from none).
 *
 * <p>Connected, it sends to its peer only: a datagram with no target or with the peer as target is sent, one to
 * another address fails (as {@link io.conduit.channel.DatagramChannel} documents for every transport), and a
 * second {@code connect} fails until {@code disconnect}. Address errors carry messages ({@link AddressErrors}).
 */
final class NioDatagramSocket extends NioSocket implements IoDatagramSocket {

    private final DatagramChannel ch;
    private final Map<String, MembershipKey> memberships = new HashMap<>(); // loop-confined
    /** the connected peer, or null; written on the loop, read anywhere */
    private volatile SocketAddress peer;
    /** {@link #connectAway} connected the socket to this sink; written on the loop, read anywhere */
    private volatile SocketAddress connectedAway;

    NioDatagramSocket(DatagramChannel ch) throws IOException {
        super(ch);
        this.ch = ch;
    }

    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        return ch.receive(dst);
    }

    @Override
    public boolean send(ByteBuffer src, SocketAddress target) throws IOException {
        SocketAddress connectedTo = peer;
        if (target != null) {
            AddressErrors.check(target, "UDP");
            if (connectedTo != null && !connectedTo.equals(target)) {
                throw AddressErrors.sendToOther(connectedTo, target);
            }
            if (connectedTo != null) {
                target = null; // to the peer: write(), as send() would do
            } else if (connectedAway != null) {
                throw new IOException("cannot send to " + target + ": this 'nio' socket was connected away to "
                        + connectedAway + " to leave its SO_REUSEPORT group, and java.nio does not send from a "
                        + "connected socket to other addresses; send from the socket that took its address over");
            }
        } else if (connectedTo == null) {
            throw AddressErrors.noRecipient();
        }
        int remaining = src.remaining();
        SocketAddress recipient = target != null ? target : connectedTo;
        if (remaining > DatagramLimits.maxUdpPayloadBytes(recipient)) {
            // the kernel would refuse it with EMSGSIZE, which java.nio reports without length or limit
            throw new SocketException((target != null ? "sendto" : "write") + " failed: Message too long: "
                    + DatagramLimits.udpTooLong(remaining, recipient));
        }
        if (remaining == 0 && ch.isConnected()) {
            // DatagramChannel skips the system call for 0 bytes when connected (send() delegates to write()):
            // fail instead of reporting a datagram as sent that never left
            throw new IOException("the 'nio' transport cannot send an empty datagram on a connected channel"
                    + " (java.nio skips write(2) for 0 bytes); send it from an unconnected channel or use epoll");
        }
        int n = target == null ? ch.write(src) : ch.send(src, target);
        return n > 0 || remaining == 0;
    }

    @Override
    public void connect(SocketAddress remoteAddress) throws IOException {
        AddressErrors.check(remoteAddress, "UDP");
        SocketAddress connectedTo = peer;
        if (connectedTo != null) {
            throw AddressErrors.alreadyConnected(connectedTo, remoteAddress);
        }
        ch.connect(remoteAddress);
        peer = ch.getRemoteAddress();
    }

    @Override
    public void disconnect() throws IOException {
        ch.disconnect();
        peer = null;
        connectedAway = null;
    }

    @Override
    public boolean isConnected() {
        return peer != null;
    }

    /**
     * {@code DatagramChannel.connect} discards every datagram queued before it (the JDK reads them out and drops
     * them), so this takes them out first: {@code receive} until none is waiting, each handed to {@code queued},
     * then {@code connect} at once. Only a datagram arriving between the last {@code receive} and the
     * {@code connect(2)} inside it (no other code runs there) is lost. Afterwards {@link #isConnected()} stays
     * {@code false} and sends to any address fail with a message saying why.
     */
    @Override
    public boolean connectAway(SocketAddress sink, DatagramSink queued) throws IOException {
        AddressErrors.check(sink, "UDP");
        if (peer != null) {
            throw AddressErrors.alreadyConnected(peer, sink);
        }
        ByteBuffer scratch = ByteBuffer.allocate(MAX_DATAGRAM_BYTES);
        SocketAddress sender;
        while ((sender = ch.receive(scratch.clear())) != null) {
            queued.datagram(scratch.flip(), sender, null, false);
        }
        ch.connect(sink);
        connectedAway = sink;
        return true;
    }

    /** The largest UDP payload (IPv4: 65,535 - 8 - 20). */
    private static final int MAX_DATAGRAM_BYTES = 65_507;

    @Override
    public void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        String k = group.getHostAddress() + '%' + networkInterface.getName();
        if (!memberships.containsKey(k)) {
            memberships.put(k, ch.join(group, networkInterface));
        }
    }

    @Override
    public void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        MembershipKey key = memberships.remove(group.getHostAddress() + '%' + networkInterface.getName());
        if (key != null) {
            key.drop();
        }
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        AddressErrors.check(localAddress, "UDP");
        ch.bind(localAddress);
    }

    @Override
    public SocketAddress remoteAddress() {
        if (connectedAway != null) {
            return null; // connected only for the kernel's reuseport lookup, not for the channel
        }
        try {
            return ch.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }
}
