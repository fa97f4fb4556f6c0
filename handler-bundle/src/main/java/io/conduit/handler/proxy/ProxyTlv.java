package io.conduit.handler.proxy;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One type-length-value field of a version 2 PROXY header. The value is copied in and out. Immutable.
 */
public final class ProxyTlv {

    /** Application-Layer Protocol Negotiation: the protocol name, US-ASCII. */
    public static final int TYPE_ALPN = 0x01;
    /** The host name the client asked for (SNI or Host), UTF-8. */
    public static final int TYPE_AUTHORITY = 0x02;
    /** A CRC32C of the whole header, computed with this value zeroed; 4 bytes, network order. */
    public static final int TYPE_CRC32C = 0x03;
    /** Padding, ignored. */
    public static final int TYPE_NOOP = 0x04;
    /** An opaque id of the connection, at most 128 bytes. */
    public static final int TYPE_UNIQUE_ID = 0x05;
    /** The client's TLS session: see {@link ProxySslInfo}. */
    public static final int TYPE_SSL = 0x20;
    /** The network namespace the connection was accepted in, US-ASCII. */
    public static final int TYPE_NETNS = 0x30;

    private final int type;
    private final byte[] value;

    /**
     * @param type 0 to 255
     * @param value at most 65535 bytes (copied)
     * @throws IllegalArgumentException when the type or the length is out of range
     */
    public ProxyTlv(int type, byte[] value) {
        if (type < 0 || type > 0xFF) {
            throw new IllegalArgumentException("TLV type must be 0 to 255: " + type);
        }
        if (value.length > 0xFFFF) {
            throw new IllegalArgumentException("TLV value must be at most 65535 bytes: " + value.length);
        }
        this.type = type;
        this.value = value.clone();
    }

    public int type() {
        return type;
    }

    /** @return a copy of the value */
    public byte[] value() {
        return value.clone();
    }

    /** @return the length of the value in bytes */
    public int length() {
        return value.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProxyTlv t && type == t.type && Arrays.equals(value, t.value);
    }

    @Override
    public int hashCode() {
        return 31 * type + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return String.format("TLV(0x%02x, %s)", type, HexFormat.of().formatHex(value));
    }
}
