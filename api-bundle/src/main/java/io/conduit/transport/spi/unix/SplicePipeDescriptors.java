package io.conduit.transport.spi.unix;

import java.io.IOException;
import java.util.function.IntUnaryOperator;

/**
 * The two descriptors of a zero-copy forwarding's kernel pipe ({@link io.conduit.transport.spi.IoSplicePipe}) on a
 * Linux transport: made with {@code pipe2(2)} ({@code O_NONBLOCK | O_CLOEXEC}, the kernel's default capacity of 16
 * pages) on first use, so a forwarding that never moves a byte costs no descriptors, and closed with
 * {@code close(2)} once. The transport's own natives make and close them, with its own flag values; the
 * {@code splice(2)} calls that move bytes through the pipe stay in the transport.
 *
 * <p>Loop thread only, like {@link io.conduit.transport.spi.IoSplicePipe}; {@link #close()} is idempotent.
 *
 * @since 0.8.0
 */
public final class SplicePipeDescriptors {

    /** The transport's {@code pipe2(2)} native. */
    @FunctionalInterface
    public interface Pipe2 {
        /**
         * @param fds   receives {read end, write end}
         * @param flags the transport library's {@code O_NONBLOCK | O_CLOEXEC}
         * @return 0 or -errno
         */
        int pipe2(int[] fds, int flags);
    }

    private final Pipe2 pipe2;
    private final IntUnaryOperator close;
    private final int flags;
    private final UnixErrors errors;
    private int readFd = -1;   // loop-confined: -1 before the pipe is made and after close
    private int writeFd = -1;  // loop-confined: likewise
    private boolean closed;    // loop-confined

    /**
     * @param pipe2  the transport's {@code pipe2(2)}: 0 or -errno
     * @param close  the transport's {@code close(2)}: 0 or -errno (ignored: the descriptor is gone either way)
     * @param flags  {@code O_NONBLOCK | O_CLOEXEC} as the transport's library defines them
     * @param errors the transport's errno mapping, for the exception of a failed {@code pipe2(2)}
     */
    public SplicePipeDescriptors(Pipe2 pipe2, IntUnaryOperator close, int flags, UnixErrors errors) {
        this.pipe2 = pipe2;
        this.close = close;
        this.flags = flags;
        this.errors = errors;
    }

    /**
     * Makes the pipe unless it is made.
     *
     * @return {@code true} when this call made it
     * @throws IOException when {@code pipe2(2)} failed (e.g. {@code EMFILE}), or the pipe was closed
     */
    public boolean open() throws IOException {
        if (readFd >= 0) {
            return false;
        }
        if (closed) {
            throw new IOException("splice: the pipe of this forwarding was closed");
        }
        int[] fds = new int[2];
        errors.check("pipe2(O_NONBLOCK | O_CLOEXEC)", pipe2.pipe2(fds, flags));
        readFd = fds[0];
        writeFd = fds[1];
        return true;
    }

    /** @return the read end; -1 before {@link #open()} and after {@link #close()} */
    public int readEnd() {
        return readFd;
    }

    /** @return the write end; -1 before {@link #open()} and after {@link #close()} */
    public int writeEnd() {
        return writeFd;
    }

    /**
     * Closes both descriptors, if they were made; a later {@link #open()} fails. Idempotent.
     *
     * @return {@code true} when this call closed descriptors
     */
    public boolean close() {
        closed = true;
        if (readFd < 0) {
            return false;
        }
        close.applyAsInt(readFd);
        close.applyAsInt(writeFd);
        readFd = -1;
        writeFd = -1;
        return true;
    }
}
