package io.conduit.handler.codec;

/**
 * A decoder or encoder failed. Unchecked, so handlers may throw it from any pipeline method.
 */
public class CodecException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong and, where it helps, what to do */
    public CodecException(String message) {
        super(message);
    }

    /**
     * @param message what was wrong
     * @param cause the underlying failure
     */
    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
