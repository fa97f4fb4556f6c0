package io.conduit.handler.codec;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandlerContext;

/**
 * Splits a stream into frames by a length field in each frame's header.
 *
 * <pre>
 *  offset      lengthFieldLength
 * +--------+----------------+-----------------------------------+
 * | header | length field L | rest of the frame                 |
 * +--------+----------------+-----------------------------------+
 * frame length = lengthFieldOffset + lengthFieldLength + L + lengthAdjustment
 * </pre>
 *
 * <p>{@code L} is an unsigned integer of 1 to 8 bytes in the given byte order. {@code lengthAdjustment} is added
 * when {@code L} counts more or less than the bytes after the field (for example {@code -lengthFieldLength} when
 * {@code L} includes the field itself). Each frame is passed on without its first {@code initialBytesToStrip}
 * bytes, as a {@link Buffer#readRetainedSlice(int) retained slice} of the decoder's buffer (override
 * {@link #extractFrame} to copy instead).
 *
 * <p>Maximum: a frame longer than {@code maxFrameLength} bytes (before stripping) is discarded as its bytes
 * arrive, so the decoder never holds more than {@code maxFrameLength} bytes plus one read. A
 * {@link TooLongFrameException} is fired through the pipeline ({@code exceptionCaught}) at once when the length
 * field is read ({@code failFast}) or after the whole frame was discarded; decoding goes on with the next frame.
 * A length field that cannot be right (the adjusted frame is shorter than the header, or shorter than
 * {@code initialBytesToStrip}, or the 8-byte value does not fit a {@code long}) is thrown as a
 * {@link CorruptedFrameException} after its header bytes were skipped: the stream has lost its framing and the
 * handler after this one should close the channel.
 */
public class LengthFieldBasedFrameDecoder extends ByteToMessageDecoder {

    private final ByteOrder byteOrder;
    private final int maxFrameLength;
    private final int lengthFieldOffset;
    private final int lengthFieldLength;
    private final int lengthFieldEndOffset;
    private final long lengthAdjustment;
    private final int initialBytesToStrip;
    private final boolean failFast;

    /** In discard mode: bytes of the too-long frame still to skip. */
    private long bytesToDiscard;
    /** In discard mode: the length of the too-long frame, for its exception. */
    private long tooLongFrameLength;
    private boolean discarding;

    /** Big-endian, no adjustment, nothing stripped, fail fast. */
    public LengthFieldBasedFrameDecoder(int maxFrameLength, int lengthFieldOffset, int lengthFieldLength) {
        this(ByteOrder.BIG_ENDIAN, maxFrameLength, lengthFieldOffset, lengthFieldLength, 0, 0, true);
    }

    /** Big-endian, fail fast. */
    public LengthFieldBasedFrameDecoder(int maxFrameLength, int lengthFieldOffset, int lengthFieldLength,
            int lengthAdjustment, int initialBytesToStrip) {
        this(ByteOrder.BIG_ENDIAN, maxFrameLength, lengthFieldOffset, lengthFieldLength, lengthAdjustment,
                initialBytesToStrip, true);
    }

    /**
     * @param byteOrder the byte order of the length field
     * @param maxFrameLength the longest frame in bytes, header included, before stripping; {@code > 0}
     * @param lengthFieldOffset bytes before the length field; {@code >= 0}
     * @param lengthFieldLength size of the length field in bytes, 1 to 8
     * @param lengthAdjustment added to the field's value to get the bytes after the field
     * @param initialBytesToStrip bytes removed from the start of each frame passed on; {@code >= 0}
     * @param failFast {@code true}: fire {@link TooLongFrameException} when the length is read; {@code false}:
     *        after the frame was discarded
     * @throws IllegalArgumentException naming the parameter when a value is out of range
     */
    public LengthFieldBasedFrameDecoder(ByteOrder byteOrder, int maxFrameLength, int lengthFieldOffset,
            int lengthFieldLength, int lengthAdjustment, int initialBytesToStrip, boolean failFast) {
        this.byteOrder = Objects.requireNonNull(byteOrder, "byteOrder");
        FrameChecks.positive("maxFrameLength", maxFrameLength);
        if (lengthFieldOffset < 0) {
            throw new IllegalArgumentException("lengthFieldOffset must be >= 0: " + lengthFieldOffset);
        }
        if (lengthFieldLength < 1 || lengthFieldLength > 8) {
            throw new IllegalArgumentException("lengthFieldLength must be 1 to 8 bytes: " + lengthFieldLength);
        }
        if (initialBytesToStrip < 0) {
            throw new IllegalArgumentException("initialBytesToStrip must be >= 0: " + initialBytesToStrip);
        }
        if ((long) lengthFieldOffset + lengthFieldLength > maxFrameLength) {
            throw new IllegalArgumentException("maxFrameLength (" + maxFrameLength + ") must be at least"
                    + " lengthFieldOffset + lengthFieldLength (" + ((long) lengthFieldOffset + lengthFieldLength) + ")");
        }
        this.maxFrameLength = maxFrameLength;
        this.lengthFieldOffset = lengthFieldOffset;
        this.lengthFieldLength = lengthFieldLength;
        this.lengthFieldEndOffset = lengthFieldOffset + lengthFieldLength;
        this.lengthAdjustment = lengthAdjustment;
        this.initialBytesToStrip = initialBytesToStrip;
        this.failFast = failFast;
    }

    /** @return the longest frame in bytes, header included */
    public final int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
        Buffer frame = decode(ctx, in);
        if (frame != null) {
            out.add(frame);
        }
    }

    /**
     * Decodes at most one frame.
     *
     * @return the frame, or {@code null} when more bytes are needed or bytes were discarded
     */
    protected Buffer decode(ChannelHandlerContext ctx, Buffer in) throws Exception {
        if (discarding) {
            discard(ctx, in);
            return null;
        }
        if (in.readableBytes() < lengthFieldEndOffset) {
            return null;
        }
        int start = in.readerIndex();
        long value = getUnadjustedFrameLength(in, start + lengthFieldOffset, lengthFieldLength, byteOrder);
        if (value < 0) {
            in.skipBytes(lengthFieldEndOffset);
            throw new CorruptedFrameException("length field of " + lengthFieldLength + " bytes holds "
                    + Long.toUnsignedString(value) + ", more than a frame can have");
        }
        long frameLength = value + lengthAdjustment + lengthFieldEndOffset;
        if (frameLength < lengthFieldEndOffset || value + lengthAdjustment < 0) {
            in.skipBytes(lengthFieldEndOffset);
            throw new CorruptedFrameException("length field value " + value + " with lengthAdjustment "
                    + lengthAdjustment + " gives a frame of " + frameLength + " bytes, shorter than its "
                    + lengthFieldEndOffset + "-byte header");
        }
        if (frameLength > maxFrameLength) {
            startDiscarding(ctx, in, frameLength);
            return null;
        }
        int length = (int) frameLength;
        if (in.readableBytes() < length) {
            return null;
        }
        if (initialBytesToStrip > length) {
            in.skipBytes(length);
            throw new CorruptedFrameException("frame of " + length + " bytes is shorter than initialBytesToStrip ("
                    + initialBytesToStrip + ")");
        }
        in.skipBytes(initialBytesToStrip);
        int index = in.readerIndex();
        int actualLength = length - initialBytesToStrip;
        Buffer frame = extractFrame(ctx, in, index, actualLength);
        in.readerIndex(index + actualLength);
        return frame;
    }

    /**
     * Makes the frame passed on from {@code length} bytes at {@code index} of the decoder's buffer; the caller
     * then moves the reader index past them. By default a retained slice (no copy).
     */
    protected Buffer extractFrame(ChannelHandlerContext ctx, Buffer buffer, int index, int length) {
        return buffer.retainedSlice(index, length);
    }

    /**
     * Reads the length field: an unsigned integer of {@code length} bytes at {@code offset}.
     *
     * @return the value; negative when an 8-byte value does not fit a {@code long}
     */
    protected long getUnadjustedFrameLength(Buffer buf, int offset, int length, ByteOrder order) {
        long value = 0;
        if (order == ByteOrder.BIG_ENDIAN) {
            for (int i = 0; i < length; i++) {
                value = (value << 8) | (buf.getByte(offset + i) & 0xFF);
            }
        } else {
            for (int i = length - 1; i >= 0; i--) {
                value = (value << 8) | (buf.getByte(offset + i) & 0xFF);
            }
        }
        return value;
    }

    private void startDiscarding(ChannelHandlerContext ctx, Buffer in, long frameLength) {
        long discard = frameLength - in.readableBytes();
        tooLongFrameLength = frameLength;
        if (discard <= 0) {
            in.skipBytes((int) frameLength); // the whole frame is here: drop it and go on
            fail(ctx, frameLength);
            return;
        }
        discarding = true;
        bytesToDiscard = discard;
        in.skipBytes(in.readableBytes());
        if (failFast) {
            fail(ctx, frameLength);
        }
    }

    private void discard(ChannelHandlerContext ctx, Buffer in) {
        int skip = (int) Math.min(bytesToDiscard, in.readableBytes());
        in.skipBytes(skip);
        bytesToDiscard -= skip;
        if (bytesToDiscard == 0) {
            discarding = false;
            if (!failFast) {
                fail(ctx, tooLongFrameLength);
            }
        }
    }

    private void fail(ChannelHandlerContext ctx, long frameLength) {
        ctx.fireExceptionCaught(new TooLongFrameException("frame of " + frameLength + " bytes is longer than"
                + " maxFrameLength " + maxFrameLength + "; it was discarded"));
    }
}
