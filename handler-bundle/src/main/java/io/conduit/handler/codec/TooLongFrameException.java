package io.conduit.handler.codec;

/**
 * A frame is longer than the decoder's maximum frame length. The decoder discards the frame (never holding more than the
 * maximum) and fires this through the pipeline to {@code exceptionCaught}; its message gives the length seen and the maximum.
 */
public class TooLongFrameException extends DecoderException {
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong and, where it helps, what to do */
    public TooLongFrameException(String message) {
        super(message);
    }

    /**
     * @param message what was wrong
     * @param cause the underlying failure
     */
    public TooLongFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
