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

/**
 * A listener of {@code nio-vthread}: one virtual thread blocks in {@code accept} while the loop wants
 * connections, stages one accepted connection (or the error, e.g. {@code EMFILE}) and waits until the loop took
 * it. Threading: staging fields guarded by {@link #lock}; {@code IoServerSocket} methods on the loop.
 */
final class VThreadServerSocket extends VThreadSocket implements IoServerSocket {

    private final ServerSocketChannel ch;
    private SocketChannel staged;           // guarded by lock
    private IOException acceptError;        // guarded by lock
    private boolean acceptorStarted;        // loop-confined
    private final boolean unix;             // AF_UNIX listener; immutable
    private volatile UnixSocketFile socketFile; // the file bind created (Unix only); written at bind, read at close

    /** @param unix {@code true} for an {@code AF_UNIX} listener */
    VThreadServerSocket(ServerSocketChannel ch, boolean unix) throws IOException {
        super(ch);
        this.ch = ch;
        this.unix = unix;
        ch.configureBlocking(true);
    }

    @Override
    void registered() {
        // the acceptor starts at the first read interest after bind
    }

    @Override
    public void interestOps(int ops) {
        if ((ops & OP_READ) != 0 && !acceptorStarted && localAddress() != null) {
            acceptorStarted = true;
            VirtualThreads.start("conduit-vthread-accept-" + socketId, this::acceptLoop);
        }
        super.interestOps(ops);
    }

    private void acceptLoop() {
        for (;;) {
            lock.lock();
            try {
                while (open && ((interest & OP_READ) == 0 || staged != null || acceptError != null)) {
                    await(inputWanted);
                }
                if (!open) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            SocketChannel child = null;
            IOException failure = null;
            try {
                child = ch.accept();
            } catch (IOException e) {
                if (!open || !ch.isOpen()) {
                    return;
                }
                failure = e;
            }
            lock.lock();
            try {
                if (!open) {
                    // close() ran while accept(2) returned this child: it found nothing staged, so the child
                    // is ours to close; staging it would leave a connection nobody delivers or closes
                    if (child != null) {
                        closeQuietly(child);
                    }
                    return;
                }
                staged = child;
                acceptError = failure;
            } finally {
                lock.unlock();
            }
            post(this::deliverReadable);
        }
    }

    private static void closeQuietly(SocketChannel child) {
        try {
            child.close();
        } catch (IOException ignored) {
            // a fresh socket of a listener being closed: nothing to report
        }
    }

    @Override
    boolean hasInput() {
        lock.lock();
        try {
            return staged != null || acceptError != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public IoStreamSocket accept() throws IOException {
        SocketChannel child;
        lock.lock();
        try {
            if (acceptError != null) {
                IOException e = acceptError;
                acceptError = null;
                inputWanted.signalAll();
                throw e;
            }
            child = staged;
            staged = null;
            if (child != null) {
                inputWanted.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (child == null) {
            return null;
        }
        try {
            return new VThreadStreamSocket(child, unix);
        } catch (IOException e) {
            child.close();
            throw e;
        }
    }

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

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }

    @Override
    public void close() throws IOException {
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null && isOpen()) {
            f.deleteIfStillOurs(); // before close: the path still holds our file, no other bind can take it
        }
        super.close();
        lock.lock();
        try {
            if (staged != null) {
                staged.close();
                staged = null;
            }
        } finally {
            lock.unlock();
        }
    }
}
