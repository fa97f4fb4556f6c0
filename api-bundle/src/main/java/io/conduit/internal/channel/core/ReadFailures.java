package io.conduit.internal.channel.core;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * How a read tells an allocator failure from a socket error: allocations inside a read go through
 * {@link #allocate}, which wraps a failure in an {@link AllocatorFailure}; the wrapper never reaches the pipeline
 * ({@link #unwrap}). Either failure closes a stream channel: it would fail the same way on the next readiness event.
 */
final class ReadFailures {

    private ReadFailures() {
    }

    /**
     * An allocator failure inside a read, wrapped so that the read can tell it from a socket error. No stack trace of
     * its own: the cause has it.
     */
    static final class AllocatorFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AllocatorFailure(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    /** {@code alloc.buffer(capacity)}, its failure wrapped in an {@link AllocatorFailure}. */
    static Buffer allocate(BufferAllocator alloc, int capacity) {
        try {
            return alloc.buffer(capacity);
        } catch (RuntimeException | Error e) {
            throw new AllocatorFailure(e);
        }
    }

    /**
     * Copies the remaining bytes of {@code data} into a new buffer of {@code alloc}; the new buffer is released
     * again when the copy fails, so the caller owns it only on return.
     */
    static Buffer copyOf(ByteBuffer data, BufferAllocator alloc) {
        Buffer content = allocate(alloc, data.remaining());
        try {
            return content.writeBytes(data);
        } catch (RuntimeException | Error e) {
            content.release();
            throw e;
        }
    }

    /**
     * @return whether a stream read that failed with {@code t} closes the channel: a socket error or an allocator
     *         failure (either would fail the same way on the next readiness event)
     */
    static boolean closesOnReadFailure(Throwable t) {
        return t instanceof IOException || t instanceof AllocatorFailure;
    }

    /** @return the allocator's own failure for an {@link AllocatorFailure}, else {@code t} */
    static Throwable unwrap(Throwable t) {
        return t instanceof AllocatorFailure ? t.getCause() : t;
    }

    /** @return the close reason for a read that failed with {@code t}: it names the allocator when that failed */
    static String reason(Throwable t, String what) {
        return t instanceof AllocatorFailure
                ? "the channel's allocator failed while " + what + ": " + t.getCause()
                : (t instanceof IOException ? "an I/O error while " : "a failure while ") + what + ": " + t;
    }
}
