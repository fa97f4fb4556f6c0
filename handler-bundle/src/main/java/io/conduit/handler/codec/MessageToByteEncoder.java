package io.conduit.handler.codec;


import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;

/**
 * Encodes outbound messages of type {@code I} into a {@link Buffer}: {@link #encode} writes into a buffer from
 * the channel's allocator, which is written on with the original promise. Other messages pass through.
 *
 * <p>Reference counting: the encoded message is released after {@code encode} returns (or throws). An empty
 * result is released and an empty buffer written, so the promise still completes in order with the stream.
 *
 * <p>Errors: an exception from {@code encode} fails the write's promise with an {@link EncoderException} (an
 * {@code EncoderException} as is); the message and the buffer are released. Threading: the handler's executor.
 *
 * @param <I> the type of message this encoder encodes
 */
public abstract class MessageToByteEncoder<I> extends TypedHandler<I> {

    /** @param messageType the messages to encode; others pass through */
    protected MessageToByteEncoder(Class<? extends I> messageType) {
        super(messageType);
    }

    /** @return {@code true} when {@code msg} is encoded by this encoder (by default: an instance of the type) */
    public boolean acceptOutboundMessage(Object msg) {
        return isHandled(msg);
    }

    /**
     * Writes {@code msg} into {@code out}.
     *
     * @param msg the message; released by the caller after this returns
     * @param out a buffer from the channel's allocator, sized by {@link #sizeHint(Object)}; it grows as needed
     */
    protected abstract void encode(ChannelHandlerContext ctx, I msg, Buffer out) throws Exception;

    /** @return the initial capacity of the output buffer for {@code msg}; 256 by default */
    protected int sizeHint(I msg) {
        return 256;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) throws Exception {
        if (!acceptOutboundMessage(msg)) {
            ctx.write(msg, promise);
            return;
        }
        Buffer out = null;
        try {
            @SuppressWarnings("unchecked")
            I cast = (I) msg;
            out = ctx.alloc().buffer(Math.max(0, sizeHint(cast)));
            encode(ctx, cast, out);
        } catch (Throwable t) {
            if (out != null) {
                out.release();
            }
            ReferenceCounted.safeRelease(msg);
            promise.tryFailure(t instanceof EncoderException ? t
                    : new EncoderException(failed("encode", msg, t), t));
            return;
        }
        ReferenceCounted.release(msg);
        ctx.write(out, promise);
    }
}
