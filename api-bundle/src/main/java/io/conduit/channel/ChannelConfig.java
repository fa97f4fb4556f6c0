package io.conduit.channel;

import java.util.Map;

import io.conduit.buffer.BufferAllocator;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The options of one channel. Thread-safe: options may be read and set from any thread; a socket option
 * is applied on the channel's event loop (immediately when the socket exists, otherwise when it is created).
 */
@ProviderType
public interface ChannelConfig {

    /**
     * @return the current value, or the default when never set; {@code null} when this channel kind does not
     *         have the option
     */
    <T> T getOption(ChannelOption<T> option);

    /**
     * Sets an option.
     *
     * @return {@code true} when applied; {@code false} when this transport or channel kind does not support it
     *         (logged once per option and transport as a warning naming both), or when a socket option is set
     *         on a closed channel (logged at DEBUG, saying the channel is closed)
     * @throws IllegalArgumentException when the value is invalid ({@link ChannelOption#validate(Object)}) or
     *         the kernel rejects it (the message names the option, the value and the error)
     */
    <T> boolean setOption(ChannelOption<T> option, T value);

    /** @return a snapshot of every option this channel has, with its value */
    Map<ChannelOption<?>, Object> getOptions();

    default boolean isAutoRead() {
        return Boolean.TRUE.equals(getOption(ChannelOption.AUTO_READ));
    }

    /** Turning auto-read on starts a read at once when none is pending. */
    default ChannelConfig setAutoRead(boolean autoRead) {
        setOption(ChannelOption.AUTO_READ, autoRead);
        return this;
    }

    default BufferAllocator getAllocator() {
        return getOption(ChannelOption.ALLOCATOR);
    }
}
