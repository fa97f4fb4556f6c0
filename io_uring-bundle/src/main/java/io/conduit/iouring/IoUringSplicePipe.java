package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;

import io.conduit.transport.spi.IoSplicePipe;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A kernel pipe between two io_uring TCP sockets for zero-copy forwarding ({@code pipe2(2)} with
 * {@code O_NONBLOCK | O_CLOEXEC}, the kernel's default capacity of 16 pages, made on the first {@link #fill()}).
 * {@link #fill()} moves the source's input into it ({@link IoUringStreamSocket#spliceInto}) and {@link #drain()}
 * moves it into the target ({@link IoUringStreamSocket#spliceFrom}), both with {@code splice(2)} and
 * {@code SPLICE_F_MOVE | SPLICE_F_NONBLOCK}, made on the loop thread. Readiness comes from the ring: a socket that
 * has no input, or no room, answers 0 and waits with one {@code IORING_OP_POLL_ADD}.
 *
 * <p>Why system calls and not {@code IORING_OP_SPLICE}: the kernel never runs that request inline; it hands each one
 * to an io-wq worker thread ({@code io_splice} answers {@code -EAGAIN} to the non-blocking attempt), which blocks
 * there while the socket has no input or no room. A forwarding would cost two thread hand-offs per chunk and a
 * worker per waiting direction, and a close would have to cancel a request blocked in a worker. A non-blocking
 * {@code splice(2)} on the loop thread moves the same pages without a copy and completes at once; a poll, which names
 * no memory and is cancelled on close, waits instead.
 *
 * <p>No request names the pipe, so {@link #close()} closes its descriptors at once; the sockets' polls belong to the
 * sockets, which cancel them when they close.
 *
 * <p>Loop thread only (the sockets' loop), like {@link IoSplicePipe}; {@link #close()} is idempotent.
 */
final class IoUringSplicePipe implements IoSplicePipe {

    /** Bytes asked for per {@code splice(2)} into the pipe: the default pipe capacity (16 pages of 4 KiB). */
    static final int FILL_BYTES = 64 * 1024;
    /** Pipes created by every forwarding (test hook: zero-copy really happened). */
    static final AtomicLong PIPES_CREATED = new AtomicLong();
    /** Pipes whose descriptors were closed (test hook: none is left open). */
    static final AtomicLong PIPES_CLOSED = new AtomicLong();

    static final int FLAGS = NativeAbi.SPLICE_F_MOVE | NativeAbi.SPLICE_F_NONBLOCK;

    private final IoUringStreamSocket source;
    private final IoUringStreamSocket target;
    private int readFd = -1;   // loop-confined: the pipe's read end, -1 before the first fill / after close
    private int writeFd = -1;  // loop-confined: the pipe's write end
    private long buffered;     // loop-confined: bytes in the pipe
    private boolean closed;    // loop-confined (the channel core closes the pipe on the loop)

    IoUringSplicePipe(IoUringStreamSocket source, IoUringStreamSocket target) {
        this.source = source;
        this.target = target;
    }

    @Override
    public long fill() throws IOException {
        if (readFd < 0) {
            open();
        }
        long n = source.spliceInto(writeFd, FILL_BYTES);
        if (n > 0) {
            buffered += n;
        }
        return n;
    }

    @Override
    public long drain() throws IOException {
        if (buffered == 0) {
            return 0;
        }
        long n = target.spliceFrom(readFd, buffered);
        buffered -= n;
        return n;
    }

    @Override
    public long buffered() {
        return buffered;
    }

    private void open() throws IOException {
        if (closed) {
            throw new IOException("splice: the pipe of this forwarding was closed");
        }
        int[] fds = new int[2];
        ERRORS.check("pipe2(O_NONBLOCK | O_CLOEXEC)", Native.pipe2(fds, NativeAbi.O_NONBLOCK | NativeAbi.O_CLOEXEC));
        readFd = fds[0];
        writeFd = fds[1];
        PIPES_CREATED.incrementAndGet();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffered = 0;
        if (readFd >= 0) {
            Native.close(readFd);
            Native.close(writeFd);
            readFd = -1;
            writeFd = -1;
            PIPES_CLOSED.incrementAndGet();
        }
        source.spliceEnded();
    }
}
