package io.conduit.internal.channel.core;

import io.conduit.channel.Channel;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.SocketChannel;
import io.conduit.channel.TcpInfo;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.IoTcpInfo;

import java.net.InetSocketAddress;

/** A TCP connection on the shared channel core; the transport supplies the {@link IoStreamSocket}. */
public final class IoSocketChannel extends StreamChannel implements SocketChannel {

    /**
     * @param parent the accepting server channel, or {@code null}
     * @param loop the loop to register with, or {@code null} when chosen later
     */
    public IoSocketChannel(String transportName, IoStreamSocket socket, Channel parent, EventLoop loop) {
        super(transportName, ChannelType.TCP, socket, parent, loop);
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
    public ServerChannel parent() {
        return (ServerChannel) super.parent();
    }

    /**
     * @throws UnsupportedOperationException when the transport's socket cannot read {@code TCP_INFO} (it then
     *         implements no {@link IoTcpInfo})
     */
    @Override
    public TcpInfo tcpInfo() {
        if (socket() instanceof IoTcpInfo t) {
            return t.tcpInfo();
        }
        throw new UnsupportedOperationException("the '" + transportName() + "' transport cannot read TCP_INFO;"
                + " use a native transport such as epoll");
    }
}
