package io.conduit.internal.channel.core;

import io.conduit.channel.Channel;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What the channel core reports about one open channel to {@link OpenChannels}: the channel and its traffic
 * counters. Implemented by the channel core (one object per channel, usually the channel itself or a field of
 * it); read from any thread (Gogo {@code conduit:channels}, diagnostics), so the counters must be safe to read
 * without the event loop (e.g. {@code volatile} or {@link java.util.concurrent.atomic.AtomicLong} fields written
 * by the loop).
 */
@ConsumerType
public interface ChannelStats {

    /** @return the channel; its transport name and addresses are read from it */
    Channel channel();

    /** @return payload bytes read from the socket since the channel was opened */
    long bytesRead();

    /** @return payload bytes written to the socket since the channel was opened */
    long bytesWritten();

    /** @return {@link System#nanoTime()} when the channel was opened (registered with its event loop) */
    long openedAtNanos();
}
