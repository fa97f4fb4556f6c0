package io.conduit.handler.codec;

/**
 * An encoder failed on an outbound message; the write's promise fails with it.
 */
public class EncoderException extends CodecException {
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong and, where it helps, what to do */
    public EncoderException(String message) {
        super(message);
    }

    /**
     * @param message what was wrong
     * @param cause the underlying failure
     */
    public EncoderException(String message, Throwable cause) {
        super(message, cause);
    }
}
