package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

import io.conduit.gateway.internal.config.GatewayConfig;
import io.conduit.transport.ChannelType;
import org.junit.jupiter.api.Test;

class GatewayUriTest {

    @Test
    void parsesTcpUdpAndUnixEndpoints() {
        GatewayUri tcp = GatewayUri.parse(" tcp://127.0.0.1:7007 ");
        assertEquals(GatewayUri.Kind.TCP, tcp.kind());
        assertEquals("127.0.0.1", tcp.host());
        assertEquals(7007, tcp.port());
        assertEquals(ChannelType.TCP, tcp.channelType());
        assertEquals("tcp://127.0.0.1:7007", tcp.toString());

        GatewayUri udp = GatewayUri.parse("UDP://localhost:0");
        assertEquals(ChannelType.UDP, udp.channelType());
        assertFalse(udp.kind().isStream());

        GatewayUri unix = GatewayUri.parse("unix:/tmp/echo.sock");
        assertEquals(Path.of("/tmp/echo.sock"), unix.path());
        assertEquals(ChannelType.UNIX_STREAM, unix.channelType());
        assertEquals(UnixDomainSocketAddress.of("/tmp/echo.sock"), unix.toSocketAddress("nio"));

        GatewayUri v6 = GatewayUri.parse("tcp://[::1]:80");
        assertEquals("::1", v6.host());
        assertEquals("tcp://[::1]:80", v6.toString());
    }

    @Test
    void tlsEndpointsAreTcpEndpointsThatSpeakTls() {
        GatewayUri tls = GatewayUri.parse("TLS://127.0.0.1:8443");
        assertEquals(GatewayUri.Kind.TCP, tls.kind());
        assertTrue(tls.tls());
        assertEquals(ChannelType.TCP, tls.channelType());
        assertEquals("tls://127.0.0.1:8443", tls.toString());
        assertEquals("tls://127.0.0.1:40123", tls.describeBound(new InetSocketAddress("127.0.0.1", 40123)));
        assertFalse(GatewayUri.parse("tcp://127.0.0.1:8443").tls());
        assertFalse(GatewayUri.parse("tcp://127.0.0.1:8443").equals(tls));
        assertEquals("\"tls:/x:1\": expected tls://host:port",
                assertThrows(IllegalArgumentException.class, () -> GatewayUri.parse("tls:/x:1")).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new GatewayUri(GatewayUri.Kind.UDP, "127.0.0.1", 1, null, null, true));
    }

    @Test
    void resolvesInetAddresses() {
        InetSocketAddress a = (InetSocketAddress) GatewayUri.parse("tcp://127.0.0.1:9").toSocketAddress("nio");
        assertEquals(9, a.getPort());
        assertTrue(a.getAddress().isLoopbackAddress());
    }

    @Test
    void abstractUnixNamesParseButTheNioTransportCannotBindThem() {
        GatewayUri abs = GatewayUri.parse("unix:@conduit-echo");
        assertTrue(abs.isAbstract());
        assertEquals("unix:@conduit-echo", abs.toString());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> abs.toSocketAddress("nio"));
        assertTrue(e.getMessage().contains("abstract Unix socket names are not supported by transport 'nio'"),
                e.getMessage());
    }

    @Test
    void malformedUrisNameTheTextAndTheProblem() {
        assertMessage("tcp://127.0.0.1:70000", "port 70000 is out of range 0..65535");
        assertMessage("tcp://127.0.0.1", "missing port");
        assertMessage("tcp://:80", "missing host");
        assertMessage("tcp://host:http", "port 'http' is not a number");
        assertMessage("sctp://host:1", "unknown scheme 'sctp'");
        assertMessage("127.0.0.1:80", "unknown scheme '127.0.0.1'");
        assertMessage("tcp:host:80", "expected tcp://host:port");
        assertMessage("tcp://::1:80", "must be in brackets");
        assertMessage("unix:relative.sock", "must be absolute");
        assertMessage("unix://tmp/x", "one slash");
        assertMessage("unix:@", "empty abstract socket name");
        assertMessage("unix:/" + "x".repeat(120), "longer than the 107 bytes");
        assertMessage("tcp://h:1/path", "no path");
        assertThrows(IllegalArgumentException.class, () -> GatewayUri.parse(""));
    }

    @Test
    void severalCommaSeparatedUrisAreReportedAsSuch() {
        assertMessage("tcp://127.0.0.1:7007, tcp://[::1]:7007", "takes one endpoint URI; got 2");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GatewayConfig.uri(
                java.util.Map.of("listen", "tcp://127.0.0.1:1,tcp://127.0.0.1:2"), "listen", "tcp://127.0.0.1:1"));
        assertTrue(e.getMessage().startsWith("'listen' takes one endpoint URI; got 2: tcp://127.0.0.1:1,"),
                e.getMessage());
        assertFalse(e.getMessage().contains("brackets"), e.getMessage());
    }

    @Test
    void unresolvableHostIsReported() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GatewayUri.parse("tcp://no-such-host.invalid:1").toSocketAddress("nio"));
        assertTrue(e.getMessage().contains("does not resolve"), e.getMessage());
    }

    @Test
    void describesTheBoundPort() {
        GatewayUri any = GatewayUri.parse("tcp://127.0.0.1:0");
        assertEquals("tcp://127.0.0.1:4242", any.describeBound(new InetSocketAddress("127.0.0.1", 4242)));
        GatewayUri unix = GatewayUri.parse("unix:/tmp/a.sock");
        assertEquals("unix:/tmp/a.sock", unix.describeBound(UnixDomainSocketAddress.of("/tmp/a.sock")));
    }

    private static void assertMessage(String uri, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GatewayUri.parse(uri));
        assertTrue(e.getMessage().contains(expected), () -> uri + " -> " + e.getMessage());
        assertTrue(e.getMessage().contains(uri.strip()), () -> "names the text: " + e.getMessage());
    }
}
