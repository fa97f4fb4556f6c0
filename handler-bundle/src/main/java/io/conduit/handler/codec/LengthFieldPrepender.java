package io.conduit.handler.codec;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;

/**
 * Writes a length field before each outbound {@link Buffer}: the counterpart of
 * {@link LengthFieldBasedFrameDecoder}. The field is an unsigned integer of 1 to 8 bytes holding the message's
 * readable bytes plus {@code lengthAdjustment} (plus the field's own size when
 * {@code lengthIncludesLengthFieldLength}). A message of at most 1,024 bytes is copied behind the
 * header into one new buffer, one write: for small frames a copy costs less than a second buffer, promise and
 * outbound entry. A larger message goes out as two buffers (a gathering write; the message is not copied), and the
 * write's promise completes when both were written.
 *
 * <p>Errors: a length that is negative or does not fit the field fails the write's promise with an
 * {@link EncoderException} naming the length and the field size; the message is released. Sharable: it keeps no
 * per-channel state.
 */
@ChannelHandler.Sharable
public class LengthFieldPrepender extends MessageToMessageEncoder<Buffer> {

    /** the largest message, in bytes, copied into the header's buffer instead of written as a second buffer */
    static final int COPY_THRESHOLD = 1024;

    private final ByteOrder byteOrder;
    private final int lengthFieldLength;
    private final boolean lengthIncludesLengthFieldLength;
    private final int lengthAdjustment;

    /** Big-endian, the length counts the message only. */
    public LengthFieldPrepender(int lengthFieldLength) {
        this(ByteOrder.BIG_ENDIAN, lengthFieldLength, 0, false);
    }

    /**
     * @param byteOrder the byte order of the length field
     * @param lengthFieldLength 1 to 8 bytes
     * @param lengthAdjustment added to the length written
     * @param lengthIncludesLengthFieldLength {@code true} when the length counts the field itself too
     * @throws IllegalArgumentException when {@code lengthFieldLength} is not 1 to 8
     */
    public LengthFieldPrepender(ByteOrder byteOrder, int lengthFieldLength, int lengthAdjustment,
            boolean lengthIncludesLengthFieldLength) {
        super(Buffer.class);
        if (lengthFieldLength < 1 || lengthFieldLength > 8) {
            throw new IllegalArgumentException("lengthFieldLength must be 1 to 8 bytes: " + lengthFieldLength);
        }
        this.byteOrder = Objects.requireNonNull(byteOrder, "byteOrder");
        this.lengthFieldLength = lengthFieldLength;
        this.lengthAdjustment = lengthAdjustment;
        this.lengthIncludesLengthFieldLength = lengthIncludesLengthFieldLength;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Buffer msg, List<Object> out) throws Exception {
        long length = (long) msg.readableBytes() + lengthAdjustment
                + (lengthIncludesLengthFieldLength ? lengthFieldLength : 0);
        if (length < 0) {
            throw new EncoderException("length " + length + " (message of " + msg.readableBytes()
                    + " bytes, lengthAdjustment " + lengthAdjustment + ") is negative");
        }
        if (lengthFieldLength < 8 && length >= 1L << (8 * lengthFieldLength)) {
            throw new EncoderException("length " + length + " does not fit a " + lengthFieldLength
                    + "-byte length field (at most " + ((1L << (8 * lengthFieldLength)) - 1) + ")");
        }
        int size = msg.readableBytes();
        boolean copy = size <= COPY_THRESHOLD;
        Buffer header = ctx.alloc().buffer(copy ? lengthFieldLength + size : lengthFieldLength);
        for (int i = 0; i < lengthFieldLength; i++) {
            int shift = byteOrder == ByteOrder.BIG_ENDIAN ? 8 * (lengthFieldLength - 1 - i) : 8 * i;
            header.writeByte((int) (length >>> shift));
        }
        if (copy) {
            header.writeBytes(msg);
            out.add(header);
        } else {
            out.add(header);
            out.add(msg.retain());
        }
    }
}
