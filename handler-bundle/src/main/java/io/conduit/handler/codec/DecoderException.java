package io.conduit.handler.codec;

/**
 * A decoder failed on its input; thrown on from {@link ByteToMessageDecoder} and {@link MessageToMessageDecoder}.
 */
public class DecoderException extends CodecException {
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong and, where it helps, what to do */
    public DecoderException(String message) {
        super(message);
    }

    /**
     * @param message what was wrong
     * @param cause the underlying failure
     */
    public DecoderException(String message, Throwable cause) {
        super(message, cause);
    }
}
