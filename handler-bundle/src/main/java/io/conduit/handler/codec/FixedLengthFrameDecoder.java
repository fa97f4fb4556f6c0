package io.conduit.handler.codec;

import java.util.List;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandlerContext;

/**
 * Splits a stream into frames of one fixed length, passed on as retained slices of the decoder's buffer. The
 * frame length is also the maximum: the decoder holds less than one frame plus one read. Bytes left at the end of
 * input (a partial frame) are released, not passed on.
 */
public class FixedLengthFrameDecoder extends ByteToMessageDecoder {

    private final int frameLength;

    /**
     * @param frameLength bytes per frame; {@code > 0}
     * @throws IllegalArgumentException when {@code frameLength <= 0}
     */
    public FixedLengthFrameDecoder(int frameLength) {
        FrameChecks.positive("frameLength", frameLength);
        this.frameLength = frameLength;
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
        if (in.readableBytes() >= frameLength) {
            out.add(in.readRetainedSlice(frameLength));
        }
    }
}
