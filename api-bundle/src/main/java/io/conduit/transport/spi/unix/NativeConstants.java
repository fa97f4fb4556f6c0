package io.conduit.transport.spi.unix;

import java.util.HashMap;
import java.util.Map;

/**
 * SPI for transport implementers: the named constants a native library publishes at load time (never
 * hard-coded) — struct sizes and offsets, flags, errno and socket-option numbers — as read from its index-aligned
 * {@code constantNames()} / {@code constantValues()} tables. Nothing is hard-coded: the values differ between
 * Linux, macOS and FreeBSD and between architectures. The constants every Unix library publishes (from the
 * shared {@code conduit_unix.c}) are read by {@link UnixErrors} and {@link SockaddrCodec}; each transport reads
 * its own (e.g. {@code EPOLLIN}, {@code KEVENT_SIZE}) with {@link #get}.
 *
 * <p>Immutable; thread-safe.
 */
public final class NativeConstants {

    /** name → value, never modified after construction */
    private final Map<String, Integer> values;
    /** who publishes them, for messages, e.g. {@code "io.conduit.epoll"} */
    private final String owner;

    private NativeConstants(Map<String, Integer> values, String owner) {
        this.values = values;
        this.owner = owner;
    }

    /**
     * @param names  the library's constant names
     * @param values their values, index-aligned with {@code names}
     * @param owner  the bundle the library belongs to, named in error messages, e.g. {@code "io.conduit.epoll"}
     * @return the table
     * @throws IllegalStateException when the arrays differ in length (library and bundle do not match)
     */
    public static NativeConstants of(String[] names, int[] values, String owner) {
        if (names.length != values.length) {
            throw new IllegalStateException("native constant tables differ in length: " + names.length
                    + " names, " + values.length + " values; the library does not match the " + owner + " bundle");
        }
        Map<String, Integer> map = new HashMap<>(names.length * 2);
        for (int i = 0; i < names.length; i++) {
            map.put(names[i], values[i]);
        }
        return new NativeConstants(map, owner);
    }

    /**
     * @return the value of the named constant
     * @throws IllegalStateException when the library does not publish it (library and bundle do not match)
     */
    public int get(String name) {
        Integer value = values.get(name);
        if (value == null) {
            throw new IllegalStateException("the native library publishes no constant " + name
                    + ": the library and the " + owner + " bundle come from different builds");
        }
        return value;
    }

    /** @return a copy of every constant, for diagnostics */
    public Map<String, Integer> asMap() {
        return Map.copyOf(values);
    }
}
