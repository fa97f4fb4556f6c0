package io.conduit.handler.ssl;

import java.nio.ByteBuffer;

/**
 * A heap buffer per thread for TLS records on their way through the JDK's {@link javax.net.ssl.SSLEngine}: the
 * engine encrypts and decrypts a record in place in its packet buffer, and the JDK's AES-GCM takes its fast path
 * (one intrinsic call per record) only when that buffer is backed by an array. On a direct buffer it goes through
 * two temporary 512-byte arrays, copying each chunk in and out ({@code com.sun.crypto.provider.GaloisCounterMode}).
 * So records are decrypted and encrypted here and copied once between this buffer and the channel's direct buffers.
 *
 * <p>A thread keeps two buffers of at most {@link #KEPT_BYTES} each between uses (a read's decryption and the
 * encryption of a write made from inside that read), so an event loop with many TLS channels holds two, not two per
 * channel. Not thread-safe by design: {@link #take(int)} and {@link #give(ByteBuffer)} run
 * on one thread; a nested take (a handler that feeds another TLS channel on the same thread from inside a read) gets
 * a buffer of its own.
 */
final class EngineScratch {

    /** The largest buffer a thread keeps between uses, in bytes: what one encrypted write gathers at most. */
    static final int KEPT_BYTES = 544 * 1024;

    /** The smallest buffer made, in bytes: a few records, so small reads do not make a buffer each. */
    static final int MIN_BYTES = 64 * 1024;

    /**
     * The kept buffers of each thread, two slots. The value is a JDK type only, so the map of a long-lived event loop
     * thread pins no class of this bundle (STYLE: no class-loader-pinning ThreadLocal under OSGi).
     */
    private static final ThreadLocal<ByteBuffer[]> KEPT = new ThreadLocal<>();

    private EngineScratch() {
    }

    private static ByteBuffer[] kept() {
        ByteBuffer[] k = KEPT.get();
        if (k == null) {
            k = new ByteBuffer[2];
            KEPT.set(k);
        }
        return k;
    }

    /**
     * @param minBytes the room needed, in bytes
     * @return a cleared heap buffer with at least {@code minBytes} of room; hand it back with {@link #give}
     */
    static ByteBuffer take(int minBytes) {
        ByteBuffer[] k = kept();
        for (int i = 0; i < k.length; i++) {
            ByteBuffer b = k[i];
            if (b != null && b.capacity() >= minBytes) {
                k[i] = null;
                return b.clear();
            }
        }
        return ByteBuffer.allocate(Math.max(minBytes, MIN_BYTES));
    }

    /** Keeps {@code b} for a later {@link #take} on this thread unless it is too large or two larger ones are kept. */
    static void give(ByteBuffer b) {
        if (b.capacity() > KEPT_BYTES) {
            return;
        }
        ByteBuffer[] k = kept();
        for (int i = 0; i < k.length; i++) {
            if (k[i] == null) {
                k[i] = b;
                return;
            }
        }
        for (int i = 0; i < k.length; i++) {
            if (k[i].capacity() < b.capacity()) {
                k[i] = b;
                return;
            }
        }
    }
}
