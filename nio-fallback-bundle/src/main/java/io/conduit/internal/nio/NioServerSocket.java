package io.conduit.internal.nio;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** A TCP or Unix-domain listener over a non-blocking {@link ServerSocketChannel}. */
final class NioServerSocket extends NioSocket implements IoServerSocket {

    private final ServerSocketChannel ch;
    private volatile int backlog; // SO_BACKLOG, applied at bind; 0 = the JDK default

    NioServerSocket(ServerSocketChannel ch) throws IOException {
        super(ch);
        this.ch = ch;
    }

    @Override
    public void bind(SocketAddress localAddress, int backlog) throws IOException {
        ch.bind(localAddress, backlog > 0 ? backlog : this.backlog);
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        ch.bind(localAddress, backlog);
    }

    @Override
    public IoStreamSocket accept() throws IOException {
        SocketChannel child = ch.accept();
        if (child == null) {
            return null;
        }
        try {
            return new NioStreamSocket(child);
        } catch (IOException e) {
            child.close();
            throw e;
        }
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.SO_BACKLOG) {
            backlog = (Integer) value;
            return true;
        }
        return super.setOption(option, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(backlog);
        }
        return super.getOption(option);
    }
}
