package io.conduit.internal.channel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * A {@link ChannelConfig} holding the options of the channel core in plain fields:
 * {@link ChannelOption#ALLOCATOR} (default {@link BufferAllocator#pooled()}, resolved on first use),
 * {@link ChannelOption#AUTO_READ} ({@code true}), {@link ChannelOption#CONNECT_TIMEOUT_MILLIS} (30,000),
 * {@link ChannelOption#WRITE_SPIN_COUNT} (16), {@link ChannelOption#WRITE_BUFFER_WATER_MARK}
 * ({@link WriteBufferWaterMark#DEFAULT}), {@link ChannelOption#MAX_MESSAGES_PER_READ} (16) and
 * {@link ChannelOption#ALLOW_HALF_CLOSURE} ({@code false}). Any other option a subclass supports is kept in a map
 * created on the first such {@link #setOption} (see {@link #storeOther}), so a channel that only uses core
 * options holds no map (memory per idle connection: docs/benchmarks.md).
 *
 * <p>Transports extend it: {@link #isSupported(ChannelOption)} widens the set of options and
 * {@link #apply(ChannelOption, Object)} pushes a socket option to the kernel. Values are checked with
 * {@link ChannelOption#validate(Object)} before anything else. An unsupported option is ignored with one
 * WARNING per option and transport. Turning {@link ChannelOption#AUTO_READ} on calls {@link Channel#read()}
 * (once per off-to-on change, also when two threads turn it on at the same time).
 *
 * <p>Thread-safe: options may be read and set from any thread (the fields are volatile; the map is a
 * {@link ConcurrentHashMap}); {@link #apply} is called on the setting thread, before the value is stored.
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

    private static final VarHandle ALLOCATOR;
    private static final VarHandle OTHERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ALLOCATOR = lookup.findVarHandle(DefaultChannelConfig.class, "allocator", BufferAllocator.class);
            OTHERS = lookup.findVarHandle(DefaultChannelConfig.class, "others", ConcurrentHashMap.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Channel channel;

    // The core options. Each is written by setOption (any thread) and read by any thread; volatile, no other guard.
    private volatile BufferAllocator allocator;   // null until set or resolved (then stable); CAS through ALLOCATOR
    private volatile boolean autoRead = true;     // swapped under this object's monitor (see setAutoRead)
    private volatile boolean allowHalfClosure;
    private volatile int connectTimeoutMillis = 30_000;
    private volatile int writeSpinCount = 16;
    private volatile int maxMessagesPerRead = 16;
    private volatile WriteBufferWaterMark waterMark = WriteBufferWaterMark.DEFAULT;

    /** Values of the other supported options; {@code null} until the first is stored (installed by CAS). */
    private volatile ConcurrentHashMap<ChannelOption<?>, Object> others;

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

    /**
     * Stores the value of a supported option that is not a core option, after {@link #apply}; default: in a map
     * created on first use, read back by {@link #getOption}. A subclass that reads such options back from
     * elsewhere (the kernel) overrides this to keep nothing.
     */
    protected void storeOther(ChannelOption<?> option, Object value) {
        ConcurrentHashMap<ChannelOption<?>, Object> map = others;
        if (map == null) {
            ConcurrentHashMap<ChannelOption<?>, Object> fresh = new ConcurrentHashMap<>(4);
            Object witness = OTHERS.compareAndExchange(this, (ConcurrentHashMap<?, ?>) null, fresh);
            @SuppressWarnings("unchecked")
            ConcurrentHashMap<ChannelOption<?>, Object> raced = (ConcurrentHashMap<ChannelOption<?>, Object>) witness;
            map = raced != null ? raced : fresh;
        }
        map.put(option, value);
    }

    /**
     * Called after auto-read was turned off (on the setting thread, after the new value is visible to
     * {@link #isAutoRead()}); default: nothing. Turning it on calls {@link Channel#read()} instead.
     */
    protected void autoReadTurnedOff() {
    }

    /** Called after the water marks changed (on the setting thread, the new value visible); default: nothing. */
    protected void waterMarkChanged(WriteBufferWaterMark waterMark) {
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
        Object v;
        if (option == ChannelOption.ALLOCATOR) {
            v = getAllocator();
        } else if (option == ChannelOption.AUTO_READ) {
            v = autoRead;
        } else if (option == ChannelOption.CONNECT_TIMEOUT_MILLIS) {
            v = connectTimeoutMillis;
        } else if (option == ChannelOption.WRITE_SPIN_COUNT) {
            v = writeSpinCount;
        } else if (option == ChannelOption.WRITE_BUFFER_WATER_MARK) {
            v = waterMark;
        } else if (option == ChannelOption.MAX_MESSAGES_PER_READ) {
            v = maxMessagesPerRead;
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            v = allowHalfClosure;
        } else {
            ConcurrentHashMap<ChannelOption<?>, Object> map = others;
            v = map != null ? map.get(option) : null;
            if (v == null) {
                v = defaultValue(option);
            }
        }
        return v == null ? null : option.valueType().cast(v);
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
        if (option == ChannelOption.AUTO_READ) {
            swapAutoRead((Boolean) valid);
        } else if (option == ChannelOption.ALLOCATOR) {
            allocator = (BufferAllocator) valid;
        } else if (option == ChannelOption.CONNECT_TIMEOUT_MILLIS) {
            connectTimeoutMillis = (Integer) valid;
        } else if (option == ChannelOption.WRITE_SPIN_COUNT) {
            writeSpinCount = (Integer) valid;
        } else if (option == ChannelOption.WRITE_BUFFER_WATER_MARK) {
            waterMark = (WriteBufferWaterMark) valid;
            waterMarkChanged((WriteBufferWaterMark) valid);
        } else if (option == ChannelOption.MAX_MESSAGES_PER_READ) {
            maxMessagesPerRead = (Integer) valid;
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) valid;
        } else {
            storeOther(option, valid);
        }
        return true;
    }

    @Override
    public boolean isAutoRead() {
        return autoRead;
    }

    /**
     * {@link #setOption setOption(AUTO_READ, autoRead)}, without boxing: an echo or relay with back-pressure turns
     * auto-read off and on again at the rate of its writability changes.
     */
    @Override
    public ChannelConfig setAutoRead(boolean autoRead) {
        if (!isSupported(ChannelOption.AUTO_READ)) {
            setOption(ChannelOption.AUTO_READ, autoRead); // says why it is not applied
            return this;
        }
        apply(ChannelOption.AUTO_READ, autoRead);
        swapAutoRead(autoRead);
        return this;
    }

    /**
     * Stores auto-read; an off-to-on change calls {@link Channel#read()} and an on-to-off change
     * {@link #autoReadTurnedOff()}, each once per change also when threads race (the swap is atomic: a short
     * monitor section, cheaper on this path than a {@code VarHandle} that the JIT may not inline).
     */
    private void swapAutoRead(boolean on) {
        boolean was;
        synchronized (this) {
            was = autoRead;
            autoRead = on;
        }
        if (on && !was) {
            channel.read();
        } else if (!on && was) {
            autoReadTurnedOff();
        }
    }

    /** @return the allocator set, else the default resolved once on first use and kept from then on */
    @Override
    public BufferAllocator getAllocator() {
        BufferAllocator a = allocator;
        if (a == null) {
            BufferAllocator resolved = (BufferAllocator) defaultValue(ChannelOption.ALLOCATOR);
            BufferAllocator raced = (BufferAllocator) ALLOCATOR.compareAndExchange(this, (BufferAllocator) null,
                    resolved);
            a = raced != null ? raced : resolved;
        }
        return a;
    }

    /** @return {@link ChannelOption#WRITE_SPIN_COUNT} */
    public int writeSpinCount() {
        return writeSpinCount;
    }

    /** @return {@link ChannelOption#MAX_MESSAGES_PER_READ} */
    public int maxMessagesPerRead() {
        return maxMessagesPerRead;
    }

    /** @return {@link ChannelOption#ALLOW_HALF_CLOSURE} */
    public boolean allowHalfClosure() {
        return allowHalfClosure;
    }

    /** @return {@link ChannelOption#CONNECT_TIMEOUT_MILLIS} */
    public int connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    /** @return {@link ChannelOption#WRITE_BUFFER_WATER_MARK} */
    public WriteBufferWaterMark waterMark() {
        return waterMark;
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
