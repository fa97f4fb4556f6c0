package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.transport.spi.unix.SockaddrCodec;

import io.conduit.transport.spi.unix.NativeIoException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.AddressBindException;
import io.conduit.channel.ChannelClosedException;
import io.conduit.transport.spi.NativeLibraryLoader;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** ABI facts reported by the library, errno mapping and the sockaddr codec. */
class NativeAbiTest {

    @BeforeAll
    static void library() {
        Epoll.ensureAvailability();
    }

    @Test
    void structSizesMatchThisPlatform() {
        assertEquals("x86_64", NativeLibraryLoader.arch(), "these tests run on x86_64 (the aarch64 library is"
                + " checked by its ELF header in the build)");
        assertEquals(12, NativeAbi.EPOLL_EVENT_SIZE, "struct epoll_event is packed on x86_64");
        assertEquals(0, NativeAbi.EPOLL_EVENT_EVENTS_OFFSET);
        assertEquals(4, NativeAbi.EPOLL_EVENT_DATA_OFFSET);
        assertEquals(16, NativeAbi.IOVEC_SIZE);
        assertEquals(8, NativeAbi.SIZEOF_POINTER);
        assertEquals(64, NativeAbi.MMSGHDR_SIZE);
        assertEquals(56, NativeAbi.MSGHDR_SIZE);
        assertEquals(128, NativeAbi.SOCKADDR_STORAGE_SIZE);
        assertEquals(16, NativeAbi.SOCKADDR_IN_SIZE);
        assertEquals(28, NativeAbi.SOCKADDR_IN6_SIZE);
        assertEquals(1024, NativeAbi.IOV_MAX);
    }

    @Test
    void flagsAndErrnoValuesComeFromTheLibrary() {
        assertEquals(1, NativeAbi.EPOLLIN);
        assertEquals(4, NativeAbi.EPOLLOUT);
        assertEquals(1 << 31, NativeAbi.EPOLLET);
        assertEquals(11, NativeAbi.EAGAIN);
        assertEquals(111, NativeAbi.ECONNREFUSED);
        assertEquals(15, NativeAbi.SO_REUSEPORT);
        assertEquals(30, NativeAbi.TCP_FASTOPEN_CONNECT);
        assertEquals(NativeAbi.constants().get("IP_RECVORIGDSTADDR"), NativeAbi.IP_RECVORIGDSTADDR);
        IllegalStateException missing = assertThrows(IllegalStateException.class, () -> NativeAbi.constant("NOPE"));
        assertTrue(missing.getMessage().contains("NOPE"));
    }

    /**
     * JNI_OnLoad's FindClass initialises {@link Native}: with a static initialiser, loading the library would run
     * Java code (and once called natives before RegisterNatives had bound them).
     */
    @Test
    void theFacadeHasNoStaticInitialiser() throws IOException {
        byte[] classFile;
        try (var in = Native.class.getResourceAsStream("Native.class")) {
            classFile = in.readAllBytes();
        }
        String constantPool = new String(classFile, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(!constantPool.contains("<clinit>"), "io.conduit.epoll.Native must not have a static initialiser;"
                + " put constants in NativeAbi");
    }

    @Test
    void connectRefusedBecomesConnectExceptionNamingCallTextAndErrno() {
        IOException e = ERRORS.newConnectException("connect", -NativeAbi.ECONNREFUSED);
        assertInstanceOf(ConnectException.class, e);
        assertEquals("connect(..) failed: Connection refused (errno " + NativeAbi.ECONNREFUSED + ")", e.getMessage());
    }

    @Test
    void errnoValuesMapToTypedExceptions() {
        assertInstanceOf(PortUnreachableException.class, ERRORS.newIoException("sendto", -NativeAbi.ECONNREFUSED));
        assertInstanceOf(BindException.class, ERRORS.newIoException("bind", -NativeAbi.EADDRINUSE));
        assertEquals(AddressBindException.Reason.IN_USE,
                ((AddressBindException) ERRORS.newIoException("bind", -NativeAbi.EADDRINUSE)).reason());
        assertEquals(AddressBindException.Reason.NOT_AVAILABLE,
                ((AddressBindException) ERRORS.newIoException("bind", -NativeAbi.EADDRNOTAVAIL)).reason());
        assertEquals(AddressBindException.Reason.ACCESS_DENIED, ((AddressBindException) ERRORS.newIoException("bind",
                -NativeAbi.constant("EACCES"))).reason());
        assertInstanceOf(NativeIoException.class, ERRORS.newIoException("open", -NativeAbi.constant("EACCES")));
        assertInstanceOf(ChannelClosedException.class, ERRORS.newIoException("write", -NativeAbi.EBADF));
        IOException pipe = ERRORS.newIoException("write", -NativeAbi.EPIPE);
        assertInstanceOf(NativeIoException.class, pipe);
        assertEquals(NativeAbi.EPIPE, ((NativeIoException) pipe).errno());
        assertTrue(pipe.getMessage().startsWith("write(..) failed: Broken pipe (errno "), pipe.getMessage());
        assertTrue(ERRORS.isAgain(-NativeAbi.EAGAIN));
        assertTrue(ERRORS.isInterrupted(-NativeAbi.EINTR));
        assertTrue(ERRORS.isInProgress(-NativeAbi.EINPROGRESS));
        assertEquals(7, assertDoesNotThrowCheck(7));
        assertThrows(NativeIoException.class, () -> ERRORS.check("read", -NativeAbi.ECONNRESET));
    }

    private static int assertDoesNotThrowCheck(int value) {
        try {
            return ERRORS.check("read", value);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void sockaddrCodecRoundTrips() throws Exception {
        SocketAddress[] addresses = {
            new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 65535),
            new InetSocketAddress(InetAddress.getByName("::1"), 8080),
            UnixDomainSocketAddress.of("/tmp/conduit.sock"),
        };
        for (SocketAddress address : addresses) {
            byte[] out = SOCKADDR.newSockaddr();
            int length = SOCKADDR.encode(address, out, false);
            assertEquals(address, SOCKADDR.decode(SockaddrCodec.wrap(out), 0, length));
        }
        byte[] mapped = SOCKADDR.newSockaddr();
        int length = SOCKADDR.encode(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 9), mapped, true);
        assertEquals(NativeAbi.SOCKADDR_IN6_SIZE, length);
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 9),
                SOCKADDR.decode(SockaddrCodec.wrap(mapped), 0, length), "IPv4-mapped IPv6 decodes as IPv4");
    }
}
