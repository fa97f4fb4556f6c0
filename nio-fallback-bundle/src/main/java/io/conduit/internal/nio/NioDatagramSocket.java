package io.conduit.internal.nio;

import io.conduit.transport.spi.IoDatagramSocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.util.HashMap;
import java.util.Map;

/**
 * A UDP socket over a non-blocking {@link DatagramChannel}. Reads use {@code receive} also when connected
 * (NIO's {@code read} cannot tell an empty datagram from none).
 */
final class NioDatagramSocket extends NioSocket implements IoDatagramSocket {

    private final DatagramChannel ch;
    private final Map<String, MembershipKey> memberships = new HashMap<>(); // loop-confined

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
        int remaining = src.remaining();
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
        ch.connect(remoteAddress);
    }

    @Override
    public void disconnect() throws IOException {
        ch.disconnect();
    }

    @Override
    public boolean isConnected() {
        return ch.isConnected();
    }

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
        ch.bind(localAddress);
    }

    @Override
    public SocketAddress remoteAddress() {
        try {
            return ch.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }
}
