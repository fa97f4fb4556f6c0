package io.conduit.internal.channel;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;

/**
 * A {@link ChannelConfig} backed by a concurrent map, holding the options of the channel core:
 * {@link ChannelOption#ALLOCATOR} (default {@link BufferAllocator#pooled()}, resolved on first use),
 * {@link ChannelOption#AUTO_READ} ({@code true}), {@link ChannelOption#CONNECT_TIMEOUT_MILLIS} (30,000),
 * {@link ChannelOption#WRITE_SPIN_COUNT} (16), {@link ChannelOption#WRITE_BUFFER_WATER_MARK}
 * ({@link WriteBufferWaterMark#DEFAULT}), {@link ChannelOption#MAX_MESSAGES_PER_READ} (16) and
 * {@link ChannelOption#ALLOW_HALF_CLOSURE} ({@code false}).
 *
 * <p>Transports extend it: {@link #isSupported(ChannelOption)} widens the set of options and
 * {@link #apply(ChannelOption, Object)} pushes a socket option to the kernel. Values are checked with
 * {@link ChannelOption#validate(Object)} before anything else. An unsupported option is ignored with one
 * WARNING per option and transport. Turning {@link ChannelOption#AUTO_READ} on calls {@link Channel#read()}.
 *
 * <p>Thread-safe: options may be read and set from any thread; {@link #apply} is called on the setting thread.
 */
public class DefaultChannelConfig implements ChannelConfig {

    /** The logger; replaced only by this package's tests (read on every use, written before a test runs). */
    static volatile System.Logger log = System.getLogger(DefaultChannelConfig.class.getName());

    /** "OPTION@transport" keys already warned about; strings only, so nothing is pinned. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    /** The core options every channel has, in a stable order. */
    public static final List<ChannelOption<?>> CORE_OPTIONS = List.of(ChannelOption.ALLOCATOR,
            ChannelOption.AUTO_READ, ChannelOption.CONNECT_TIMEOUT_MILLIS, ChannelOption.WRITE_SPIN_COUNT,
            ChannelOption.WRITE_BUFFER_WATER_MARK, ChannelOption.MAX_MESSAGES_PER_READ,
            ChannelOption.ALLOW_HALF_CLOSURE);

    private final Channel channel;
    /** Values set explicitly (or resolved defaults); concurrent map, no further guard. */
    private final ConcurrentHashMap<ChannelOption<?>, Object> values = new ConcurrentHashMap<>();

    /** @param channel the channel configured; used for its transport name and to start reads on auto-read */
    public DefaultChannelConfig(Channel channel) {
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    /** @return {@code true} when this channel kind has {@code option}; default: the {@link #CORE_OPTIONS} */
    protected boolean isSupported(ChannelOption<?> option) {
        return CORE_OPTIONS.contains(option);
    }

    /**
     * Applies a validated value (e.g. {@code setsockopt(2)}) before it is stored; default: nothing to apply.
     *
     * @throws IllegalArgumentException when the kernel rejects it (name the option, value and error)
     */
    protected <T> void apply(ChannelOption<T> option, T value) {
    }

    /** @return the default of an option that was never set, or {@code null} */
    protected Object defaultValue(ChannelOption<?> option) {
        if (option == ChannelOption.AUTO_READ) {
            return Boolean.TRUE;
        } else if (option == ChannelOption.CONNECT_TIMEOUT_MILLIS) {
            return 30_000;
        } else if (option == ChannelOption.WRITE_SPIN_COUNT || option == ChannelOption.MAX_MESSAGES_PER_READ) {
            return 16;
        } else if (option == ChannelOption.WRITE_BUFFER_WATER_MARK) {
            return WriteBufferWaterMark.DEFAULT;
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return Boolean.FALSE;
        } else if (option == ChannelOption.ALLOCATOR) {
            return BufferAllocator.pooled();
        }
        return null;
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) {
        Objects.requireNonNull(option, "option");
        if (!isSupported(option)) {
            return null;
        }
        Object v = values.get(option);
        if (v == null) {
            v = defaultValue(option);
            if (v == null) {
                return null;
            }
            if (option == ChannelOption.ALLOCATOR) { // resolve once, then keep it stable
                Object raced = values.putIfAbsent(option, v);
                v = raced != null ? raced : v;
            }
        }
        return option.valueType().cast(v);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        Objects.requireNonNull(option, "option");
        T valid = option.validate(value);
        if (!isSupported(option)) {
            if (!channel.isOpen()) {
                // a closed socket answers no option: that says nothing about the transport, so no warning
                // "not supported" (and the once-per-transport warning stays available for a real gap)
                log.log(System.Logger.Level.DEBUG, () -> "channel option " + option.name() + "=" + valid
                        + " was not applied: channel " + channel + " is closed");
                return false;
            }
            String transport = channel.transportName();
            if (WARNED.add(option.name() + '@' + transport)) {
                log.log(System.Logger.Level.WARNING, "channel option " + option.name() + " is not supported by "
                        + "transport " + transport + " for " + channel.getClass().getSimpleName() + "; ignored");
            }
            return false;
        }
        apply(option, valid);
        Object previous = values.put(option, valid);
        if (option == ChannelOption.AUTO_READ && Boolean.TRUE.equals(valid)
                && !Boolean.TRUE.equals(previous == null ? defaultValue(option) : previous)) {
            channel.read();
        }
        return true;
    }

    /** @return every supported option that has a value (set or default), in {@link #CORE_OPTIONS} order first */
    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        Map<ChannelOption<?>, Object> snapshot = new LinkedHashMap<>();
        Set<ChannelOption<?>> seen = new java.util.HashSet<>();
        for (ChannelOption<?> option : CORE_OPTIONS) {
            put(snapshot, seen, option);
        }
        for (ChannelOption<?> option : ChannelOption.values()) {
            put(snapshot, seen, option);
        }
        return Collections.unmodifiableMap(snapshot);
    }

    private void put(Map<ChannelOption<?>, Object> snapshot, Set<ChannelOption<?>> seen, ChannelOption<?> option) {
        if (!seen.add(option) || !isSupported(option)) {
            return;
        }
        try {
            Object v = getOption(option);
            if (v != null) {
                snapshot.put(option, v);
            }
        } catch (RuntimeException unavailable) {
            // e.g. no pooled allocator in this runtime: leave the option out of the snapshot
        }
    }
}
