package io.conduit.internal.channel.core;

import io.conduit.channel.DatagramChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;

import java.net.InetSocketAddress;

/**
 * A UDP channel on the shared channel core. Reads deliver {@link io.conduit.channel.DatagramPacket}s (empty
 * ones included); writes take packets, or plain buffers once connected.
 */
public final class IoDatagramChannel extends AbstractIoChannel implements DatagramChannel {

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
    public Future<Boolean> connectAway(InetSocketAddress sink) {
        return DatagramConnectAway.start(this, sink);
    }
}
