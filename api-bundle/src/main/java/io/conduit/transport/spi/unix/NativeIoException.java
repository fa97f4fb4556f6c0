package io.conduit.transport.spi.unix;

import java.io.IOException;

/**
 * A system call failed with an errno that has no more specific {@code java.net}/{@code java.nio} type. By
 * convention the message reads {@code <call>(..) failed: <strerror text> (errno <n>)}, with the text from the
 * transport's own native library; {@link #errno()} gives the number for decisions (e.g. {@code EPIPE},
 * {@code ECONNRESET}), to be compared with the errno values of that same library (they differ between
 * platforms). SPI for transport implementers; immutable.
 */
public final class NativeIoException extends IOException {
    private static final long serialVersionUID = 1L;

    /** the positive errno value, as the platform numbers it */
    private final int errno;

    /**
     * @param message what failed and why, e.g. {@code "write(..) failed: Broken pipe (errno 32)"}
     * @param errno   the positive errno value
     */
    public NativeIoException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /** @return the positive errno value, as the platform numbers it */
    public int errno() {
        return errno;
    }
}
