package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import java.io.IOException;

/**
 * A kernel pipe between a source and a target stream socket ({@link IoSpliceSocket#newSplicePipe}): bytes move from
 * the source socket into the pipe and from the pipe into the target socket without passing through Java memory
 * (Linux {@code splice(2)} with {@code SPLICE_F_MOVE | SPLICE_F_NONBLOCK}). Loop thread only, like {@link IoSocket}.
 */
@ConsumerType
public interface IoSplicePipe {

    /**
     * Moves bytes from the source socket into the pipe; called only while {@link #buffered()} is 0.
     *
     * @return bytes moved ({@code > 0}); {@code 0} when the source has nothing now (the transport then reports
     *         read readiness again when input arrives); {@code -1} at end of stream
     * @throws IOException when the source socket fails (e.g. "Connection reset by peer")
     */
    long fill() throws IOException;

    /**
     * Moves bytes from the pipe into the target socket.
     *
     * @return bytes moved; {@code 0} when the target's send buffer is full (the transport then reports write
     *         readiness when it has room)
     * @throws IOException when the target socket fails (e.g. "Broken pipe")
     */
    long drain() throws IOException;

    /** @return bytes in the pipe, moved from the source but not yet to the target */
    long buffered();

    /** Closes the pipe's descriptors (bytes still in it are dropped); idempotent. */
    void close();
}
