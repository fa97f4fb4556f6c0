package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.UnixSocketFile;
import io.conduit.transport.spi.unix.NativeIoException;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * A listening TCP or Unix-domain stream socket: {@code bind(2)} + {@code listen(2)}, {@code accept4(2)} with
 * {@code SOCK_NONBLOCK | SOCK_CLOEXEC}. {@code EMFILE}/{@code ENFILE} are thrown as
 * {@link java.io.IOException}s naming the error ("Too many open files"); the core then pauses accepting
 * without closing the listener (the pending connection stays queued). A TCP listener has
 * {@code SO_REUSEADDR} on, as with {@code java.nio}. Threading as {@link io.conduit.transport.spi.IoSocket}.
 */
final class EpollServerSocket extends EpollSocket implements IoServerSocket {

    static {
        // Load what accepting needs now: under EMFILE a class loader cannot open its jar, and the JDK's class path
        // loader then drops that jar for good (every later class from it fails with NoClassDefFoundError).
        preload(EpollStreamSocket.class, NativeIoException.class, io.conduit.channel.PeerCredentials.class,
                io.conduit.channel.TcpInfo.class);
    }

    private static void preload(Class<?>... classes) {
        for (Class<?> c : classes) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** the socket file bind(2) created (AF_UNIX only), removed at close; written at bind, read at close */
    private volatile UnixSocketFile socketFile;
    private final byte[] acceptAddress = Native.newAddressOut(); // loop-confined

    static EpollServerSocket open(boolean unix) throws IOException {
        int[] fdAndDomain = EpollSocket.open(unix, NativeAbi.SOCK_STREAM);
        EpollServerSocket s = new EpollServerSocket(fdAndDomain[0], fdAndDomain[1]);
        if (!unix) {
            Native.setsockoptInt(s.fd(), NativeAbi.SOL_SOCKET, NativeAbi.SO_REUSEADDR, 1);
        }
        return s;
    }

    private EpollServerSocket(int fd, int domain) {
        super(fd, domain, domain == NativeAbi.AF_UNIX ? UNIX_SERVER : TCP_SERVER);
    }

    @Override
    public void bind(SocketAddress localAddress, int backlog) throws IOException {
        socketFile = UnixSocketFile.bind(localAddress, () -> {
            super.bind(localAddress);
            return localAddress();
        });
        NativeAbi.SOCKETS.listen(liveFd("listen"), IoTransportSupport.listenBacklog(backlog, 0));
    }

    /** Removes the Unix socket file this listener bound (if it is still that file), then closes. */
    @Override
    public void close() throws IOException {
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null && isOpen()) {
            f.deleteIfStillOurs(); // before close(2): the path still holds our file, no other bind can take it
        }
        super.close();
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        bind(localAddress, 0);
    }

    @Override
    public IoStreamSocket accept() throws IOException {
        int fd = liveFd("accept4");
        for (;;) {
            int child = Native.accept4(fd, acceptAddress, NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC);
            if (child >= 0) {
                return new EpollStreamSocket(child, domain, true);
            }
            if (ERRORS.isInterrupted(child) || child == -NativeAbi.ECONNABORTED) {
                continue; // a signal, or the peer gave up before we accepted: take the next one
            }
            inputDrained = true;
            if (ERRORS.isAgain(child)) {
                return null;
            }
            throw ERRORS.newIoException("accept4", child);
        }
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }
}
