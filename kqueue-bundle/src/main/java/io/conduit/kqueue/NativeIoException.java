package io.conduit.kqueue;

import java.io.IOException;

/**
 * A system call failed with an errno that has no more specific {@code java.net}/{@code java.nio} type. The
 * message reads {@code <call>(..) failed: <strerror text> (errno <n>)}; {@link #errno()} gives the number for
 * decisions (e.g. {@code EPIPE}, {@code ECONNRESET}).
 */
final class NativeIoException extends IOException {
    private static final long serialVersionUID = 1L;

    /** the positive errno value */
    private final int errno;

    NativeIoException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /** @return the positive errno value */
    int errno() {
        return errno;
    }
}
