package io.conduit.internal.channel.core;

import io.conduit.channel.DatagramChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;

/**
 * A UDP channel on the shared channel core. Reads deliver {@link io.conduit.channel.DatagramPacket}s (empty
 * ones included); writes take packets, or plain buffers once connected.
 */
public final class IoDatagramChannel extends ChannelCore implements DatagramChannel {

    public IoDatagramChannel(String transportName, IoDatagramSocket socket, EventLoop loop) {
        super(transportName, ChannelType.UDP, socket, null, loop);
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    public boolean isConnected() {
        return ((DatagramIo) io).isConnected();
    }

    /** {@inheritDoc} Any thread. */
    @Override
    public Future<Void> joinGroup(InetAddress group, NetworkInterface networkInterface) {
        return ((DatagramIo) io).membership(group, networkInterface, true);
    }

    /** {@inheritDoc} Any thread. */
    @Override
    public Future<Void> leaveGroup(InetAddress group, NetworkInterface networkInterface) {
        return ((DatagramIo) io).membership(group, networkInterface, false);
    }

    @Override
    public Future<Boolean> connectAway(InetSocketAddress sink) {
        return DatagramConnectAway.start(this, sink);
    }
}
