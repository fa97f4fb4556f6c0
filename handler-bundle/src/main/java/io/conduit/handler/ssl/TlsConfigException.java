package io.conduit.handler.ssl;

import java.nio.file.Path;

/**
 * A TLS context could not be built: a missing or unreadable file, a key that does not match its certificate, a wrong
 * password, a certificate outside its validity period, an unsupported protocol or cipher suite. The message names
 * the file (when there is one) and what to do.
 */
public class TlsConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The file the problem is in, or null. */
    private final transient Path file;

    /**
     * @param file    the file the problem is in, or null
     * @param message what is wrong and what to do
     * @param cause   the underlying error, or null
     */
    public TlsConfigException(Path file, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
    }

    /** @return the file the problem is in, or null when it is not about one file */
    public Path file() {
        return file;
    }
}
