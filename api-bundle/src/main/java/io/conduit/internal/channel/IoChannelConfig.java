package io.conduit.internal.channel;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Options of a channel built on the shared channel core: the core options ({@code AUTO_READ},
 * {@code WRITE_SPIN_COUNT}, water marks, …) live here; socket options go straight to the {@link IoSocket},
 * which says whether it supports them. An unsupported option is ignored with one warning per option and
 * transport ({@link io.conduit.internal.transport.UnsupportedOptions}). Thread-safe.
 */
public final class IoChannelConfig implements ChannelConfig {

    /** Told about option changes the core must act on. Called on the thread that set the option. */
    public interface Listener {
        void autoReadChanged(boolean autoRead);

        void waterMarkChanged(WriteBufferWaterMark waterMark);
    }

    private static final Set<ChannelOption<?>> CORE = Set.of(ChannelOption.ALLOCATOR, ChannelOption.AUTO_READ,
            ChannelOption.CONNECT_TIMEOUT_MILLIS, ChannelOption.WRITE_SPIN_COUNT, ChannelOption.WRITE_BUFFER_WATER_MARK,
            ChannelOption.MAX_MESSAGES_PER_READ, ChannelOption.ALLOW_HALF_CLOSURE);

    private final String transportName;
    private final String channelKind;
    private final IoSocket socket;
    private final Listener listener;
    private final Map<ChannelOption<?>, Object> core = new ConcurrentHashMap<>(); // thread-safe map

    // hot-path copies of core options, written by setOption (any thread), read by the loop
    private volatile boolean autoRead = true;
    private volatile int writeSpinCount = 16;
    private volatile int maxMessagesPerRead = 16;
    private volatile boolean allowHalfClosure;
    private volatile int connectTimeoutMillis = 30_000;
    private volatile WriteBufferWaterMark waterMark = WriteBufferWaterMark.DEFAULT;
    private volatile BufferAllocator allocator; // null = the default, resolved lazily

    public IoChannelConfig(String transportName, String channelKind, IoSocket socket, Listener listener) {
        this.transportName = transportName;
        this.channelKind = channelKind;
        this.socket = socket;
        this.listener = listener;
    }

    public static boolean isCoreOption(ChannelOption<?> option) {
        return CORE.contains(option);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.ALLOCATOR) {
            return (T) getAllocator();
        }
        if (option == ChannelOption.AUTO_READ) {
            return (T) Boolean.valueOf(autoRead);
        }
        if (option == ChannelOption.WRITE_SPIN_COUNT) {
            return (T) Integer.valueOf(writeSpinCount);
        }
        if (option == ChannelOption.MAX_MESSAGES_PER_READ) {
            return (T) Integer.valueOf(maxMessagesPerRead);
        }
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        if (option == ChannelOption.CONNECT_TIMEOUT_MILLIS) {
            return (T) Integer.valueOf(connectTimeoutMillis);
        }
        if (option == ChannelOption.WRITE_BUFFER_WATER_MARK) {
            return (T) waterMark;
        }
        try {
            return socket.getOption(option);
        } catch (IOException e) {
            throw new IllegalStateException("reading channel option " + option.name() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        T v = option.validate(value);
        if (option == ChannelOption.ALLOCATOR) {
            allocator = (BufferAllocator) v;
        } else if (option == ChannelOption.AUTO_READ) {
            boolean was = autoRead;
            autoRead = (Boolean) v;
            if (was != autoRead) {
                listener.autoReadChanged(autoRead);
            }
        } else if (option == ChannelOption.WRITE_SPIN_COUNT) {
            writeSpinCount = (Integer) v;
        } else if (option == ChannelOption.MAX_MESSAGES_PER_READ) {
            maxMessagesPerRead = (Integer) v;
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) v;
        } else if (option == ChannelOption.CONNECT_TIMEOUT_MILLIS) {
            connectTimeoutMillis = (Integer) v;
        } else if (option == ChannelOption.WRITE_BUFFER_WATER_MARK) {
            waterMark = (WriteBufferWaterMark) v;
            listener.waterMarkChanged(waterMark);
        } else {
            boolean applied;
            try {
                applied = socket.setOption(option, v);
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("channel option " + option.name() + "=" + v + " was rejected on "
                        + channelKind + " (" + transportName + "): " + e.getMessage(), e);
            }
            if (!applied) {
                io.conduit.internal.transport.UnsupportedOptions.warnOnce(option, transportName);
            }
            return applied;
        }
        core.put(option, v);
        return true;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        Map<ChannelOption<?>, Object> all = new LinkedHashMap<>();
        for (ChannelOption<?> o : CORE) {
            all.put(o, getOption(o));
        }
        for (ChannelOption<?> o : ChannelOption.values()) {
            if (!CORE.contains(o)) {
                try {
                    Object v = socket.getOption(o);
                    if (v != null) {
                        all.put(o, v);
                    }
                } catch (IOException | RuntimeException ignored) {
                    // closed socket or an option the kernel refuses to report: leave it out of the snapshot
                }
            }
        }
        return all;
    }

    @Override
    public boolean isAutoRead() {
        return autoRead;
    }

    @Override
    public BufferAllocator getAllocator() {
        BufferAllocator a = allocator;
        return a != null ? a : BufferAllocator.pooled();
    }

    public int writeSpinCount() {
        return writeSpinCount;
    }

    public int maxMessagesPerRead() {
        return maxMessagesPerRead;
    }

    public boolean allowHalfClosure() {
        return allowHalfClosure;
    }

    public int connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    public WriteBufferWaterMark waterMark() {
        return waterMark;
    }
}
