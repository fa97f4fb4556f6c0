package io.conduit.buffer;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A message that owns one {@link Buffer} and is reference counted through it (a datagram packet, for one):
 * every count operation goes to {@link #content()}, so releasing the holder — as a channel does once it has
 * written it, or the pipeline's end with a message nobody took — releases the content. Thread-safe as the
 * content is.
 */
@ConsumerType
public interface BufferHolder extends ReferenceCounted {

    /** @return the owned content; not {@code null} */
    Buffer content();

    /** @return the content's reference count */
    @Override
    default int refCnt() {
        return content().refCnt();
    }

    /** Retains the content; @return this holder */
    @Override
    default BufferHolder retain() {
        content().retain();
        return this;
    }

    /** Retains the content {@code increment} times; @return this holder */
    @Override
    default BufferHolder retain(int increment) {
        content().retain(increment);
        return this;
    }

    /** Releases the content; @return {@code true} when it was freed */
    @Override
    default boolean release() {
        return content().release();
    }

    /** Releases the content {@code decrement} times; @return {@code true} when it was freed */
    @Override
    default boolean release(int decrement) {
        return content().release(decrement);
    }

    /** Records {@code hint} on the content; @return this holder */
    @Override
    default BufferHolder touch(Object hint) {
        content().touch(hint);
        return this;
    }
}
