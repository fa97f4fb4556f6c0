package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;

import io.conduit.transport.spi.IoSplicePipe;
import io.conduit.transport.spi.unix.SplicePipeDescriptors;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A kernel pipe between two io_uring TCP sockets for zero-copy forwarding ({@link SplicePipeDescriptors}, made on the
 * first {@link #fill()}).
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
    private final SplicePipeDescriptors pipe = new SplicePipeDescriptors(Native::pipe2, Native::close,
            NativeAbi.O_NONBLOCK | NativeAbi.O_CLOEXEC, ERRORS);
    private long buffered;     // loop-confined: bytes in the pipe
    private boolean closed;    // loop-confined (the channel core closes the pipe on the loop)

    IoUringSplicePipe(IoUringStreamSocket source, IoUringStreamSocket target) {
        this.source = source;
        this.target = target;
    }

    @Override
    public long fill() throws IOException {
        if (pipe.open()) {
            PIPES_CREATED.incrementAndGet();
        }
        long n = source.spliceInto(pipe.writeEnd(), FILL_BYTES);
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
        long n = target.spliceFrom(pipe.readEnd(), buffered);
        buffered -= n;
        return n;
    }

    @Override
    public long buffered() {
        return buffered;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffered = 0;
        if (pipe.close()) {
            PIPES_CLOSED.incrementAndGet();
        }
        source.spliceEnded();
    }
}
