package io.conduit.internal.nio;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.UnixSocketFile;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** A TCP or Unix-domain listener over a non-blocking {@link ServerSocketChannel}. */
final class NioServerSocket extends NioSocket implements IoServerSocket {

    private final ServerSocketChannel ch;
    private final boolean unix;   // AF_UNIX listener; immutable
    private volatile UnixSocketFile socketFile; // the file bind created (Unix only); written at bind, read at close

    /** @param unix {@code true} for an {@code AF_UNIX} listener */
    NioServerSocket(ServerSocketChannel ch, boolean unix) throws IOException {
        super(ch);
        this.ch = ch;
        this.unix = unix;
    }

    /** Binds and listens; a Unix-domain listener removes the socket file it created when it closes. */
    @Override
    public void bind(SocketAddress localAddress, int backlog) throws IOException {
        AddressErrors.check(localAddress, unix ? "Unix-domain" : "TCP");
        socketFile = UnixSocketFile.bind(localAddress, () -> {
            ch.bind(localAddress, IoTransportSupport.listenBacklog(backlog, 0));
            return ch.getLocalAddress();
        });
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        bind(localAddress, 0);
    }

    /** Removes the socket file this listener bound (if it is still that file), then closes. */
    @Override
    public void close() throws IOException {
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null && isOpen()) {
            f.deleteIfStillOurs();
        }
        super.close();
    }

    @Override
    public IoStreamSocket accept() throws IOException {
        SocketChannel child = ch.accept();
        if (child == null) {
            return null;
        }
        try {
            return new NioStreamSocket(child, unix);
        } catch (IOException e) {
            child.close();
            throw e;
        }
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }

}
