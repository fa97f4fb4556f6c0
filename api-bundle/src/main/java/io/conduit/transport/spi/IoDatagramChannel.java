package io.conduit.transport.spi;

import io.conduit.channel.DatagramChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.ChannelType;

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
}
