package io.conduit.handler.codec;

/**
 * Splits a stream into lines ending in {@code "\n"} or {@code "\r\n"} (RFC 5234's CRLF and the bare LF many
 * peers send). A {@code "\r"} without {@code "\n"} is part of the line. Frames, the maximum, discarding and
 * {@link TooLongFrameException} behave as in {@link DelimiterBasedFrameDecoder}: {@code maxLength} counts the
 * line without its ending, and the decoder holds at most {@code maxLength + 1} bytes plus one read.
 */
public class LineBasedFrameDecoder extends DelimiterBasedFrameDecoder {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LF = {'\n'};

    /** Strips the line ending, fails fast. */
    public LineBasedFrameDecoder(int maxLength) {
        this(maxLength, true, true);
    }

    /**
     * @param maxLength the longest line in bytes, line ending excluded; {@code > 0}
     * @param stripDelimiter {@code true} to pass lines on without their ending
     * @param failFast {@code true}: fire {@link TooLongFrameException} as soon as the maximum is passed;
     *        {@code false}: when the discarded line's ending arrived
     * @throws IllegalArgumentException when {@code maxLength <= 0}
     */
    public LineBasedFrameDecoder(int maxLength, boolean stripDelimiter, boolean failFast) {
        super(maxLength, stripDelimiter, failFast, CRLF, LF);
    }
}
