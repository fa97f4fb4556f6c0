package io.conduit.kqueue;

import static io.conduit.kqueue.NativeAbi.ERRORS;
import static io.conduit.kqueue.NativeAbi.SOCKADDR;

import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.PeerCredentials;
import io.conduit.transport.spi.IoPeerCredentials;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.NativeMemory;
import io.conduit.transport.spi.unix.SocketOptionTable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A TCP (dual-stack {@code AF_INET6}, or {@code AF_INET}) or Unix-domain stream socket. Reads with
 * {@code read(2)}, gathering writes with {@code writev(2)}; heap buffers go through the loop's direct scratch
 * memory. Loop thread only, except as {@link KQueueSocket} says.
 */
final class KQueueStreamSocket extends KQueueSocket implements IoStreamSocket, IoPeerCredentials {

    /** connected (accepted, or connect finished); loop-confined */
    private boolean connected;
    /** the peer, cached once connected; written on the loop, read by remoteAddress() */
    private volatile SocketAddress remote;

    KQueueStreamSocket(int fd, int family, boolean connected) {
        super(fd, family, SocketOptionTable.TCP);
        this.connected = connected;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int want = dst.remaining();
        if (want == 0) {
            return 0;
        }
        long address = addressAtPosition(dst);
        NativeMemory scratch = null;
        if (address == 0) {
            scratch = scratchOf();
            want = Math.min(want, scratch.size());
            address = scratch.address();
        }
        int n = Native.read(fd(), address, want);
        Reference.reachabilityFence(dst);
        if (n > 0) {
            if (scratch != null) {
                dst.put(scratch.buffer().slice(0, n));
            } else {
                dst.position(dst.position() + n);
            }
            inputMaybeMore = n == want || inputEof;
            return n;
        }
        inputMaybeMore = false;
        if (n == 0) {
            if (reportedError != 0) {
                // the kqueue event carried the socket error (e.g. a reset); Linux cleared SO_ERROR when the
                // emulation read it, so read(2) now reports end-of-stream instead: report the error
                int error = reportedError;
                reportedError = 0;
                throw ERRORS.newIoException("read", -error);
            }
            return -1;
        }
        if (ERRORS.isAgain(n) || ERRORS.isInterrupted(n)) {
            return 0;
        }
        throw ERRORS.newIoException("read", n);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        KQueueIoHandler h = handler();
        IovArray iov = h != null ? h.iov() : new IovArray(Math.min(NativeAbi.IOV_MAX, 1024), NativeAbi.IOVEC);
        NativeMemory scratch = scratchOf();
        iov.clear();
        int scratchUsed = 0;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer b = srcs[i];
            int remaining = b.remaining();
            if (remaining == 0) {
                continue;
            }
            long address = addressAtPosition(b);
            if (address == 0) {
                int room = scratch.size() - scratchUsed;
                if (room == 0) {
                    break;
                }
                int n = Math.min(remaining, room);
                scratch.buffer().put(scratchUsed, b, b.position(), n);
                address = scratch.address() + scratchUsed;
                scratchUsed += n;
                remaining = n;
            }
            if (!iov.add(address, remaining)) {
                break;
            }
            if (remaining < b.remaining()) {
                break; // a heap buffer only partly fit into the scratch memory
            }
        }
        if (iov.count() == 0) {
            return 0;
        }
        long attempted = iov.totalBytes();
        long n = Native.writev(fd(), iov.address(), iov.count());
        Reference.reachabilityFence(srcs);
        if (n < 0) {
            outputMaybeMore = false;
            if (ERRORS.isAgain(n) || ERRORS.isInterrupted(n)) {
                return 0;
            }
            throw ERRORS.newIoException("writev", (int) n);
        }
        outputMaybeMore = n == attempted;
        long left = n;
        for (int i = offset; i < offset + length && left > 0; i++) {
            ByteBuffer b = srcs[i];
            int step = (int) Math.min(left, b.remaining());
            b.position(b.position() + step);
            left -= step;
        }
        return n;
    }

    /**
     * No {@code sendfile(2)} here (its signature differs on macOS, FreeBSD and Linux, and a {@link FileChannel}
     * does not expose its descriptor): the region is copied through the loop's scratch memory with
     * {@link FileChannel#read(ByteBuffer, long)} and {@code writev(2)}. Bytes the socket did not take are read
     * again next time.
     */
    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        NativeMemory scratch = scratchOf();
        ByteBuffer window = scratch.buffer().slice(0, (int) Math.min(count, scratch.size()));
        int read = file.read(window, position);
        if (read <= 0) {
            return 0;
        }
        window.flip();
        return write(new ByteBuffer[] {window}, 0, 1);
    }

    @Override
    public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException {
        if (localAddress != null) {
            bind(localAddress);
        }
        int[] length = new int[1];
        byte[] sa = encode(remoteAddress, length);
        int rc = Native.connect(fd(), sa, length[0]);
        if (rc == 0) {
            connected = true;
            return true;
        }
        if (ERRORS.isInProgress(rc) || ERRORS.isInterrupted(rc)) {
            return false;
        }
        throw ERRORS.newConnectException("connect", rc);
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (connected) {
            return true;
        }
        int error = reportedError != 0 ? -reportedError : Native.socketError(fd());
        reportedError = 0;
        if (error < 0) {
            throw ERRORS.newConnectException("connect", error);
        }
        byte[] out = new byte[NativeAbi.ADDRESS_OUT_SIZE];
        int rc = Native.getpeername(fd(), out);
        if (rc == 0) {
            connected = true;
            remote = SOCKADDR.decodeAddressOut(out);
            return true;
        }
        if (rc == -NativeAbi.ENOTCONN && writeEof) {
            throw new ConnectException("connect(..) failed: the connection was refused or reset before it completed"
                    + " (the socket reported end-of-file and no error)");
        }
        return false;
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    @Override
    public void shutdownInput() throws IOException {
        ERRORS.check("shutdown(SHUT_RD)", Native.shutdown(fd(), NativeAbi.SHUT_RD));
    }

    @Override
    public void shutdownOutput() throws IOException {
        ERRORS.check("shutdown(SHUT_WR)", Native.shutdown(fd(), NativeAbi.SHUT_WR));
    }

    @Override
    public SocketAddress remoteAddress() {
        SocketAddress r = remote;
        if (r == null && isOpen()) {
            byte[] out = new byte[NativeAbi.ADDRESS_OUT_SIZE];
            if (Native.getpeername(fd(), out) == 0) {
                r = SOCKADDR.decodeAddressOut(out);
                remote = r;
            }
        }
        return r;
    }

    @Override
    public PeerCredentials peerCredentials() {
        if (family != NativeAbi.AF_UNIX) {
            throw new UnsupportedOperationException("peer credentials exist for Unix-domain sockets only");
        }
        int[] out = new int[3];
        int rc = Native.getPeerCredentials(fd(), out);
        if (rc < 0) {
            if (rc == -NativeAbi.ENOTCONN || rc == -NativeAbi.EBADF) {
                throw new UncheckedIOException(new ChannelClosedException(ERRORS.message("getpeereid", -rc)
                        + ": the socket is not connected", null));
            }
            throw new UncheckedIOException(ERRORS.newIoException("getpeereid", rc));
        }
        return new PeerCredentials(out[0], out[1], out[2]);
    }
}
