package io.conduit.buffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A buffer made of other buffers without copying them, for gathering writes: {@link #nioBuffers(int, int)}
 * returns one {@link java.nio.ByteBuffer} per component the range touches, and {@link #nioBufferCount()} is the
 * number of components.
 *
 * <p>A new composite is empty (capacity 0). {@link #addComponent(Buffer)} appends a component and advances the
 * writer index over it. Writing past the capacity adds a new component from the allocator that made the
 * composite. Values that straddle two components are assembled byte by byte. Releasing the composite to 0
 * releases every component once. Not thread-safe, like every {@link Buffer}.
 */
@ProviderType
public interface CompositeBuffer extends Buffer {

    /**
     * Appends the readable bytes of {@code buffer} (its indexes are not changed afterwards by this composite) right
     * after this composite's writer index, and advances the writer index by {@code buffer.readableBytes()}. Writable
     * room after the writer index (and anything set there) is dropped first. Takes over the caller's reference: the
     * composite releases {@code buffer} once when it is freed, so the caller must not release it (retain it first
     * to keep using it).
     *
     * @return this composite
     * @throws IllegalReferenceCountException when this composite or {@code buffer} was already released
     * @throws IllegalArgumentException when {@code buffer} is this composite
     * @throws IndexOutOfBoundsException when the total capacity would exceed {@link Integer#MAX_VALUE}
     */
    CompositeBuffer addComponent(Buffer buffer);

    /** @return how many components the composite holds */
    int numComponents();

    @Override
    CompositeBuffer retain();

    @Override
    CompositeBuffer retain(int increment);

    @Override
    CompositeBuffer touch(Object hint);
}
