package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.unix.SocketOptionTable;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * A listening TCP or Unix-domain socket. {@code EVFILT_READ} reports pending connections (its {@code data} is
 * the accept-queue length). Loop thread only, except options (any thread).
 */
final class KQueueServerSocket extends KQueueSocket implements IoServerSocket {

    /** the SO_ACCEPTFILTER name last set, "" = none. Any thread. */
    private volatile String acceptFilter = "";

    KQueueServerSocket(int fd, int family) throws IOException {
        super(fd, family, SocketOptionTable.TCP_SERVER);
        if (family != NativeAbi.AF_UNIX) {
            // as java.nio does on Unix: a restarted server can bind while old connections are in TIME_WAIT
            ERRORS.check("setsockopt(SO_REUSEADDR)", Native.setsockoptInt(fd, NativeAbi.SOL_SOCKET,
                    NativeAbi.SO_REUSEADDR, 1));
        }
    }

    /** {@code bind(2)} (a Unix path's file is removed at close: {@link KQueueSocket#bind}), then {@code listen(2)}. */
    @Override
    public void bind(SocketAddress localAddress, int backlog) throws IOException {
        super.bind(localAddress);
        NativeAbi.SOCKETS.listen(fd(), IoTransportSupport.listenBacklog(backlog, 0));
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        bind(localAddress, 0);
    }

    @Override
    public IoStreamSocket accept() throws IOException {
        int child = Native.accept(fd(), null);
        if (child >= 0) {
            inputMaybeMore = true;
            return new KQueueStreamSocket(child, family, true);
        }
        if (ERRORS.isAgain(child)) {
            inputMaybeMore = false;
            return null;
        }
        if (ERRORS.isInterrupted(child) || child == -NativeAbi.ECONNABORTED) {
            inputMaybeMore = true; // that connection is gone; others may be queued
            return null;
        }
        inputMaybeMore = false;
        throw ERRORS.newIoException("accept", child);
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.SO_ACCEPTFILTER) {
            if (!NativeAbi.HAS_SO_ACCEPTFILTER) {
                return false;
            }
            String name = (String) value;
            ERRORS.check("setsockopt(SO_ACCEPTFILTER)", Native.setAcceptFilter(fd(), name.isEmpty() ? null : ascii(name)));
            acceptFilter = name;
            return true;
        }
        return super.setOption(option, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        if (option == ChannelOption.SO_ACCEPTFILTER) {
            return NativeAbi.HAS_SO_ACCEPTFILTER ? (T) acceptFilter : null;
        }
        return super.getOption(option);
    }
}
