package io.conduit.buffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An object with an explicit reference count that frees its resources when the count drops to zero.
 *
 * <p>A new object has a count of 1. Whoever receives a reference-counted message and does not pass it on
 * releases it. Using an object after its count reached zero, or releasing it more often than it was
 * retained, throws {@link IllegalReferenceCountException}. All methods are thread-safe.
 */
@ProviderType
public interface ReferenceCounted extends AutoCloseable {

    /** @return the current count; 0 once freed */
    int refCnt();

    /**
     * Adds one reference.
     *
     * @throws IllegalReferenceCountException when already freed
     */
    ReferenceCounted retain();

    /** Adds {@code increment} references; {@code increment > 0}. */
    ReferenceCounted retain(int increment);

    /**
     * Drops one reference.
     *
     * @return {@code true} when the count reached zero and the resources were freed
     * @throws IllegalReferenceCountException when already freed
     */
    boolean release();

    /** Drops {@code decrement} references; {@code decrement > 0}. */
    boolean release(int decrement);

    /**
     * Records where the object was last handled, for the leak report; free when leak detection is off.
     *
     * @param hint what touched it (a handler name, a string); may be {@code null}
     */
    ReferenceCounted touch(Object hint);

    /** Same as {@link #release()}; releasing an already freed object here throws too. */
    @Override
    default void close() {
        release();
    }

    /**
     * Releases {@code msg} when it is reference counted.
     *
     * @return {@code true} when it was freed
     */
    static boolean release(Object msg) {
        return msg instanceof ReferenceCounted rc && rc.release();
    }

    /** Releases {@code msg} when it is reference counted and still alive; never throws. */
    static void safeRelease(Object msg) {
        if (msg instanceof ReferenceCounted rc && rc.refCnt() > 0) {
            try {
                rc.release();
            } catch (IllegalReferenceCountException ignored) {
                // released concurrently
            }
        }
    }
}
