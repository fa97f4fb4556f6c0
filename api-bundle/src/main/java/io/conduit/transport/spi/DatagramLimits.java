package io.conduit.transport.spi;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The largest UDP payloads and the text of the error for a datagram longer than that, one wording for every transport.
 *
 * <p>A UDP datagram's length field has 16 bits (RFC 768), so with its 8-byte header a payload has at most 65,527
 * bytes; over IPv4 the 16-bit total length also counts the 20-byte IP header (RFC 791), leaving 65,507. Linux refuses
 * a longer send with {@code EMSGSIZE} ("Message too long", {@code udp(7)}, {@code ip(7)}); it also does so for a
 * datagram longer than the path MTU on a socket that does not fragment ({@code IP_MTU_DISCOVER} {@code do}/
 * {@code probe}, {@code IPV6_DONTFRAG}). Stateless and thread-safe.
 *
 * @since 0.6.0
 */
public final class DatagramLimits {

    /** Largest UDP payload over IPv4, in bytes: 65,535 less the 20-byte IPv4 header and the 8-byte UDP header. */
    public static final int MAX_UDP_PAYLOAD_IPV4_BYTES = 65_507;
    /** Largest UDP payload over IPv6 (no jumbograms), in bytes: 65,535 less the 8-byte UDP header. */
    public static final int MAX_UDP_PAYLOAD_IPV6_BYTES = 65_527;

    private DatagramLimits() {
    }

    /**
     * @param recipient where the datagram goes; an {@link InetSocketAddress} of an IPv4 address (or an IPv4-mapped
     *                  one, which Java reads as IPv4) means IPv4, any other address IPv6
     * @return the largest UDP payload to {@code recipient}, in bytes
     */
    public static int maxUdpPayloadBytes(SocketAddress recipient) {
        return isIpv4(recipient) ? MAX_UDP_PAYLOAD_IPV4_BYTES : MAX_UDP_PAYLOAD_IPV6_BYTES;
    }

    /**
     * @param lengthBytes the refused datagram's payload length, bytes
     * @param recipient   where it was going ({@code null}: unknown, both limits are named)
     * @return why a UDP datagram of {@code lengthBytes} was refused as too long, e.g. {@code "a UDP datagram of 70000
     *         bytes is longer than UDP over IPv4 carries (at most 65507 bytes): send shorter datagrams"}; for a length
     *         within that limit, that it exceeds the path MTU on a socket that does not fragment
     */
    public static String udpTooLong(int lengthBytes, SocketAddress recipient) {
        String what = "a UDP datagram of " + lengthBytes + " bytes";
        if (recipient == null) {
            return what + " is too long to send (UDP carries at most " + MAX_UDP_PAYLOAD_IPV4_BYTES + " bytes over"
                    + " IPv4, " + MAX_UDP_PAYLOAD_IPV6_BYTES + " over IPv6): send shorter datagrams";
        }
        int max = maxUdpPayloadBytes(recipient);
        if (lengthBytes > max) {
            return what + " is longer than UDP over " + (isIpv4(recipient) ? "IPv4" : "IPv6") + " carries (at most "
                    + max + " bytes): send shorter datagrams";
        }
        return what + " is longer than the path MTU to " + recipient + " allows, and this socket does not fragment"
                + " (IP_MTU_DISCOVER or IPV6_DONTFRAG): send shorter datagrams, or let the socket fragment";
    }

    private static boolean isIpv4(SocketAddress address) {
        return address instanceof InetSocketAddress i && i.getAddress() instanceof Inet4Address;
    }
}
