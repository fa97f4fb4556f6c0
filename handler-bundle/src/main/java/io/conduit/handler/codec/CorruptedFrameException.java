package io.conduit.handler.codec;

/**
 * The input breaks the framing rules (for example a negative length field); the stream cannot be resynchronised.
 */
public class CorruptedFrameException extends DecoderException {
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong and, where it helps, what to do */
    public CorruptedFrameException(String message) {
        super(message);
    }

    /**
     * @param message what was wrong
     * @param cause the underlying failure
     */
    public CorruptedFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
