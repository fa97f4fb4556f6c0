package io.conduit.handler.codec;

import java.util.List;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandlerContext;

/**
 * Splits a stream into frames at one or more delimiters (byte sequences). Where several delimiters match, the
 * one that ends the shortest frame wins (the first given on a tie). Frames are passed on as retained slices of
 * the decoder's buffer, with or without their delimiter. Bytes are scanned once, also when a frame arrives one
 * byte per read.
 *
 * <p>Maximum: a frame whose content (delimiter excluded) is longer than {@code maxFrameLength} bytes is discarded
 * as its bytes arrive, up to and including its delimiter; the decoder never holds more than
 * {@code maxFrameLength} plus the longest delimiter minus one bytes, plus one read. A {@link TooLongFrameException}
 * is fired through the pipeline once the maximum is passed ({@code failFast}) or when the delimiter ending the
 * discarded frame arrived; decoding goes on with the next frame. Bytes left without a delimiter at the end of
 * input are released, not passed on.
 *
 * @see LineBasedFrameDecoder for {@code "\n"} and {@code "\r\n"}
 */
public class DelimiterBasedFrameDecoder extends ByteToMessageDecoder {

    private final int maxFrameLength;
    private final byte[][] delimiters;
    private final boolean stripDelimiter;
    private final boolean failFast;
    private final int longestDelimiter;

    /** Bytes from the reader index already scanned without a match (a delimiter may still start in the last few). */
    private int scanned;
    private boolean discarding;
    private long discardedBytes;

    /** Strips the delimiter, fails fast. */
    public DelimiterBasedFrameDecoder(int maxFrameLength, byte[]... delimiters) {
        this(maxFrameLength, true, true, delimiters);
    }

    /**
     * @param maxFrameLength the longest frame content in bytes, delimiter excluded; {@code > 0}
     * @param stripDelimiter {@code true} to pass frames on without their delimiter
     * @param failFast {@code true}: fire {@link TooLongFrameException} as soon as the maximum is passed;
     *        {@code false}: when the discarded frame's delimiter arrived
     * @param delimiters one or more non-empty delimiters (copied)
     * @throws IllegalArgumentException when there is no delimiter, one is empty, or the maximum is not positive
     */
    public DelimiterBasedFrameDecoder(int maxFrameLength, boolean stripDelimiter, boolean failFast,
            byte[]... delimiters) {
        FrameChecks.positive("maxFrameLength", maxFrameLength);
        Objects.requireNonNull(delimiters, "delimiters");
        if (delimiters.length == 0) {
            throw new IllegalArgumentException("at least one delimiter is needed");
        }
        this.delimiters = new byte[delimiters.length][];
        int longest = 0;
        for (int i = 0; i < delimiters.length; i++) {
            byte[] d = Objects.requireNonNull(delimiters[i], "delimiters[" + i + "]");
            if (d.length == 0) {
                throw new IllegalArgumentException("delimiters[" + i + "] is empty");
            }
            this.delimiters[i] = d.clone();
            longest = Math.max(longest, d.length);
        }
        this.longestDelimiter = longest;
        this.maxFrameLength = maxFrameLength;
        this.stripDelimiter = stripDelimiter;
        this.failFast = failFast;
    }

    @Override
    protected final void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int from = start + Math.max(0, scanned - (longestDelimiter - 1));
        int matchAt = -1;
        int matchLength = 0;
        for (int p = from; p < end && matchAt < 0; p++) {
            for (byte[] d : delimiters) {
                if (matches(in, p, end, d)) {
                    matchAt = p;
                    matchLength = d.length;
                    break;
                }
            }
        }
        if (matchAt < 0) {
            noDelimiter(ctx, in);
            return;
        }
        scanned = 0;
        int contentLength = matchAt - start;
        if (discarding) {
            discardedBytes += contentLength + matchLength;
            in.skipBytes(contentLength + matchLength);
            discarding = false;
            if (!failFast) {
                fail(ctx, discardedBytes);
            }
            return;
        }
        if (contentLength > maxFrameLength) {
            in.skipBytes(contentLength + matchLength);
            fail(ctx, contentLength);
            return;
        }
        if (stripDelimiter) {
            out.add(in.readRetainedSlice(contentLength));
            in.skipBytes(matchLength);
        } else {
            out.add(in.readRetainedSlice(contentLength + matchLength));
        }
    }

    /** No delimiter in the readable bytes: wait, or discard what certainly belongs to a too-long frame. */
    private void noDelimiter(ChannelHandlerContext ctx, Buffer in) {
        int readable = in.readableBytes();
        int keep = longestDelimiter - 1; // a delimiter may have begun in the last bytes
        if (discarding) {
            int skip = Math.max(0, readable - keep);
            in.skipBytes(skip);
            discardedBytes += skip;
            scanned = readable - skip;
            return;
        }
        scanned = readable;
        if (readable - keep > maxFrameLength) {
            int skip = readable - keep;
            in.skipBytes(skip);
            discarding = true;
            discardedBytes = skip;
            scanned = keep;
            if (failFast) {
                fail(ctx, skip);
            }
        }
    }

    private static boolean matches(Buffer in, int p, int end, byte[] d) {
        if (end - p < d.length) {
            return false;
        }
        for (int i = 0; i < d.length; i++) {
            if (in.getByte(p + i) != d[i]) {
                return false;
            }
        }
        return true;
    }

    private void fail(ChannelHandlerContext ctx, long length) {
        ctx.fireExceptionCaught(new TooLongFrameException("frame of " + (failFast && discarding ? "at least " : "")
                + length + " bytes is longer than maxFrameLength " + maxFrameLength + "; it was discarded"));
    }
}
