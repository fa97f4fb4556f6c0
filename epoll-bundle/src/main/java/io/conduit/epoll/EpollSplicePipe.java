package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;

import io.conduit.transport.spi.IoSplicePipe;
import io.conduit.transport.spi.unix.SplicePipeDescriptors;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A kernel pipe between two epoll TCP sockets for zero-copy forwarding: {@code splice(2)} from the source socket into
 * the pipe's write end, and from the pipe's read end into the target socket, both with
 * {@code SPLICE_F_MOVE | SPLICE_F_NONBLOCK}. The pipe ({@link SplicePipeDescriptors}) is made on the first
 * {@link #fill()}.
 *
 * <p>Loop thread only (the sockets' loop), except {@link #close()}, which is idempotent.
 */
final class EpollSplicePipe implements IoSplicePipe {

    /** Bytes asked for per {@code splice(2)} into the pipe: the default pipe capacity (16 pages of 4 KiB). */
    static final int FILL_BYTES = 64 * 1024;
    /** Pipes created by every forwarding (test hook: zero-copy really happened). */
    static final AtomicLong PIPES_CREATED = new AtomicLong();
    /** Pipes whose descriptors were closed (test hook: none is left open). */
    static final AtomicLong PIPES_CLOSED = new AtomicLong();

    private static final int FLAGS = NativeAbi.SPLICE_F_MOVE | NativeAbi.SPLICE_F_NONBLOCK;

    private final EpollStreamSocket source;
    private final EpollStreamSocket target;
    private final SplicePipeDescriptors pipe = new SplicePipeDescriptors(Native::pipe2, Native::close,
            NativeAbi.O_NONBLOCK | NativeAbi.O_CLOEXEC, ERRORS);
    private long buffered;     // loop-confined: bytes in the pipe

    EpollSplicePipe(EpollStreamSocket source, EpollStreamSocket target) {
        this.source = source;
        this.target = target;
    }

    @Override
    public long fill() throws IOException {
        int in = source.liveFd("splice");
        if (pipe.open()) {
            PIPES_CREATED.incrementAndGet();
        }
        long n;
        do {
            n = Native.splice(in, -1, pipe.writeEnd(), -1, FILL_BYTES, FLAGS);
        } while (ERRORS.isInterrupted(n));
        if (n > 0) {
            buffered += n;
            return n;
        }
        source.inputDrained = true; // the edge-triggered poller reports the next input
        if (n == 0) {
            return -1;
        }
        if (ERRORS.isAgain(n)) {
            return 0;
        }
        throw ERRORS.newIoException("splice(socket to pipe)", (int) n);
    }

    @Override
    public long drain() throws IOException {
        if (buffered == 0) {
            return 0;
        }
        int out = target.liveFd("splice");
        long n;
        do {
            n = Native.splice(pipe.readEnd(), -1, out, -1, buffered, FLAGS);
        } while (ERRORS.isInterrupted(n));
        if (n >= 0) {
            buffered -= n;
            return n;
        }
        if (ERRORS.isAgain(n)) {
            return 0;
        }
        throw ERRORS.newIoException("splice(pipe to socket)", (int) n);
    }

    @Override
    public long buffered() {
        return buffered;
    }

    @Override
    public void close() {
        buffered = 0;
        if (pipe.close()) {
            PIPES_CLOSED.incrementAndGet();
        }
    }
}
