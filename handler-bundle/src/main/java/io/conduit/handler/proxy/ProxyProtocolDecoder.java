package io.conduit.handler.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.handler.codec.ByteToMessageDecoder;
import io.conduit.handler.logging.RateLimitedLog;

/**
 * Reads the PROXY protocol header that a load balancer (HAProxy, nginx, AWS NLB, …) sends before a relayed
 * connection's data, as HAProxy's proxy-protocol.txt specifies: version 1 (text, at most 107 bytes) and version 2
 * (binary, with TLVs; a CRC32C TLV is checked). Add it first to each accepted channel's pipeline.
 *
 * <p>After a valid header the decoder fires the {@link ProxyMessage} as a user event, replaces itself with a
 * handler that keeps it for the channel's life ({@link ProxyMessage#of(Channel)} reads it), and passes the bytes
 * after the header on unchanged. The channel's own {@code remoteAddress()} and {@code localAddress()} stay the
 * socket's (the load balancer's connection): handlers that need the client's address read the message.
 *
 * <p>Malformed input — a wrong signature, an unsupported version, a length that does not fit, a bad address, a
 * TLV that overruns the header, a CRC32C mismatch, or end of input before the header is complete — closes the
 * connection and passes nothing on: no event, no byte, no exception. Each such connection is logged as a
 * {@code WARNING} on the {@code System.Logger} {@code io.conduit.handler.proxy.ProxyProtocolDecoder} naming the
 * peer and what was wrong, at most one line per 10 s with the count of those not shown.
 *
 * <p>One instance per channel; runs on the channel's executor.
 */
public class ProxyProtocolDecoder extends ByteToMessageDecoder {

    /** Which versions a listener accepts. */
    public enum Versions {
        /** Only the text version 1. */
        V1,
        /** Only the binary version 2. */
        V2,
        /** Either; the first byte tells them apart. */
        ANY
    }

    /** The 12-byte signature that starts every version 2 header. */
    static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    static final byte[] V1_PREFIX = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    /** The longest version 1 header, CRLF included. */
    static final int V1_MAX_LENGTH = 107;
    static final int V2_FIXED_LENGTH = 16;

    private static final System.Logger LOG = System.getLogger(ProxyProtocolDecoder.class.getName());
    private static final RateLimitedLog MALFORMED = new RateLimitedLog(LOG, System.Logger.Level.WARNING);
    private static final Pattern IPV4 = Pattern.compile(
            "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    private static final Pattern PORT = Pattern.compile("0|[1-9]\\d{0,4}");

    private final Versions versions;
    private final RateLimitedLog malformed;
    /** The header was malformed: everything after it is dropped. Confined to the channel's executor. */
    private boolean failed;

    /** Accepts both versions. */
    public ProxyProtocolDecoder() {
        this(Versions.ANY);
    }

    /** @param versions the versions to accept; a header of another version is malformed */
    public ProxyProtocolDecoder(Versions versions) {
        this(versions, MALFORMED);
    }

    /** For tests: logs malformed headers through {@code malformed}. */
    ProxyProtocolDecoder(Versions versions, RateLimitedLog malformed) {
        this.versions = Objects.requireNonNull(versions, "versions");
        this.malformed = Objects.requireNonNull(malformed, "malformed");
        setSingleDecode(true);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        ProxyMessage message;
        try {
            message = tryDecode(in);
        } catch (MalformedHeader e) {
            fail(ctx, in, e.getMessage());
            return;
        }
        if (message != null) {
            ctx.fireUserEventTriggered(message);
            ctx.pipeline().replace(ctx.name(), null, new ProxiedConnection(message));
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, Buffer in, List<Object> out) throws Exception {
        int readable = in.readableBytes();
        if (failed || readable == 0) {
            in.skipBytes(readable);
            return;
        }
        decode(ctx, in, out);
        if (!failed && !ctx.isRemoved()) {
            fail(ctx, in, "truncated: the input ended after " + readable + " bytes of the header");
        }
    }

    /** @return the message, or {@code null} when more bytes are needed */
    private ProxyMessage tryDecode(Buffer in) throws MalformedHeader {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        boolean maybeV1 = versions != Versions.V2 && prefixMatches(in, start, readable, V1_PREFIX);
        boolean maybeV2 = versions != Versions.V1 && prefixMatches(in, start, readable, V2_SIGNATURE);
        if (!maybeV1 && !maybeV2) {
            throw new MalformedHeader("wrong signature: no PROXY protocol " + (versions == Versions.ANY ? "v1 or v2"
                    : versions == Versions.V1 ? "v1" : "v2") + " header at the start of the connection");
        }
        if (maybeV1 && readable >= V1_PREFIX.length) {
            return decodeV1(in, start, readable);
        }
        if (maybeV2 && readable >= V2_SIGNATURE.length) {
            return decodeV2(in, start, readable);
        }
        return null;
    }

    private static boolean prefixMatches(Buffer in, int start, int readable, byte[] prefix) {
        int n = Math.min(readable, prefix.length);
        for (int i = 0; i < n; i++) {
            if (in.getByte(start + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static ProxyMessage decodeV1(Buffer in, int start, int readable) throws MalformedHeader {
        int limit = Math.min(readable, V1_MAX_LENGTH);
        int lf = -1;
        for (int i = V1_PREFIX.length; i < limit; i++) {
            if (in.getByte(start + i) == '\n') {
                lf = i;
                break;
            }
        }
        if (lf < 0) {
            if (readable >= V1_MAX_LENGTH) {
                throw new MalformedHeader("v1 header has no CRLF within " + V1_MAX_LENGTH + " bytes");
            }
            return null;
        }
        if (in.getByte(start + lf - 1) != '\r') {
            throw new MalformedHeader("v1 header ends in LF without CR");
        }
        byte[] line = new byte[lf - 1];
        in.getBytes(start, line, 0, line.length);
        in.skipBytes(lf + 1);
        return parseV1(new String(line, StandardCharsets.US_ASCII));
    }

    static ProxyMessage parseV1(String line) throws MalformedHeader {
        String[] f = line.split(" ", -1);
        if (f.length >= 2 && f[1].equals("UNKNOWN")) {
            return new ProxyMessage(1, ProxyMessage.Command.PROXY, ProxyMessage.Protocol.UNKNOWN, null, null,
                    List.of());
        }
        if (f.length != 6) {
            throw new MalformedHeader("v1 header has " + f.length + " fields, not 6: '" + printable(line) + "'");
        }
        boolean v6 = f[1].equals("TCP6");
        if (!v6 && !f[1].equals("TCP4")) {
            throw new MalformedHeader("v1 protocol '" + printable(f[1]) + "' is not TCP4, TCP6 or UNKNOWN");
        }
        InetAddress src = v1Address(f[2], v6);
        InetAddress dst = v1Address(f[3], v6);
        return new ProxyMessage(1, ProxyMessage.Command.PROXY, v6 ? ProxyMessage.Protocol.TCP6
                : ProxyMessage.Protocol.TCP4, new InetSocketAddress(src, v1Port(f[4])),
                new InetSocketAddress(dst, v1Port(f[5])), List.of());
    }

    private static InetAddress v1Address(String text, boolean v6) throws MalformedHeader {
        boolean ok = v6 ? IPV6_CHARS.matcher(text).matches() && text.indexOf(':') >= 0 : IPV4.matcher(text).matches();
        if (ok) {
            try {
                InetAddress a = InetAddress.getByName(text); // a literal: no name lookup
                if (v6 == (a instanceof java.net.Inet6Address)) {
                    return a;
                }
            } catch (UnknownHostException e) {
                // falls through to the exception below
            }
        }
        throw new MalformedHeader("v1 address '" + printable(text) + "' is not an IPv" + (v6 ? "6" : "4") + " literal");
    }

    private static int v1Port(String text) throws MalformedHeader {
        if (PORT.matcher(text).matches()) {
            int port = Integer.parseInt(text);
            if (port <= 65535) {
                return port;
            }
        }
        throw new MalformedHeader("v1 port '" + printable(text) + "' is not 0 to 65535");
    }

    private static ProxyMessage decodeV2(Buffer in, int start, int readable) throws MalformedHeader {
        if (readable < V2_FIXED_LENGTH) {
            return null;
        }
        int verCmd = in.getByte(start + 12) & 0xFF;
        int famProto = in.getByte(start + 13) & 0xFF;
        int length = in.getShort(start + 14) & 0xFFFF;
        if ((verCmd >>> 4) != 2) {
            throw new MalformedHeader("v2 version nibble is " + (verCmd >>> 4) + ", not 2");
        }
        int cmd = verCmd & 0x0F;
        if (cmd > 1) {
            throw new MalformedHeader("v2 command " + cmd + " is neither LOCAL (0) nor PROXY (1)");
        }
        ProxyMessage.Protocol protocol = v2Protocol(famProto);
        int addressLength = switch (famProto >>> 4) {
            case 1 -> 12;
            case 2 -> 36;
            case 3 -> 216;
            default -> 0;
        };
        if (length < addressLength) {
            throw new MalformedHeader("v2 length " + length + " is shorter than the " + addressLength
                    + " address bytes of family " + (famProto >>> 4));
        }
        if (readable < V2_FIXED_LENGTH + length) {
            return null;
        }
        byte[] header = new byte[V2_FIXED_LENGTH + length];
        in.getBytes(start, header, 0, header.length);
        List<ProxyTlv> tlvs = v2Tlvs(header, V2_FIXED_LENGTH + addressLength);
        in.skipBytes(header.length);
        ProxyMessage.Command command = cmd == 0 ? ProxyMessage.Command.LOCAL : ProxyMessage.Command.PROXY;
        if (command == ProxyMessage.Command.LOCAL || protocol == ProxyMessage.Protocol.UNKNOWN) {
            return new ProxyMessage(2, command, command == ProxyMessage.Command.LOCAL ? protocol
                    : ProxyMessage.Protocol.UNKNOWN, null, null, tlvs);
        }
        SocketAddress[] addresses = v2Addresses(header, famProto >>> 4);
        return new ProxyMessage(2, command, protocol, addresses[0], addresses[1], tlvs);
    }

    private static ProxyMessage.Protocol v2Protocol(int famProto) throws MalformedHeader {
        int family = famProto >>> 4;
        int transport = famProto & 0x0F;
        if (family > 3 || transport > 2) {
            throw new MalformedHeader(String.format("v2 family/transport byte 0x%02x is not defined", famProto));
        }
        if (family == 0 || transport == 0) {
            return ProxyMessage.Protocol.UNKNOWN;
        }
        return switch (family) {
            case 1 -> transport == 1 ? ProxyMessage.Protocol.TCP4 : ProxyMessage.Protocol.UDP4;
            case 2 -> transport == 1 ? ProxyMessage.Protocol.TCP6 : ProxyMessage.Protocol.UDP6;
            default -> transport == 1 ? ProxyMessage.Protocol.UNIX_STREAM : ProxyMessage.Protocol.UNIX_DGRAM;
        };
    }

    private static SocketAddress[] v2Addresses(byte[] h, int family) throws MalformedHeader {
        int at = V2_FIXED_LENGTH;
        try {
            if (family == 1 || family == 2) {
                int n = family == 1 ? 4 : 16;
                InetAddress src = InetAddress.getByAddress(java.util.Arrays.copyOfRange(h, at, at + n));
                InetAddress dst = InetAddress.getByAddress(java.util.Arrays.copyOfRange(h, at + n, at + 2 * n));
                int srcPort = ((h[at + 2 * n] & 0xFF) << 8) | (h[at + 2 * n + 1] & 0xFF);
                int dstPort = ((h[at + 2 * n + 2] & 0xFF) << 8) | (h[at + 2 * n + 3] & 0xFF);
                return new SocketAddress[] {new InetSocketAddress(src, srcPort), new InetSocketAddress(dst, dstPort)};
            }
        } catch (UnknownHostException e) {
            throw new MalformedHeader("v2 address: " + e.getMessage());
        }
        return new SocketAddress[] {unixAddress(h, at), unixAddress(h, at + 108)};
    }

    /** A 108-byte sun_path: a file path up to its NUL, or an abstract name (leading NUL) up to the last non-NUL. */
    private static SocketAddress unixAddress(byte[] h, int at) throws MalformedHeader {
        if (h[at] == 0) {
            int end = at + 108;
            while (end > at + 1 && h[end - 1] == 0) {
                end--;
            }
            if (end == at + 1) {
                throw new MalformedHeader("v2 Unix address is empty");
            }
            return UnixAbstractAddress.of(java.util.Arrays.copyOfRange(h, at + 1, end));
        }
        int end = at;
        while (end < at + 108 && h[end] != 0) {
            end++;
        }
        return UnixDomainSocketAddress.of(new String(h, at, end - at, StandardCharsets.UTF_8));
    }

    /** Parses the TLVs after the addresses and checks a CRC32C TLV against the header. */
    private static List<ProxyTlv> v2Tlvs(byte[] h, int from) throws MalformedHeader {
        List<ProxyTlv> tlvs = new ArrayList<>();
        int crcValueAt = -1;
        int i = from;
        while (i < h.length) {
            if (h.length - i < 3) {
                throw new MalformedHeader("v2 TLV header at offset " + i + " is cut short by the header length");
            }
            int type = h[i] & 0xFF;
            int len = ((h[i + 1] & 0xFF) << 8) | (h[i + 2] & 0xFF);
            if (h.length - i - 3 < len) {
                throw new MalformedHeader(String.format("v2 TLV 0x%02x of %d bytes overruns the header", type, len));
            }
            byte[] value = java.util.Arrays.copyOfRange(h, i + 3, i + 3 + len);
            if (type == ProxyTlv.TYPE_CRC32C) {
                if (len != 4) {
                    throw new MalformedHeader("v2 CRC32C TLV has " + len + " bytes, not 4");
                }
                crcValueAt = i + 3;
            } else if (type == ProxyTlv.TYPE_UNIQUE_ID && len > 128) {
                throw new MalformedHeader("v2 unique id TLV has " + len + " bytes, more than 128");
            } else if (type == ProxyTlv.TYPE_SSL) {
                try {
                    ProxySslInfo.parse(new ProxyTlv(type, value));
                } catch (IllegalArgumentException e) {
                    throw new MalformedHeader("v2 " + e.getMessage());
                }
            }
            tlvs.add(new ProxyTlv(type, value));
            i += 3 + len;
        }
        if (crcValueAt >= 0) {
            long expected = ((h[crcValueAt] & 0xFFL) << 24) | ((h[crcValueAt + 1] & 0xFF) << 16)
                    | ((h[crcValueAt + 2] & 0xFF) << 8) | (h[crcValueAt + 3] & 0xFF);
            long actual = crc32c(h, crcValueAt);
            if (expected != actual) {
                throw new MalformedHeader(String.format("v2 CRC32C mismatch: header says %08x, content gives %08x",
                        expected, actual));
            }
        }
        return tlvs;
    }

    /** CRC32C of {@code header} with the 4 bytes at {@code zeroedAt} counted as zeros. */
    static long crc32c(byte[] header, int zeroedAt) {
        CRC32C crc = new CRC32C();
        crc.update(header, 0, zeroedAt);
        crc.update(new byte[4]);
        crc.update(header, zeroedAt + 4, header.length - zeroedAt - 4);
        return crc.getValue();
    }

    private void fail(ChannelHandlerContext ctx, Buffer in, String reason) {
        failed = true;
        in.skipBytes(in.readableBytes());
        Object from = ctx.channel().remoteAddress();
        Object on = ctx.channel().localAddress();
        malformed.occurred(() -> "malformed PROXY protocol header from " + from + " on " + on + ": " + reason
                + "; closed the connection, nothing was passed on");
        ctx.close();
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c >= 0x20 && c < 0x7F ? c : '?');
            if (b.length() >= 64) {
                return b.append('…').toString();
            }
        }
        return b.toString();
    }

    /** Why a header is malformed; never leaves this class. */
    static final class MalformedHeader extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedHeader(String message) {
            super(message, null, false, false);
        }
    }
}
