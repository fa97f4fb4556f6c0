package io.conduit.internal.buffer;

import java.nio.ByteBuffer;

/**
 * One region handed out by the pool: {@code [offset, offset + length)} of {@code memory}. {@code length} is the
 * size class (a power of two) for pooled blocks and the exact size for huge ones ({@code chunk == null}).
 * Immutable; a block is owned by exactly one buffer, one loop cache or its arena at any time.
 */
final class PoolBlock {
    final PoolChunk chunk; // null: a huge block allocated on its own
    final ByteBuffer memory;
    final int offset;
    final int length;

    PoolBlock(PoolChunk chunk, ByteBuffer memory, int offset, int length) {
        this.chunk = chunk;
        this.memory = memory;
        this.offset = offset;
        this.length = length;
    }

    /** @return e.g. {@code "chunk 3 offset 8192 length 16"}, or {@code "huge length 5000000"} */
    String location() {
        return chunk == null ? "huge length " + length
                : "chunk " + chunk.id + " offset " + offset + " length " + length;
    }

    @Override
    public String toString() {
        return location();
    }
}
