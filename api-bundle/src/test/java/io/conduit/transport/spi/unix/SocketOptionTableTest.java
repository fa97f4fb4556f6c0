package io.conduit.transport.spi.unix;

import static io.conduit.transport.spi.unix.FakeSocketLibrary.EINVAL;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPPROTO_IP;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPPROTO_IPV6;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPPROTO_TCP;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPV6_RECVORIGDSTADDR;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IPV6_TCLASS;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IP_RECVORIGDSTADDR;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.IP_TOS;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.SOL_SOCKET;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.SO_SNDBUF;
import static io.conduit.transport.spi.unix.FakeSocketLibrary.TCP_NODELAY;
import static io.conduit.transport.spi.unix.SocketOptionTable.TCP;
import static io.conduit.transport.spi.unix.SocketOptionTable.TCP_SERVER;
import static io.conduit.transport.spi.unix.SocketOptionTable.UDP;
import static io.conduit.transport.spi.unix.SocketOptionTable.UNIX;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.ChannelOption;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The option table: which options apply to which socket kinds, the calls they make, values and errors. */
class SocketOptionTableTest {

    private static final int FD = 42;

    private final NativeConstants constants = FakeSocketLibrary.constants();
    private final UnixErrors errors = new UnixErrors(constants, FakeSocketLibrary::strerror);
    private final FakeSocketLibrary library = new FakeSocketLibrary();
    private final SocketOptionTable table = SocketOptionTable.builder(constants)
            .option(ChannelOption.TCP_NODELAY, "IPPROTO_TCP", "TCP_NODELAY", TCP | TCP_SERVER)
            .option(ChannelOption.SO_SNDBUF, "SOL_SOCKET", "SO_SNDBUF", TCP | UDP | UNIX)
            .option(ChannelOption.IP_TOS, "IPPROTO_IP", "IP_TOS", TCP | UDP)
            .ipv6Also(ChannelOption.IP_TOS, "IPPROTO_IPV6", "IPV6_TCLASS", false)
            .option(ChannelOption.IP_RECVORIGDSTADDR, "IPPROTO_IP", "IP_RECVORIGDSTADDR", UDP)
            .ipv6Also(ChannelOption.IP_RECVORIGDSTADDR, "IPPROTO_IPV6", "IPV6_RECVORIGDSTADDR", true)
            .linger(TCP | UNIX)
            .build();

    @Test
    void aBooleanOptionIsAnIntOfOneOrZeroAtTheLibrarysLevelAndName() throws IOException {
        assertTrue(table.set(library, errors, FD, TCP, false, ChannelOption.TCP_NODELAY, true));
        assertTrue(table.set(library, errors, FD, TCP, false, ChannelOption.TCP_NODELAY, false));
        assertEquals(List.of(List.of(FD, IPPROTO_TCP, TCP_NODELAY, 1), List.of(FD, IPPROTO_TCP, TCP_NODELAY, 0)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());

        library.optionValue = 4; // any non-zero value reads as true
        assertEquals(Boolean.TRUE, table.get(library, errors, FD, TCP_SERVER, false, ChannelOption.TCP_NODELAY));
        library.optionValue = 0;
        assertEquals(Boolean.FALSE, table.get(library, errors, FD, TCP_SERVER, false, ChannelOption.TCP_NODELAY));
    }

    @Test
    void anIntOptionPassesItsValueUnchanged() throws IOException {
        assertTrue(table.set(library, errors, FD, UNIX, false, ChannelOption.SO_SNDBUF, 65_536));
        assertEquals(List.of(FD, SOL_SOCKET, SO_SNDBUF, 65_536), library.calls.get(0).args());
        library.optionValue = 131_072;
        assertEquals(131_072, table.get(library, errors, FD, UNIX, false, ChannelOption.SO_SNDBUF));
    }

    @Test
    void anOptionOfAnotherKindOrUnmappedMakesNoCall() throws IOException {
        assertFalse(table.appliesTo(ChannelOption.TCP_NODELAY, UNIX));
        assertFalse(table.set(library, errors, FD, UNIX, false, ChannelOption.TCP_NODELAY, true));
        assertNull(table.get(library, errors, FD, UDP, false, ChannelOption.TCP_NODELAY));
        assertFalse(table.set(library, errors, FD, TCP, false, ChannelOption.SO_KEEPALIVE, true));
        assertNull(table.get(library, errors, FD, UDP, false, ChannelOption.SO_LINGER));
        assertEquals(List.of(), library.calls);

        assertTrue(table.maps(ChannelOption.TCP_NODELAY) && table.maps(ChannelOption.SO_LINGER));
        assertFalse(table.maps(ChannelOption.SO_KEEPALIVE));
        assertFalse(SocketOptionTable.builder(constants).build().maps(ChannelOption.SO_LINGER));
    }

    @Test
    void onAnIpv6SocketTheCompanionIsSetTooAndOnlyACheckedOneFailsTheSet() throws IOException {
        table.set(library, errors, FD, TCP, false, ChannelOption.IP_TOS, 0x10);
        assertEquals(List.of(List.of(FD, IPPROTO_IP, IP_TOS, 0x10)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList(), "IPv4: one call");

        library.calls.clear();
        library.answer("setsockoptInt", 0, -EINVAL); // the companion fails: best effort for IPV6_TCLASS
        assertTrue(table.set(library, errors, FD, TCP, true, ChannelOption.IP_TOS, 0x10));
        assertEquals(List.of(List.of(FD, IPPROTO_IP, IP_TOS, 0x10), List.of(FD, IPPROTO_IPV6, IPV6_TCLASS, 0x10)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());

        library.calls.clear();
        library.answer("setsockoptInt", 0, -EINVAL);
        IOException e = assertThrows(IOException.class,
                () -> table.set(library, errors, FD, UDP, true, ChannelOption.IP_RECVORIGDSTADDR, true));
        assertEquals("setsockopt(IPV6_RECVORIGDSTADDR)(..) failed: error 22 (errno 22)", e.getMessage());
        assertEquals(List.of(List.of(FD, IPPROTO_IP, IP_RECVORIGDSTADDR, 1),
                List.of(FD, IPPROTO_IPV6, IPV6_RECVORIGDSTADDR, 1)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());
    }

    @Test
    void anIpv6ReplacementIsSetAndReadInsteadOnAnIpv6SocketOnly() throws IOException {
        SocketOptionTable bsd = SocketOptionTable.builder(constants)
                .option(ChannelOption.IP_TOS, "IPPROTO_IP", "IP_TOS", TCP)
                .ipv6Instead(ChannelOption.IP_TOS, "IPPROTO_IPV6", "IPV6_TCLASS")
                .build();
        bsd.set(library, errors, FD, TCP, true, ChannelOption.IP_TOS, 0x20);
        bsd.set(library, errors, FD, TCP, false, ChannelOption.IP_TOS, 0x10);
        library.optionValue = 0x20;
        assertEquals(0x20, bsd.get(library, errors, FD, TCP, true, ChannelOption.IP_TOS));
        bsd.get(library, errors, FD, TCP, false, ChannelOption.IP_TOS);
        assertEquals(List.of(List.of(FD, IPPROTO_IPV6, IPV6_TCLASS, 0x20), List.of(FD, IPPROTO_IP, IP_TOS, 0x10),
                List.of(FD, IPPROTO_IPV6, IPV6_TCLASS), List.of(FD, IPPROTO_IP, IP_TOS)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());

        library.answer("setsockoptInt", -EINVAL);
        IOException e = assertThrows(IOException.class,
                () -> bsd.set(library, errors, FD, TCP, true, ChannelOption.IP_TOS, 0x20));
        assertEquals("setsockopt(IPV6_TCLASS)(..) failed: error 22 (errno 22)", e.getMessage());
    }

    @Test
    void soLingerIsSecondsAndANegativeValueTurnsItOff() throws IOException {
        assertTrue(table.set(library, errors, FD, UNIX, false, ChannelOption.SO_LINGER, 5));
        assertTrue(table.set(library, errors, FD, TCP, false, ChannelOption.SO_LINGER, -1));
        assertEquals(List.of(List.of(FD, 1, 5), List.of(FD, 0, 0)),
                library.calls.stream().map(FakeSocketLibrary.Call::args).toList());
        assertFalse(table.set(library, errors, FD, TCP_SERVER, false, ChannelOption.SO_LINGER, 5));

        library.linger = new int[] {1, 7};
        assertEquals(7, table.get(library, errors, FD, TCP, false, ChannelOption.SO_LINGER));
        library.linger = new int[] {0, 7};
        assertEquals(-1, table.get(library, errors, FD, TCP, false, ChannelOption.SO_LINGER));
    }

    @Test
    void aRefusedValueFailsWithTheCallAndTheKernelsOptionName() {
        library.answer("setsockoptInt", -EINVAL);
        NativeIoException e = assertThrows(NativeIoException.class,
                () -> table.set(library, errors, FD, TCP, false, ChannelOption.TCP_NODELAY, true));
        assertEquals("setsockopt(TCP_NODELAY)(..) failed: error 22 (errno 22)", e.getMessage());
        assertEquals(EINVAL, e.errno());

        library.answer("getsockoptInt", -FakeSocketLibrary.EBADF);
        IOException closed = assertThrows(IOException.class,
                () -> table.get(library, errors, FD, TCP, false, ChannelOption.SO_SNDBUF));
        assertTrue(closed instanceof io.conduit.channel.ChannelClosedException, closed.toString());
        assertTrue(closed.getMessage().startsWith("getsockopt(SO_SNDBUF)(..) failed"), closed.getMessage());
    }

    @Test
    void theBuilderTakesOnlyIntAndBooleanOptionsTheLibraryPublishes() {
        SocketOptionTable.Builder b = SocketOptionTable.builder(constants);
        assertThrows(IllegalArgumentException.class,
                () -> b.option(ChannelOption.IP_MULTICAST_IF, "IPPROTO_IP", "IP_TOS", UDP));
        assertThrows(IllegalArgumentException.class,
                () -> b.option(ChannelOption.SO_LINGER, "SOL_SOCKET", "SO_SNDBUF", TCP));
        assertThrows(IllegalArgumentException.class,
                () -> b.ipv6Also(ChannelOption.IP_TOS, "IPPROTO_IPV6", "IPV6_TCLASS", false));
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> b.option(ChannelOption.TCP_CORK, "IPPROTO_TCP", "TCP_CORK", TCP));
        assertTrue(missing.getMessage().contains("TCP_CORK"), missing.getMessage());
    }
}
