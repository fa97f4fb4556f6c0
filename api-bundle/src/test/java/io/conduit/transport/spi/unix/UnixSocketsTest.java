package io.conduit.transport.spi.unix;

import static io.conduit.transport.spi.unix.FakeSocketLibrary.AF_INET;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.AF_INET6;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.AF_UNIX;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.EADDRINUSE;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.EAFNOSUPPORT;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.EINVAL;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.ENOTCONN;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPPROTO_IPV6;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPV6_V6ONLY;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.SHUT_RD;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.SHUT_WR;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.AddressBindException;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.PeerCredentials;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The socket logic the Unix transports share, over a recording stand-in for their natives. */
class UnixSocketsTest {

    private static final int FD = 7;
    private static final int STREAM = 1 | 0x800; // SOCK_STREAM | SOCK_NONBLOCK as the caller passes them

    private final FakeSocketLibrary library = new FakeSocketLibrary();
    private final UnixSockets sockets = sockets(true);

    private UnixSockets sockets(boolean abstractNames) {
        NativeConstants constants = FakeSocketLibrary.constants();
        UnixSockets s = new UnixSockets(constants, FakeSocketLibrary::strerror, abstractNames, library,
                SocketOptionTable.builder(constants)
                        .option(ChannelOption.TCP_NODELAY, "IPPROTO_TCP", "TCP_NODELAY", SocketOptionTable.TCP)
                        .build());
        library.codec = s.sockaddr();
        return s;
    }

    private SocketAddress boundAddress(FakeSocketLibrary.Call bind) {
        return sockets.sockaddr().decode(SockaddrCodec.wrap(bind.bytes()), 0, bind.args().get(1));
    }

    @Test
    void anIpSocketIsDualStackIpv6() throws IOException {
        library.answer("socket", FD);
        assertArrayEquals(new int[] {FD, AF_INET6}, sockets.openInet(STREAM));
        assertEquals(List.of(List.of(AF_INET6, STREAM, 0), List.of(FD, IPPROTO_IPV6, IPV6_V6ONLY, 0)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());
    }

    @Test
    void withoutIpv6TheSocketIsIpv4() throws IOException {
        library.answer("socket", -EAFNOSUPPORT, FD);
        assertArrayEquals(new int[] {FD, AF_INET}, sockets.openInet(STREAM));
        assertEquals(List.of("socket", "socket"), library.callNames());
        assertEquals(List.of(AF_INET, STREAM, 0), library.calls.get(1).args());
    }

    @Test
    void aFailedDualStackSetupClosesTheSocket() {
        library.answer("socket", FD);
        library.answer("setsockoptInt", -EINVAL);
        IOException e = assertThrows(IOException.class, () -> sockets.openInet(STREAM));
        assertEquals("setsockopt(IPV6_V6ONLY)(..) failed: error 22 (errno 22)", e.getMessage());
        assertEquals(List.of("socket", "setsockoptInt", "close"), library.callNames());
        assertEquals(List.of(FD), library.calls.get(2).args());
    }

    @Test
    void eitherFamilyOpensWithItsFamilyAndNamesItsKind() throws IOException {
        library.answer("socket", FD);
        assertArrayEquals(new int[] {FD, AF_UNIX}, sockets.open(true, STREAM));
        assertArrayEquals(new int[] {FD, AF_INET6}, sockets.open(false, STREAM));
        assertEquals(List.of("socket", "socket", "setsockoptInt"), library.callNames());
        assertEquals("Unix-domain", sockets.addressKind(AF_UNIX, "TCP"));
        assertEquals("UDP", sockets.addressKind(AF_INET6, "UDP"));
    }

    @Test
    void peerCredentialsAreReadOnlyFromAnOpenUnixSocket() {
        library.credentials = new int[] {4321, 1000, 100};
        assertEquals(new PeerCredentials(4321, 1000, 100), sockets.peerCredentials(FD, AF_UNIX, true));
        UnsupportedOperationException tcp = assertThrows(UnsupportedOperationException.class,
                () -> sockets.peerCredentials(FD, AF_INET6, true));
        assertTrue(tcp.getMessage().contains("only for Unix-domain"), tcp.getMessage());
        assertThrows(IllegalStateException.class, () -> sockets.peerCredentials(FD, AF_UNIX, false));
        assertEquals(List.of("getPeerCredentials"), library.callNames(), "neither a TCP nor a closed socket is asked");
        library.answer("getPeerCredentials", -ENOTCONN);
        IllegalStateException unconnected = assertThrows(IllegalStateException.class,
                () -> sockets.peerCredentials(FD, AF_UNIX, true));
        assertTrue(unconnected.getMessage().contains("SO_PEERCRED") && unconnected.getMessage().contains("connect"),
                unconnected.getMessage());
    }

    @Test
    void aUnixSocketIsOpenedInAfUnix() throws IOException {
        library.answer("socket", FD);
        assertEquals(FD, sockets.openUnix(STREAM));
        assertEquals(List.of(AF_UNIX, STREAM, 0), library.calls.get(0).args());
        library.answer("socket", -EINVAL);
        IOException e = assertThrows(IOException.class, () -> sockets.openUnix(STREAM));
        assertTrue(e.getMessage().startsWith("socket(AF_UNIX)(..) failed"), e.getMessage());
    }

    @Test
    void bindingNothingTakesTheWildcardAndAnEphemeralPortOrLeavesAUnixSocketUnnamed() throws IOException {
        sockets.bind(FD, AF_INET6, "TCP", null);
        assertEquals(new InetSocketAddress(InetAddress.getByName("::"), 0), boundAddress(library.calls.get(0)));
        sockets.bind(FD, AF_INET, "TCP", null);
        assertEquals(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0), boundAddress(library.calls.get(1)));
        sockets.bind(FD, AF_UNIX, "Unix-domain", null);
        assertEquals(2, library.calls.size(), "an unnamed Unix socket is not bound");
    }

    @Test
    void ipv4WildcardOnADualStackSocketMeansEveryAddress() throws IOException {
        sockets.bind(FD, AF_INET6, "TCP", new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 8080));
        FakeSocketLibrary.Call bind = library.calls.get(0);
        assertEquals(28, bind.args().get(1), "a sockaddr_in6");
        assertEquals(new InetSocketAddress(InetAddress.getByName("::"), 8080), boundAddress(bind));

        sockets.bind(FD, AF_INET6, "TCP", new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 8080));
        assertEquals(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 8080),
                boundAddress(library.calls.get(1)), "an IPv4-mapped address, decoded as IPv4");
    }

    @Test
    void aUnixPathIsBoundAsIs() throws IOException {
        UnixDomainSocketAddress path = UnixDomainSocketAddress.of("/tmp/conduit.sock");
        sockets.bind(FD, AF_UNIX, "Unix-domain", path);
        assertEquals(path, boundAddress(library.calls.get(0)));
    }

    @Test
    void aBadAddressFailsBeforeAnyCallAndAnAddressInUseIsAnAddressBindException() throws IOException {
        assertThrows(UnresolvedAddressException.class,
                () -> sockets.bind(FD, AF_INET6, "TCP", InetSocketAddress.createUnresolved("nowhere.invalid", 1)));
        assertThrows(UnsupportedAddressTypeException.class,
                () -> sockets.bind(FD, AF_INET6, "TCP", UnixDomainSocketAddress.of("/tmp/x")));
        assertEquals(List.of(), library.calls);

        library.answer("bind", -EADDRINUSE);
        AddressBindException e = assertThrows(AddressBindException.class,
                () -> sockets.bind(FD, AF_INET6, "TCP", new InetSocketAddress(InetAddress.getLoopbackAddress(), 80)));
        assertEquals(AddressBindException.Reason.IN_USE, AddressBindException.reasonOf(e));
        assertTrue(e.getMessage().startsWith("bind(..) failed"), e.getMessage());
    }

    @Test
    void listenPassesTheBacklogAndNamesTheCallOnFailure() throws IOException {
        sockets.listen(FD, 4096);
        assertEquals(List.of(FD, 4096), library.calls.get(0).args());
        library.answer("listen", -EINVAL);
        IOException e = assertThrows(IOException.class, () -> sockets.listen(FD, 1));
        assertTrue(e.getMessage().startsWith("listen(..) failed"), e.getMessage());
    }

    @Test
    void steeringAReuseportGroupIsFalseWhereTheSystemLacksTheOptionAndUnsteeringWhereNothingIsAttached()
            throws IOException {
        assertTrue(sockets.steerReuseportGroup(FD, 1));
        assertTrue(sockets.unsteerReuseportGroup(FD));
        assertEquals(List.of(List.of(FD, 1), List.of(FD)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());

        library.answer("attachReuseportCbpf", -FakeSocketLibrary.ENOPROTOOPT);
        library.answer("detachReuseportBpf", -FakeSocketLibrary.ENOENT, -FakeSocketLibrary.ENOPROTOOPT, -EINVAL);
        assertFalse(sockets.steerReuseportGroup(FD, 0));
        assertFalse(sockets.unsteerReuseportGroup(FD));
        assertFalse(sockets.unsteerReuseportGroup(FD));
        IOException e = assertThrows(IOException.class, () -> sockets.unsteerReuseportGroup(FD));
        assertEquals("setsockopt(SO_DETACH_REUSEPORT_BPF)(..) failed: error 22 (errno 22)", e.getMessage());

        library.answer("attachReuseportCbpf", -EINVAL);
        IOException attach = assertThrows(IOException.class, () -> sockets.steerReuseportGroup(FD, 0));
        assertTrue(attach.getMessage().startsWith("setsockopt(SO_ATTACH_REUSEPORT_CBPF)(..) failed"),
                attach.getMessage());
        assertThrows(IllegalArgumentException.class, () -> sockets.steerReuseportGroup(FD, -1));
    }

    @Test
    void shutdownOfAnUnconnectedSocketIsNoError() throws IOException {
        library.answer("shutdown", -ENOTCONN);
        sockets.shutdownInput(FD);
        sockets.shutdownOutput(FD);
        assertEquals(List.of(List.of(FD, SHUT_RD), List.of(FD, SHUT_WR)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());

        library.answer("shutdown", -EINVAL);
        IOException e = assertThrows(IOException.class, () -> sockets.shutdownOutput(FD));
        assertEquals("shutdown(SHUT_WR)(..) failed: error 22 (errno 22)", e.getMessage());
    }

    @Test
    void theLocalAndPeerAddressesAreDecodedOrNullWhenTheCallFails() throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("::1"), 4242);
        library.name = address;
        assertEquals(address, sockets.localAddress(FD));
        assertEquals(address, sockets.peerAddress(FD));
        library.answer("getpeername", -ENOTCONN);
        assertNull(sockets.peerAddress(FD));
        library.answer("getsockname", -EINVAL);
        assertNull(sockets.localAddress(FD));
    }

    @Test
    void anAddressIsBoundUnlessItIsMissingOrAnIpAddressWithPortZero() throws IOException {
        assertTrue(UnixSockets.isBound(new InetSocketAddress(InetAddress.getByName("::"), 80)));
        assertTrue(UnixSockets.isBound(UnixDomainSocketAddress.of("/tmp/conduit.sock")));
        assertFalse(UnixSockets.isBound(new InetSocketAddress(InetAddress.getByName("::"), 0)));
        assertFalse(UnixSockets.isBound(null));
    }

    @Test
    void optionsGoThroughTheTransportsTable() throws IOException {
        assertTrue(sockets.setOption(FD, SocketOptionTable.TCP, true, ChannelOption.TCP_NODELAY, true));
        assertEquals(List.of(FD, FakeSocketLibrary.IPPROTO_TCP, FakeSocketLibrary.TCP_NODELAY, 1),
                library.calls.get(0).args());
        library.optionValue = 1;
        assertEquals(Boolean.TRUE, sockets.getOption(FD, SocketOptionTable.TCP, false, ChannelOption.TCP_NODELAY));
        assertNull(sockets.getOption(FD, SocketOptionTable.UDP, false, ChannelOption.TCP_NODELAY));
    }

    @Test
    void abstractNamesAreRefusedWhereTheKernelHasNone() {
        UnixSockets bsd = sockets(false);
        assertThrows(UnsupportedAddressTypeException.class, () -> bsd.bind(FD, AF_UNIX, "Unix-domain",
                io.conduit.channel.UnixAbstractAddress.of("conduit")));
        assertEquals(List.of(), library.calls);
    }
}
