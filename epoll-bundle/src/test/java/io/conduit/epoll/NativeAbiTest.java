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

    /**
     * The layouts the library publishes, against what each architecture's ABI defines. These tests also run on
     * aarch64 and armv7 JVMs under qemu (native-fragments/emulation): {@code struct epoll_event} is packed only on
     * x86_64, and armv7 has 4-byte pointers and {@code size_t}.
     */
    @Test
    void structSizesMatchThisPlatform() {
        String arch = NativeLibraryLoader.arch();
        switch (arch) {
            case "x86_64":
                assertLayout(12, 4, 8, 56, 64);
                break;
            case "aarch64":
                assertLayout(16, 8, 8, 56, 64);
                break;
            case "armv7":
                assertLayout(16, 8, 4, 28, 32);
                break;
            default:
                throw new AssertionError("no expected layout for the architecture " + arch + " (os.arch="
                        + System.getProperty("os.arch") + "): add one");
        }
        assertEquals(0, NativeAbi.EPOLL_EVENT_EVENTS_OFFSET);
        assertEquals(128, NativeAbi.SOCKADDR_STORAGE_SIZE);
        assertEquals(16, NativeAbi.SOCKADDR_IN_SIZE);
        assertEquals(28, NativeAbi.SOCKADDR_IN6_SIZE);
        assertEquals(1024, NativeAbi.IOV_MAX);
    }

    /**
     * @param epollEvent     sizeof(struct epoll_event)
     * @param epollEventData offsetof(struct epoll_event, data)
     * @param word           sizeof(void *) and sizeof(size_t)
     * @param msghdr         sizeof(struct msghdr)
     * @param mmsghdr        sizeof(struct mmsghdr)
     */
    private static void assertLayout(int epollEvent, int epollEventData, int word, int msghdr, int mmsghdr) {
        String arch = NativeLibraryLoader.arch();
        assertEquals(epollEvent, NativeAbi.EPOLL_EVENT_SIZE, "sizeof(struct epoll_event) on " + arch);
        assertEquals(epollEventData, NativeAbi.EPOLL_EVENT_DATA_OFFSET, "offset of epoll_event.data on " + arch);
        assertEquals(word, NativeAbi.SIZEOF_POINTER, "sizeof(void *) on " + arch);
        assertEquals(word, NativeAbi.SIZEOF_SIZE_T, "sizeof(size_t) on " + arch);
        assertEquals(2 * word, NativeAbi.IOVEC_SIZE, "sizeof(struct iovec) on " + arch);
        assertEquals(msghdr, NativeAbi.MSGHDR_SIZE, "sizeof(struct msghdr) on " + arch);
        assertEquals(mmsghdr, NativeAbi.MMSGHDR_SIZE, "sizeof(struct mmsghdr) on " + arch);
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
