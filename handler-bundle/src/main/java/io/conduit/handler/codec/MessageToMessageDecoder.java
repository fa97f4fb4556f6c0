package io.conduit.handler.codec;

import java.util.ArrayList;
import java.util.List;

import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.ChannelHandlerContext;

/**
 * Decodes inbound messages of type {@code I} into zero or more messages, fired on in order. Other messages pass
 * through.
 *
 * <p>Reference counting: the input message is released after {@link #decode} returns (or throws); to pass a
 * reference-counted message on unchanged, retain it before adding it to {@code out}.
 *
 * <p>Errors: an exception from {@code decode} is thrown on as a {@link DecoderException} (a
 * {@code DecoderException} as is) after the messages added before it were fired. Threading: the handler's
 * executor.
 *
 * @param <I> the type of message this decoder decodes
 */
public abstract class MessageToMessageDecoder<I> extends TypedHandler<I> {

    /** @param messageType the messages to decode; others pass through */
    protected MessageToMessageDecoder(Class<? extends I> messageType) {
        super(messageType);
    }

    /** @return {@code true} when {@code msg} is decoded by this decoder (by default: an instance of the type) */
    public boolean acceptInboundMessage(Object msg) {
        return isHandled(msg);
    }

    /**
     * Decodes {@code msg} into {@code out}.
     *
     * @param msg the message; released by the caller after this returns
     */
    protected abstract void decode(ChannelHandlerContext ctx, I msg, List<Object> out) throws Exception;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!acceptInboundMessage(msg)) {
            ctx.fireChannelRead(msg);
            return;
        }
        List<Object> out = new ArrayList<>(2);
        try {
            @SuppressWarnings("unchecked")
            I cast = (I) msg;
            decode(ctx, cast, out);
        } catch (DecoderException e) {
            throw e;
        } catch (Exception e) {
            throw new DecoderException(failed("decode", msg, e), e);
        } finally {
            ReferenceCounted.safeRelease(msg);
            for (Object o : out) {
                ctx.fireChannelRead(o);
            }
        }
    }
}
