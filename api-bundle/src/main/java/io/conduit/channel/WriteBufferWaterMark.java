package io.conduit.channel;

/**
 * Outbound-buffer thresholds for {@link Channel#isWritable()}, in bytes: above {@code high} the channel
 * becomes unwritable, below {@code low} writable again.
 *
 * @param low  bytes, {@code 0 <= low <= high}
 * @param high bytes
 */
public record WriteBufferWaterMark(int low, int high) {
    /** 32 KiB / 64 KiB. */
    public static final WriteBufferWaterMark DEFAULT = new WriteBufferWaterMark(32 * 1024, 64 * 1024);

    /** @throws IllegalArgumentException when {@code low < 0} or {@code high < low} */
    public WriteBufferWaterMark {
        if (low < 0 || high < low) {
            throw new IllegalArgumentException("water marks need 0 <= low <= high, got low=" + low + " high=" + high);
        }
    }
}
