package io.conduit.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** The UDP payload limits by IP version and the wording of a datagram refused as too long. */
class DatagramLimitsTest {

    private static InetSocketAddress at(String address) throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(address), 9);
    }

    @Test
    void ipv4AndIpv4MappedRecipientsHaveTheIpv4LimitOthersTheIpv6One() throws UnknownHostException {
        assertEquals(65_507, DatagramLimits.maxUdpPayloadBytes(at("127.0.0.1")));
        assertEquals(65_507, DatagramLimits.maxUdpPayloadBytes(at("::ffff:127.0.0.1")));
        assertEquals(65_527, DatagramLimits.maxUdpPayloadBytes(at("::1")));
    }

    @Test
    void theMessageNamesTheLengthAndTheLimitOfTheRecipientsIpVersion() throws UnknownHostException {
        assertEquals("a UDP datagram of 65528 bytes is longer than UDP over IPv6 carries (at most 65527 bytes): send"
                + " shorter datagrams", DatagramLimits.udpTooLong(65_528, at("::1")));
        String unknown = DatagramLimits.udpTooLong(70_000, null);
        assertTrue(unknown.contains("70000 bytes") && unknown.contains("65507") && unknown.contains("65527"), unknown);
    }

    @Test
    void aDatagramWithinTheLimitWasRefusedByThePathMtu() throws UnknownHostException {
        String m = DatagramLimits.udpTooLong(9_000, at("127.0.0.1"));
        assertTrue(m.startsWith("a UDP datagram of 9000 bytes is longer than the path MTU to /127.0.0.1:9 allows")
                && m.contains("IP_MTU_DISCOVER"), m);
    }
}
