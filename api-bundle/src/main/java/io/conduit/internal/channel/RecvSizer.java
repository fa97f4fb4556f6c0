package io.conduit.internal.channel;

/**
 * Adaptive receive-buffer sizing: the next read buffer grows at once (doubling) when a read filled the whole
 * buffer, and shrinks (halving) after two consecutive read operations that used less than half of it.
 * Sizes stay between {@link #MIN_BYTES} and {@link #MAX_BYTES}. Loop-confined.
 */
public final class RecvSizer {

    /** Smallest read buffer, in bytes. */
    public static final int MIN_BYTES = 64;
    /** Largest read buffer, in bytes. */
    public static final int MAX_BYTES = 64 * 1024;
    /** First guess, in bytes. */
    public static final int INITIAL_BYTES = 2048;

    private int guessBytes = INITIAL_BYTES;
    private int shrinkVotes;

    /** @return bytes to allocate for the next read */
    public int guess() {
        return guessBytes;
    }

    /** One read returned {@code bytesRead} into a buffer with {@code attemptedBytes} of room. */
    public void record(int bytesRead, int attemptedBytes) {
        if (bytesRead >= attemptedBytes && attemptedBytes >= guessBytes && guessBytes < MAX_BYTES) {
            guessBytes = Math.min(MAX_BYTES, guessBytes << 1);
            shrinkVotes = 0;
        }
    }

    /** A read operation ended after {@code totalBytes}. */
    public void readComplete(long totalBytes) {
        if (totalBytes < (guessBytes >>> 1) && guessBytes > MIN_BYTES) {
            if (++shrinkVotes >= 2) {
                guessBytes = Math.max(MIN_BYTES, guessBytes >>> 1);
                shrinkVotes = 0;
            }
        } else {
            shrinkVotes = 0;
        }
    }
}
