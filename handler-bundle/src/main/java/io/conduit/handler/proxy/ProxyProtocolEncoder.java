package io.conduit.handler.proxy;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.handler.codec.EncoderException;
import io.conduit.handler.codec.MessageToByteEncoder;

/**
 * Writes a {@link ProxyMessage} as a PROXY protocol header (HAProxy's proxy-protocol.txt) in the message's
 * version: the text line of version 1, or the binary version 2 with its TLVs. Write it first on a connection to
 * an upstream that expects the header, before any data. With {@code crc32c} on, a version 2 header gets a CRC32C
 * TLV at its end (replacing one the message had).
 *
 * <p>Errors: a message that cannot be encoded (a Unix path longer than 108 bytes, a header over 65535 bytes)
 * fails the write's promise with an {@link EncoderException}. Sharable: it keeps no per-channel state.
 */
@ChannelHandler.Sharable
public class ProxyProtocolEncoder extends MessageToByteEncoder<ProxyMessage> {

    private final boolean crc32c;

    /** Without a CRC32C TLV. */
    public ProxyProtocolEncoder() {
        this(false);
    }

    /** @param crc32c {@code true} to add a CRC32C TLV to version 2 headers */
    public ProxyProtocolEncoder(boolean crc32c) {
        super(ProxyMessage.class);
        this.crc32c = crc32c;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ProxyMessage msg, Buffer out) {
        encode(msg, crc32c, out);
    }

    @Override
    protected int sizeHint(ProxyMessage msg) {
        return msg.version() == 1 ? ProxyProtocolDecoder.V1_MAX_LENGTH : 64;
    }

    /**
     * Writes {@code msg} as a header into {@code out}.
     *
     * @throws EncoderException when the message cannot be encoded
     */
    public static void encode(ProxyMessage msg, boolean crc32c, Buffer out) {
        if (msg.version() == 1) {
            out.writeBytes(v1Line(msg).getBytes(StandardCharsets.US_ASCII));
        } else {
            out.writeBytes(v2Header(msg, crc32c));
        }
    }

    static String v1Line(ProxyMessage msg) {
        if (msg.protocol() == ProxyMessage.Protocol.UNKNOWN) {
            return "PROXY UNKNOWN\r\n";
        }
        InetSocketAddress src = (InetSocketAddress) msg.sourceAddress();
        InetSocketAddress dst = (InetSocketAddress) msg.destinationAddress();
        return "PROXY " + msg.protocol() + " " + literal(src) + " " + literal(dst) + " " + src.getPort() + " "
                + dst.getPort() + "\r\n";
    }

    private static String literal(InetSocketAddress a) {
        String s = a.getAddress().getHostAddress();
        int scope = s.indexOf('%');
        return scope >= 0 ? s.substring(0, scope) : s;
    }

    static byte[] v2Header(ProxyMessage msg, boolean crc32c) {
        java.io.ByteArrayOutputStream h = new java.io.ByteArrayOutputStream(64);
        h.writeBytes(ProxyProtocolDecoder.V2_SIGNATURE);
        h.write(0x20 | (msg.command() == ProxyMessage.Command.PROXY ? 1 : 0));
        h.write(familyTransport(msg.protocol()));
        h.write(0); // length, set below
        h.write(0);
        if (msg.sourceAddress() != null) {
            writeAddresses(h, msg.sourceAddress(), msg.destinationAddress());
        }
        for (ProxyTlv t : msg.tlvs()) {
            if (crc32c && t.type() == ProxyTlv.TYPE_CRC32C) {
                continue;
            }
            writeTlv(h, t.type(), t.value());
        }
        if (crc32c) {
            writeTlv(h, ProxyTlv.TYPE_CRC32C, new byte[4]);
        }
        byte[] header = h.toByteArray();
        int length = header.length - ProxyProtocolDecoder.V2_FIXED_LENGTH;
        if (length > 0xFFFF) {
            throw new EncoderException("PROXY v2 header of " + length + " bytes after the fixed part; at most 65535");
        }
        header[14] = (byte) (length >>> 8);
        header[15] = (byte) length;
        if (crc32c) {
            int at = header.length - 4;
            long crc = ProxyProtocolDecoder.crc32c(header, at);
            for (int i = 0; i < 4; i++) {
                header[at + i] = (byte) (crc >>> (24 - 8 * i));
            }
        }
        return header;
    }

    private static int familyTransport(ProxyMessage.Protocol p) {
        return switch (p) {
            case UNKNOWN -> 0x00;
            case TCP4 -> 0x11;
            case UDP4 -> 0x12;
            case TCP6 -> 0x21;
            case UDP6 -> 0x22;
            case UNIX_STREAM -> 0x31;
            case UNIX_DGRAM -> 0x32;
        };
    }

    private static void writeAddresses(java.io.ByteArrayOutputStream h, SocketAddress src, SocketAddress dst) {
        if (src instanceof InetSocketAddress s && dst instanceof InetSocketAddress d) {
            h.writeBytes(s.getAddress().getAddress());
            h.writeBytes(d.getAddress().getAddress());
            h.write(s.getPort() >>> 8);
            h.write(s.getPort());
            h.write(d.getPort() >>> 8);
            h.write(d.getPort());
            return;
        }
        h.writeBytes(sunPath(src));
        h.writeBytes(sunPath(dst));
    }

    private static byte[] sunPath(SocketAddress a) {
        byte[] path = new byte[108];
        byte[] name;
        int at = 0;
        if (a instanceof UnixAbstractAddress abs) {
            name = abs.bytes();
            at = 1; // abstract: a leading NUL
        } else if (a instanceof UnixDomainSocketAddress u) {
            name = u.getPath().toString().getBytes(StandardCharsets.UTF_8);
        } else {
            throw new EncoderException("address " + a + " is neither an InetSocketAddress nor a Unix socket address");
        }
        if (at + name.length > 108) {
            throw new EncoderException("Unix address " + a + " is longer than the 108 bytes of sun_path");
        }
        System.arraycopy(name, 0, path, at, name.length);
        return path;
    }

    private static void writeTlv(java.io.ByteArrayOutputStream h, int type, byte[] value) {
        h.write(type);
        h.write(value.length >>> 8);
        h.write(value.length);
        h.writeBytes(value);
    }
}
