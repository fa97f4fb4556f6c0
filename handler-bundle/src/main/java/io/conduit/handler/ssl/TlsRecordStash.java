package io.conduit.handler.ssl;

import io.conduit.buffer.Buffer;

import java.nio.ByteBuffer;
import java.util.function.IntSupplier;

/**
 * Received TLS bytes the engine has not consumed yet: an incomplete record, or a ClientHello a server reads for its
 * server name before it has an engine. A heap buffer in write mode (bytes from 0 to its position), grown to at least
 * the engine's packet size when it must; empty when nothing waits. Not thread-safe: used on the channel's event loop.
 */
final class TlsRecordStash {

    /** The largest TLS record with its header (RFC 8446, 5.2: 2^14 + 256 bytes of payload, 5 of header). */
    private static final int MAX_RECORD_BYTES = 16_709;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final IntSupplier packetSize;
    private ByteBuffer bytes = EMPTY;

    /** @param packetSize the engine's packet buffer size in bytes, or 0 while there is no engine */
    TlsRecordStash(IntSupplier packetSize) {
        this.packetSize = packetSize;
    }

    /** @return true when no byte waits */
    boolean isEmpty() {
        return bytes.position() == 0;
    }

    /** Appends {@code in}'s readable bytes (leaving its indexes as they are), growing as needed. */
    void append(Buffer in) {
        ensure(in.readableBytes());
        for (ByteBuffer b : in.nioBuffers(in.readerIndex(), in.readableBytes())) {
            bytes.put(b);
        }
    }

    /** Appends {@code src}'s remaining bytes, consuming them. */
    void append(ByteBuffer src) {
        ensure(src.remaining());
        bytes.put(src);
    }

    /** @return a read-only-position view of the waiting bytes (position 0, limit = their count) */
    ByteBuffer view() {
        return bytes.duplicate().flip();
    }

    /**
     * @return false only when the bytes are the start of a TLS record (a known content type, RFC 8446, 5.1) that is
     *         not complete yet; anything else is the engine's to judge
     */
    boolean holdsCompleteRecord() {
        int n = bytes.position();
        if (n == 0) {
            return false;
        }
        int type = bytes.get(0) & 0xff;
        if (type < 20 || type > 23) {
            return true;
        }
        return n >= 5 && n >= 5 + (((bytes.get(3) & 0xff) << 8) | (bytes.get(4) & 0xff));
    }

    /** Flips to read mode for the engine; {@link #compact()} after it consumed what it could. */
    ByteBuffer flip() {
        return bytes.flip();
    }

    /** Back to write mode, keeping what the engine left (an incomplete record). */
    void compact() {
        bytes.compact();
    }

    private void ensure(int more) {
        if (bytes.remaining() < more) {
            int packet = packetSize.getAsInt();
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(bytes.position() + more,
                    packet > 0 ? packet : MAX_RECORD_BYTES));
            bytes.flip();
            bigger.put(bytes);
            bytes = bigger;
        }
    }
}
