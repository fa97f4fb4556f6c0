package io.conduit.internal.nio;

import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;

/** A TCP or Unix-domain stream socket over a non-blocking {@link SocketChannel}. */
final class NioStreamSocket extends NioSocket implements IoStreamSocket {

    private final SocketChannel ch;
    /** "TCP" or "Unix-domain", for address checks; immutable */
    private final String kind;

    /** @param unix {@code true} for an {@code AF_UNIX} channel */
    NioStreamSocket(SocketChannel ch, boolean unix) throws IOException {
        super(ch);
        this.ch = ch;
        this.kind = unix ? "Unix-domain" : "TCP";
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return ch.read(dst);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return length == 1 ? ch.write(srcs[offset]) : ch.write(srcs, offset, length);
    }

    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        return file.transferTo(position, count, ch);
    }

    @Override
    public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException {
        AddressErrors.check(remoteAddress, kind);
        if (localAddress != null) {
            AddressErrors.check(localAddress, kind);
            ch.bind(localAddress);
        }
        return ch.connect(remoteAddress);
    }

    @Override
    public boolean finishConnect() throws IOException {
        return ch.finishConnect();
    }

    @Override
    public boolean isConnected() {
        return ch.isConnected();
    }

    @Override
    public void shutdownInput() throws IOException {
        ch.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        ch.shutdownOutput();
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        AddressErrors.check(localAddress, kind);
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
