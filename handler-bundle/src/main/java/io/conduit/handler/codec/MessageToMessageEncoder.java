package io.conduit.handler.codec;

import java.util.ArrayList;
import java.util.List;

import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.FutureListener;
import io.conduit.concurrent.Promise;

/**
 * Encodes outbound messages of type {@code I} into one or more messages, written on in order. Other messages
 * pass through.
 *
 * <p>Promises: with one result the original promise goes with it; with several, each gets its own promise and
 * the original one succeeds when all succeeded, or fails with the first failure. An empty result fails the
 * promise with an {@link EncoderException}: a write must write something.
 *
 * <p>Reference counting: the input message is released after {@link #encode} returns (or throws); retain it to
 * pass it on unchanged. On failure every result is released and the promise fails with an
 * {@link EncoderException}. Threading: the handler's executor.
 *
 * @param <I> the type of message this encoder encodes
 */
public abstract class MessageToMessageEncoder<I> extends TypedHandler<I> {

    /** @param messageType the messages to encode; others pass through */
    protected MessageToMessageEncoder(Class<? extends I> messageType) {
        super(messageType);
    }

    /** @return {@code true} when {@code msg} is encoded by this encoder (by default: an instance of the type) */
    public boolean acceptOutboundMessage(Object msg) {
        return isHandled(msg);
    }

    /**
     * Encodes {@code msg} into {@code out}.
     *
     * @param msg the message; released by the caller after this returns
     */
    protected abstract void encode(ChannelHandlerContext ctx, I msg, List<Object> out) throws Exception;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) throws Exception {
        if (!acceptOutboundMessage(msg)) {
            ctx.write(msg, promise);
            return;
        }
        List<Object> out = new ArrayList<>(2);
        try {
            @SuppressWarnings("unchecked")
            I cast = (I) msg;
            encode(ctx, cast, out);
            if (out.isEmpty()) {
                throw new EncoderException(getClass().getName() + ".encode(" + msg.getClass().getName()
                        + ") produced no message");
            }
        } catch (Throwable t) {
            out.forEach(ReferenceCounted::safeRelease);
            ReferenceCounted.safeRelease(msg);
            promise.tryFailure(t instanceof EncoderException ? t
                    : new EncoderException(failed("encode", msg, t), t));
            return;
        }
        ReferenceCounted.safeRelease(msg);
        if (out.size() == 1) {
            ctx.write(out.get(0), promise);
            return;
        }
        Aggregate all = new Aggregate(promise, out.size());
        for (Object o : out) {
            ctx.write(o).addListener(all);
        }
    }

    /** Completes the original promise once every part's write completed. Runs on the channel's event loop. */
    private static final class Aggregate implements FutureListener<Void> {
        private final Promise<Void> promise;
        private int left;
        private Throwable firstFailure;

        Aggregate(Promise<Void> promise, int parts) {
            this.promise = promise;
            this.left = parts;
        }

        @Override
        public synchronized void operationComplete(Future<? extends Void> f) {
            if (!f.isSuccess() && firstFailure == null) {
                firstFailure = f.cause() != null ? f.cause() : new EncoderException("a part's write was cancelled");
            }
            if (--left == 0) {
                if (firstFailure == null) {
                    promise.trySuccess(null);
                } else {
                    promise.tryFailure(firstFailure);
                }
            }
        }
    }
}
