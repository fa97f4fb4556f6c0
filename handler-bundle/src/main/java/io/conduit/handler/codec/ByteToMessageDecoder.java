package io.conduit.handler.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.CompositeBuffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.InputShutdownEvent;

/**
 * Turns a stream of {@link Buffer}s into messages: reads are accumulated in one cumulation buffer and
 * {@link #decode(ChannelHandlerContext, Buffer, List)} is called until it makes no more progress (adds no message
 * and reads no byte). Every message it adds to {@code out} is fired on at once, in order.
 *
 * <p>End of input: when the channel becomes inactive or its input is shut down ({@link InputShutdownEvent}),
 * {@link #decodeLast(ChannelHandlerContext, Buffer, List)} is called once with what is left (possibly nothing);
 * bytes it leaves are released. Removal: when the decoder is removed from the pipeline (also from inside
 * {@code decode}), the bytes it still holds are fired on as one {@link Buffer}, so a protocol switch loses
 * nothing.
 *
 * <p>Accumulation ({@link Cumulator}): {@link #MERGE_CUMULATOR} copies each read into one buffer the decoder
 * owns, compacting consumed bytes away when it grows; {@link #COMPOSITE_CUMULATOR} adds reads as components of a
 * {@link CompositeBuffer} without copying; the default {@link #ADAPTIVE_CUMULATOR} merges while little is held
 * and switches to a composite once merging would copy more than {@link #ADAPTIVE_COPY_THRESHOLD} bytes.
 *
 * <p>Reference counting: the decoder owns every {@link Buffer} it receives; {@code decode} sees the cumulation
 * and must not release it; messages that {@code decode} makes from it (for example with
 * {@link Buffer#readRetainedSlice(int)}) are owned by whoever receives them. Messages that are not
 * {@link Buffer}s pass through untouched.
 *
 * <p>Errors: an exception thrown by {@code decode} is thrown on as a {@link DecoderException} (a
 * {@code DecoderException} as is) after the messages decoded before it were fired; the pipeline passes it to
 * {@code exceptionCaught}. The bytes still held stay for the next read. A {@code decode} that adds a message
 * without reading a byte would loop forever: that is a {@link DecoderException} naming the decoder.
 *
 * <p>Threading: one instance per channel (not {@link ChannelHandler.Sharable}); all methods run on the handler's
 * executor.
 */
public abstract class ByteToMessageDecoder implements ChannelHandler {

    /** Merging would copy more than this many held bytes: the adaptive cumulator switches to a composite. */
    public static final int ADAPTIVE_COPY_THRESHOLD = 64 * 1024;

    /**
     * Adds a read to the cumulation.
     */
    @FunctionalInterface
    public interface Cumulator {
        /**
         * @param alloc the channel's allocator, for a new cumulation
         * @param cumulation the bytes held so far, owned by the decoder (one reference); {@code null} when none
         * @param in the new read; the cumulator takes over its reference (keeps it or releases it)
         * @return the new cumulation, holding the readable bytes of {@code cumulation} followed by those of
         *         {@code in}; the old cumulation is released when it is not returned
         */
        Buffer cumulate(BufferAllocator alloc, Buffer cumulation, Buffer in);
    }

    /**
     * Copies reads into one buffer the decoder owns. When the buffer has no room, a new one of twice the needed
     * size holds only the unread bytes (consumed bytes are dropped, so memory follows what is unread). The first
     * read is kept as it is when nothing is held.
     */
    public static final Cumulator MERGE_CUMULATOR = (alloc, cumulation, in) -> {
        if (cumulation == null) {
            return in;
        }
        try {
            return merge(alloc, cumulation, in);
        } finally {
            in.release();
        }
    };

    /** Adds reads as components of a {@link CompositeBuffer} without copying them. */
    public static final Cumulator COMPOSITE_CUMULATOR = (alloc, cumulation, in) -> {
        if (cumulation == null) {
            return in;
        }
        return composite(alloc, cumulation).addComponent(in);
    };

    /**
     * Merges while the held bytes are few; once a merge would copy more than {@link #ADAPTIVE_COPY_THRESHOLD}
     * bytes, adds reads as components of a composite instead.
     */
    public static final Cumulator ADAPTIVE_CUMULATOR = (alloc, cumulation, in) -> {
        if (cumulation == null) {
            return in;
        }
        if (cumulation instanceof CompositeBuffer
                || (cumulation.readableBytes() > ADAPTIVE_COPY_THRESHOLD && !fitsInPlace(cumulation, in))) {
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    };

    private Cumulator cumulator = ADAPTIVE_CUMULATOR;
    /** The bytes held between reads; {@code null} when none. Confined to the handler's executor. */
    private Buffer cumulation;
    private boolean singleDecode;
    /** Set while decode runs: handlerRemoved then defers passing the held bytes on. */
    private boolean decoding;
    /** handlerRemoved arrived while decoding. */
    private boolean removePending;
    /** {@code decodeLast} was called (input ended): it is not called again. */
    private boolean inputEnded;
    /** A message was fired during the current read; if none, channelReadComplete asks for more input. */
    private boolean firedDuringRead;

    protected ByteToMessageDecoder() {
    }

    /**
     * Decodes messages from {@code in}: reads what it consumes (moving the reader index) and adds each message to
     * {@code out}. Returning without reading and without adding means "wait for more bytes".
     *
     * @param ctx this handler's context
     * @param in the cumulation; do not release it or keep a reference to it
     * @param out where decoded messages go; they are fired on in order after this call
     * @throws Exception any failure; it is thrown on as a {@link DecoderException}
     */
    protected abstract void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception;

    /**
     * Called once when the input ended (channel inactive or input shut down), with the bytes left (possibly
     * none). By default decodes like {@link #decode} while bytes are readable; bytes left afterwards are released.
     */
    protected void decodeLast(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
        if (in.isReadable()) {
            decode(ctx, in, out);
        }
    }

    /**
     * Called from {@link #handlerRemoved(ChannelHandlerContext)} after the held bytes were passed on; for
     * subclasses that keep resources of their own. Does nothing by default.
     */
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
    }

    /**
     * Sets how reads are accumulated; takes effect with the next read.
     *
     * @throws NullPointerException when {@code cumulator} is {@code null}
     */
    public final void setCumulator(Cumulator cumulator) {
        this.cumulator = Objects.requireNonNull(cumulator, "cumulator");
    }

    /**
     * With {@code true}, {@code decode} is called only until it produced one message per read; the rest waits for
     * the next read (for a decoder that is replaced after its first message).
     */
    public final void setSingleDecode(boolean singleDecode) {
        this.singleDecode = singleDecode;
    }

    public final boolean isSingleDecode() {
        return singleDecode;
    }

    /** @return how many bytes the decoder holds, not yet decoded (0 when none); for tests and metrics */
    public final int bufferedBytes() {
        Buffer c = cumulation;
        return c == null ? 0 : c.readableBytes();
    }

    /**
     * @return the bytes the decoder holds, for a subclass that must look at them outside {@code decode};
     *         {@code null} when none. Do not release it.
     */
    protected final Buffer internalBuffer() {
        return cumulation;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof Buffer in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (inputEnded) {
            in.release(); // nothing is decoded after decodeLast
            return;
        }
        boolean first = cumulation == null;
        try {
            cumulation = cumulator.cumulate(ctx.alloc(), cumulation, in);
        } catch (RuntimeException | Error e) {
            if (first) {
                in.release(); // the cumulator failed before it took over the read
            }
            throw e;
        }
        callDecode(ctx, cumulation, false);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        boolean fired = firedDuringRead;
        firedDuringRead = false;
        if (!fired && !ctx.channel().config().isAutoRead()) {
            ctx.read(); // the decoder waits for more bytes: ask for them, or the channel stalls
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        try {
            endInput(ctx);
        } finally {
            ctx.fireChannelInactive();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof InputShutdownEvent) {
            try {
                endInput(ctx);
            } finally {
                ctx.fireUserEventTriggered(event);
            }
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public final void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        if (decoding) {
            removePending = true; // callDecode passes the held bytes on when decode returns
            return;
        }
        passOnHeldBytes(ctx);
    }

    private void passOnHeldBytes(ChannelHandlerContext ctx) throws Exception {
        Buffer held = cumulation;
        cumulation = null;
        try {
            if (held != null) {
                if (held.isReadable()) {
                    ctx.fireChannelRead(held);
                    ctx.fireChannelReadComplete();
                } else {
                    held.release();
                }
            }
        } finally {
            handlerRemoved0(ctx);
        }
    }

    private void endInput(ChannelHandlerContext ctx) throws Exception {
        if (inputEnded) {
            return;
        }
        inputEnded = true;
        boolean firedBefore = firedDuringRead;
        try {
            if (cumulation == null) {
                cumulation = ctx.alloc().heapBuffer(0);
            }
            callDecode(ctx, cumulation, true);
        } finally {
            releaseCumulation();
            if (firedDuringRead && !firedBefore) {
                firedDuringRead = false;
                ctx.fireChannelReadComplete();
            }
        }
    }

    private void releaseCumulation() {
        Buffer c = cumulation;
        cumulation = null;
        if (c != null) {
            c.release();
        }
    }

    /**
     * Calls decode until no progress, firing each message; at the end of input then calls decodeLast once.
     * Leaves the cumulation released and {@code null} when empty.
     */
    private void callDecode(ChannelHandlerContext ctx, Buffer in, boolean last) throws Exception {
        List<Object> out = new ArrayList<>(4);
        decoding = true;
        try {
            while (in.isReadable() && !removePending && !ctx.isRemoved()) {
                int before = in.readableBytes();
                decodeOnce(ctx, in, out, false);
                if (out.isEmpty()) {
                    if (before == in.readableBytes()) {
                        break; // no progress: wait for more bytes
                    }
                    continue;
                }
                int produced = out.size();
                fire(ctx, out);
                if (before == in.readableBytes()) {
                    throw new DecoderException(getClass().getName() + ".decode() produced " + produced
                            + " message(s) without reading a byte; it would be called forever");
                }
                if (singleDecode) {
                    break;
                }
            }
            if (last && !removePending && !ctx.isRemoved()) {
                decodeOnce(ctx, in, out, true);
                fire(ctx, out);
            }
        } finally {
            decoding = false;
            if (!out.isEmpty()) {
                fire(ctx, out); // messages decoded before a failure are not lost
            }
            if (removePending) {
                removePending = false;
                passOnHeldBytes(ctx);
            } else if (cumulation != null && !cumulation.isReadable()) {
                releaseCumulation();
            }
        }
    }

    private void decodeOnce(ChannelHandlerContext ctx, Buffer in, List<Object> out, boolean last) throws Exception {
        try {
            if (last) {
                decodeLast(ctx, in, out);
            } else {
                decode(ctx, in, out);
            }
        } catch (DecoderException e) {
            throw e;
        } catch (Exception e) {
            throw new DecoderException(getClass().getName() + (last ? ".decodeLast" : ".decode") + " failed: " + e, e);
        }
    }

    private void fire(ChannelHandlerContext ctx, List<Object> out) {
        int n = out.size();
        if (n == 0) {
            return;
        }
        firedDuringRead = true;
        for (int i = 0; i < n; i++) {
            ctx.fireChannelRead(out.get(i));
        }
        out.clear();
    }

    /**
     * True when {@code in} fits after the writer index of {@code cumulation} without growing it and nobody else
     * holds a reference (a slice made from it retains it; a slice itself has no writable room).
     */
    private static boolean fitsInPlace(Buffer cumulation, Buffer in) {
        return cumulation.refCnt() == 1 && cumulation.writableBytes() >= in.readableBytes();
    }

    private static Buffer merge(BufferAllocator alloc, Buffer cumulation, Buffer in) {
        int needed = in.readableBytes();
        if (!(cumulation instanceof CompositeBuffer) && fitsInPlace(cumulation, in)) {
            return cumulation.writeBytes(in); // unshared (a slice of it would hold a reference) and room enough
        }
        int held = cumulation.readableBytes();
        long total = (long) held + needed;
        if (total > Integer.MAX_VALUE) {
            throw new DecoderException("cumulation would exceed " + Integer.MAX_VALUE + " bytes (held " + held
                    + ", read " + needed + "); use a frame decoder with a maximum frame length");
        }
        int capacity = (int) Math.min(Integer.MAX_VALUE, Math.max(256L, total * 2));
        Buffer merged = alloc.buffer(capacity);
        try {
            merged.writeBytes(cumulation).writeBytes(in);
        } catch (RuntimeException | Error e) {
            merged.release();
            throw e;
        }
        cumulation.release();
        return merged;
    }

    /**
     * The composite to add the next read to. A composite cannot drop consumed components, so one that was read
     * from is replaced by a new one holding a copy of its unread bytes (less than one frame for a frame decoder):
     * memory follows what is unread.
     */
    private static CompositeBuffer composite(BufferAllocator alloc, Buffer cumulation) {
        if (cumulation instanceof CompositeBuffer c && c.refCnt() == 1 && c.readerIndex() == 0) {
            return c;
        }
        CompositeBuffer c = alloc.compositeBuffer();
        try {
            if (cumulation instanceof CompositeBuffer || cumulation.refCnt() > 1) {
                if (cumulation.isReadable()) {
                    c.addComponent(cumulation.copy());
                }
                cumulation.release();
            } else {
                c.addComponent(cumulation);
            }
        } catch (RuntimeException | Error e) {
            c.release();
            throw e;
        }
        return c;
    }
}
