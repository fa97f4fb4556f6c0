package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.channel.PeerCredentials;
import io.conduit.channel.TcpInfo;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoPeerCredentials;
import io.conduit.transport.spi.IoTcpInfo;
import io.conduit.transport.spi.IoSpliceSocket;
import io.conduit.transport.spi.IoSplicePipe;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.unix.IovArray;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A TCP or Unix-domain stream connection: {@code read(2)}, gathering {@code writev(2)} over the loop's shared
 * {@link IovArray} (at most {@link NativeAbi#IOV_MAX} buffers per call), {@code sendfile(2)} for file regions,
 * non-blocking {@code connect(2)}, {@code shutdown(2)}, for Unix sockets {@code SO_PEERCRED}, and between two TCP
 * sockets zero-copy forwarding through a pipe ({@link EpollSplicePipe}, {@code splice(2)}).
 *
 * <p>Buffers handed in by the core are direct {@link ByteBuffer}s (views of {@code Buffer.nioBuffer(s)}). A read or a
 * write of one buffer passes the buffer itself to {@link Native#readBuffer} / {@link Native#writeBuffer}, which
 * resolve its address in the same JNI call as the system call; a gathering write takes each buffer's address from
 * {@link Native#addressOf} into the loop's iovec array, which measured faster than filling the iovec from a
 * {@code ByteBuffer[]} in C ({@code docs/benchmarks.md}, design measurements). A heap buffer is copied through the
 * loop's bounce buffer.
 *
 * <p>Threading: loop thread, as {@link io.conduit.transport.spi.IoSocket} says.
 */
final class EpollStreamSocket extends EpollSocket implements IoSpliceSocket, IoPeerCredentials, IoTcpInfo {

    /** {@code sendfile(2)} calls and bounce-buffer file copies of every stream socket (test hook). */
    static final java.util.concurrent.atomic.AtomicLong SENDFILE_CALLS = new java.util.concurrent.atomic.AtomicLong();
    static final java.util.concurrent.atomic.AtomicLong FILE_COPY_CALLS = new java.util.concurrent.atomic.AtomicLong();

    private boolean connected; // loop-confined

    /** A new, unconnected socket. */
    static EpollStreamSocket open(boolean unix) throws IOException {
        int[] fdAndDomain = EpollSocket.open(unix, NativeAbi.SOCK_STREAM);
        return new EpollStreamSocket(fdAndDomain[0], fdAndDomain[1], false);
    }

    /** @param connected {@code true} for an accepted socket */
    EpollStreamSocket(int fd, int domain, boolean connected) {
        super(fd, domain, domain == NativeAbi.AF_UNIX ? UNIX : TCP);
        this.connected = connected;
    }

    // ------------------------------------------------------------------------------------------- reading

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int length = dst.remaining();
        if (length == 0) {
            return 0;
        }
        int fd = liveFd("read");
        boolean direct = dst.isDirect();
        LoopResources res = direct ? null : resources();
        int want = direct ? length : Math.min(length, LoopResources.BOUNCE_BYTES);
        if (!direct) {
            res.bounce();
        }
        int n;
        do {
            n = direct ? Native.readBuffer(fd, dst, dst.position(), dst.limit())
                    : Native.read(fd, res.bounceAddress(), want);
        } while (ERRORS.isInterrupted(n));
        if (n > 0) {
            if (direct) {
                dst.position(dst.position() + n);
            } else {
                ByteBuffer b = res.bounce();
                b.limit(n);
                dst.put(b);
            }
            if (n < want && !hangupSeen) {
                // a stream read returns less only when the receive queue is empty; with a hang-up reported,
                // end-of-stream still waits behind the data, so read again
                inputDrained = true;
            }
            return n;
        }
        inputDrained = true;
        if (n == 0) {
            return -1;
        }
        if (ERRORS.isAgain(n)) {
            return 0;
        }
        throw ERRORS.newIoException("read", n);
    }

    // ------------------------------------------------------------------------------------------- writing

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        int fd = liveFd("writev");
        if (length == 1 && srcs[offset].isDirect()) {
            ByteBuffer b = srcs[offset];
            int n;
            do {
                n = Native.writeBuffer(fd, b, b.position(), b.limit());
            } while (ERRORS.isInterrupted(n));
            if (n < 0) {
                if (ERRORS.isAgain(n) || ERRORS.isInProgress(n)) {
                    return 0; // EINPROGRESS: TCP_FASTOPEN_CONNECT without a cookie, the handshake runs first
                }
                throw ERRORS.newIoException("write", n);
            }
            b.position(b.position() + n);
            return n;
        }
        for (int i = offset; i < offset + length; i++) {
            if (!srcs[i].isDirect()) {
                return writeThroughBounce(fd, srcs, offset, length);
            }
        }
        IovArray iov = resources().iov();
        int end = offset + length;
        for (int i = offset; i < end && iov.count() < NativeAbi.IOV_MAX; i++) {
            ByteBuffer b = srcs[i];
            if (b.hasRemaining()) {
                iov.add(address(b), b.remaining());
            }
        }
        if (iov.count() == 0) {
            return 0;
        }
        long n;
        do {
            n = Native.writev(fd, iov.address(), iov.count());
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n) || ERRORS.isInProgress(n)) {
                return 0;
            }
            throw ERRORS.newIoException("writev", (int) n);
        }
        IovArray.advance(srcs, offset, end, n);
        return n;
    }

    private long writeThroughBounce(int fd, ByteBuffer[] srcs, int offset, int length) throws IOException {
        LoopResources res = resources();
        ByteBuffer bounce = res.bounce();
        for (int i = offset; i < offset + length && bounce.hasRemaining(); i++) {
            ByteBuffer b = srcs[i].duplicate();
            if (b.remaining() > bounce.remaining()) {
                b.limit(b.position() + bounce.remaining());
            }
            bounce.put(b);
        }
        int total = bounce.position();
        if (total == 0) {
            return 0;
        }
        int n;
        do {
            n = Native.write(fd, res.bounceAddress(), total);
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n)) {
                return 0;
            }
            throw ERRORS.newIoException("write", n);
        }
        IovArray.advance(srcs, offset, offset + length, n);
        return n;
    }

    /**
     * {@code sendfile(2)} from the file's own descriptor (read through JNI, see {@link Native#fileDescriptorOf});
     * when the channel is not the JDK's {@code FileChannel}, bytes are copied through the bounce buffer.
     */
    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        int fd = liveFd("sendfile");
        int inFd = Native.fileDescriptorOf(file);
        if (inFd < 0 || !file.isOpen()) {
            return copyFrom(fd, file, position, count);
        }
        long n;
        do {
            SENDFILE_CALLS.incrementAndGet();
            n = Native.sendfile(fd, inFd, position, count);
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n)) {
                return 0;
            }
            throw ERRORS.newIoException("sendfile", (int) n);
        }
        return n; // 0: no byte at position (the core then checks for a short file)
    }

    private long copyFrom(int fd, FileChannel file, long position, long count) throws IOException {
        FILE_COPY_CALLS.incrementAndGet();
        LoopResources res = resources();
        ByteBuffer bounce = res.bounce();
        if (count < bounce.capacity()) {
            bounce.limit((int) count);
        }
        int read = file.read(bounce, position);
        if (read <= 0) {
            return 0;
        }
        int n;
        do {
            n = Native.write(fd, res.bounceAddress(), read);
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n)) {
                return 0;
            }
            throw ERRORS.newIoException("write", n);
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------- connect

    @Override
    public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException {
        AddressErrors.check(remoteAddress, addressKind(), true);
        if (localAddress != null) {
            bind(localAddress);
        }
        byte[] sa = SOCKADDR.newSockaddr();
        int len = SOCKADDR.encode(remoteAddress, sa, ipv6());
        int fd = liveFd("connect");
        int r;
        do {
            r = Native.connect(fd, sa, len);
        } while (ERRORS.isInterrupted(r));
        forgetLocalAddress();
        if (r == 0) {
            connected = true;
            return true;
        }
        if (ERRORS.isInProgress(r)) {
            return false;
        }
        throw ERRORS.newConnectException("connect", r);
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (connected) {
            return true;
        }
        int r = Native.finishConnect(liveFd("connect"));
        if (r < 0) {
            throw ERRORS.newConnectException("connect", r);
        }
        if (peerAddress() == null) {
            return false; // still in progress (a spurious wake-up)
        }
        connected = true;
        forgetLocalAddress();
        return true;
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    /** {@code getpeername(2)} on every call: the channel keeps the address (compactly), this socket does not. */
    @Override
    public SocketAddress remoteAddress() {
        return connected ? peerAddress() : null;
    }

    // ------------------------------------------------------------------------------------------ shutdown

    @Override
    public void shutdownInput() throws IOException {
        NativeAbi.SOCKETS.shutdownInput(liveFd("shutdown(SHUT_RD)"));
    }

    @Override
    public void shutdownOutput() throws IOException {
        NativeAbi.SOCKETS.shutdownOutput(liveFd("shutdown(SHUT_WR)"));
    }

    // ------------------------------------------------------------------------------------ credentials

    /**
     * {@code getsockopt(SO_PEERCRED)}, {@code unix(7)}: the credentials the peer had when it connected.
     *
     * @throws UnsupportedOperationException on a TCP socket
     * @throws IllegalStateException when the socket is closed or not connected
     */
    @Override
    public PeerCredentials peerCredentials() {
        return NativeAbi.SOCKETS.peerCredentials(fd(), domain, isOpen());
    }

    /**
     * {@code getsockopt(TCP_INFO)}, {@code tcp(7)}.
     *
     * @throws UnsupportedOperationException on a Unix-domain socket
     * @throws IllegalStateException when the socket is closed
     */
    @Override
    public TcpInfo tcpInfo() {
        if (domain == NativeAbi.AF_UNIX) {
            throw new UnsupportedOperationException("TCP_INFO exists only for TCP sockets; this is a Unix-domain"
                    + " socket");
        }
        if (!isOpen()) {
            throw new IllegalStateException("TCP_INFO of a closed socket cannot be read");
        }
        long[] v = new long[15];
        int r = Native.getTcpInfo(fd(), v);
        if (r < 0) {
            throw new IllegalStateException(ERRORS.message("getsockopt(TCP_INFO)", -r));
        }
        return new TcpInfo((int) v[0], (int) v[1], (int) v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                v[12], v[13], v[14]);
    }

    // ------------------------------------------------------------------------------------------ splicing

    /** @return {@code true} when both are epoll TCP sockets (Unix-domain pairs and mixed pairs keep copying) */
    @Override
    public boolean canSpliceTo(IoStreamSocket target) {
        return target instanceof EpollStreamSocket t && t != this && kind == TCP && t.kind == TCP;
    }

    @Override
    public IoSplicePipe newSplicePipe(IoStreamSocket target) {
        if (!canSpliceTo(target)) {
            throw new IllegalArgumentException("epoll splices only from one TCP socket to another, not to " + target);
        }
        return new EpollSplicePipe(this, (EpollStreamSocket) target);
    }
}
