package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.ERRORS;
import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeMemory;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The veneer against the real kernel: epoll, eventfd, timerfd, TCP, UDP, Unix sockets, sendfile. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class NativeSyscallTest {

    private final List<Integer> fds = new ArrayList<>();
    private int epfd;
    private EpollEventArray events;

    @BeforeAll
    static void library() {
        Epoll.ensureAvailability();
    }

    @BeforeEach
    void createEpoll() throws IOException {
        epfd = track(ERRORS.check("epoll_create1", Native.epollCreate()));
        events = new EpollEventArray(8);
    }

    @AfterEach
    void closeAll() {
        for (int fd : fds) {
            Native.close(fd);
        }
    }

    private int track(int fd) {
        fds.add(fd);
        return fd;
    }

    /** Registers {@code fd} (data = fd) and waits until it reports one of {@code mask}; returns the events. */
    private int await(int fd, int mask) throws IOException {
        int rc = Native.epollCtl(epfd, NativeAbi.EPOLL_CTL_ADD, fd, mask, fd);
        if (rc == -NativeAbi.EEXIST) {
            rc = Native.epollCtl(epfd, NativeAbi.EPOLL_CTL_MOD, fd, mask, fd);
        }
        ERRORS.check("epoll_ctl", rc);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            int n = Native.epollWait(epfd, events.address(), events.capacity(), 1000);
            if (ERRORS.isInterrupted(n)) {
                continue;
            }
            ERRORS.check("epoll_wait", n);
            for (int i = 0; i < n; i++) {
                if (events.data(i) == fd && (events.events(i) & mask) != 0) {
                    return events.events(i);
                }
            }
        }
        throw new AssertionError("fd " + fd + " never became ready for " + Integer.toHexString(mask));
    }

    private static NativeMemory bytes(String text) {
        byte[] data = text.getBytes(StandardCharsets.US_ASCII);
        NativeMemory memory = NativeMemory.allocate(Math.max(1, data.length), Native::addressOf);
        memory.buffer().put(0, data);
        return memory;
    }

    private static String text(NativeMemory memory, int offset, int length) {
        byte[] data = new byte[length];
        memory.buffer().get(offset, data);
        return new String(data, StandardCharsets.US_ASCII);
    }

    private int socket(int domain, int type) throws IOException {
        return track(ERRORS.check("socket", Native.socket(domain, type | NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC, 0)));
    }

    private int[] socketpair(int type) throws IOException {
        int[] pair = new int[2];
        ERRORS.check("socketpair", Native.socketpair(NativeAbi.AF_UNIX, type | NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC,
                0, pair));
        track(pair[0]);
        track(pair[1]);
        return pair;
    }

    private static SocketAddress localAddress(int fd) throws IOException {
        byte[] out = Native.newAddressOut();
        ERRORS.check("getsockname", Native.getsockname(fd, out));
        return SOCKADDR.decodeAddressOut(out);
    }

    private static void bind(int fd, SocketAddress address) throws IOException {
        byte[] sa = SOCKADDR.newSockaddr();
        ERRORS.check("bind", Native.bind(fd, sa, SOCKADDR.encode(address, sa, false)));
    }

    @Test
    void eventfdWakesEpollWaitFromAnotherThread() throws Exception {
        int efd = track(ERRORS.check("eventfd", Native.eventfd(0, NativeAbi.EFD_CLOEXEC | NativeAbi.EFD_NONBLOCK)));
        assertTrue(ERRORS.isAgain(Native.eventfdRead(efd)), "nothing written yet");
        ERRORS.check("epoll_ctl", Native.epollCtl(epfd, NativeAbi.EPOLL_CTL_ADD, efd, NativeAbi.EPOLLIN, efd));
        Thread waker = new Thread(() -> {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Native.eventfdWrite(efd, 1);
            Native.eventfdWrite(efd, 2);
        });
        long start = System.nanoTime();
        waker.start();
        int n;
        do {
            n = Native.epollWait(epfd, events.address(), events.capacity(), 10_000);
        } while (ERRORS.isInterrupted(n));
        waker.join();
        assertEquals(1, ERRORS.check("epoll_wait", n));
        assertEquals(efd, events.data(0));
        assertTrue((events.events(0) & NativeAbi.EPOLLIN) != 0);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
        assertEquals(3, ERRORS.check("read", Native.eventfdRead(efd)), "the counter sums the writes");
    }

    @Test
    void timerfdFiresAfterAboutTwentyMilliseconds() throws Exception {
        int tfd = track(ERRORS.check("timerfd_create",
                Native.timerfdCreate(NativeAbi.CLOCK_MONOTONIC, NativeAbi.TFD_CLOEXEC | NativeAbi.TFD_NONBLOCK)));
        long start = System.nanoTime();
        ERRORS.check("timerfd_settime", Native.timerfdSetTimeoutNanos(tfd, TimeUnit.MILLISECONDS.toNanos(20)));
        await(tfd, NativeAbi.EPOLLIN);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMillis >= 19 && elapsedMillis < 5000, "fired after " + elapsedMillis + " ms");
        assertEquals(1, ERRORS.check("read", Native.timerfdRead(tfd)));
    }

    @Test
    void timerValuesAreClampedSoTheKernelNeverRejectsThem() throws Exception {
        int tfd = track(ERRORS.check("timerfd_create",
                Native.timerfdCreate(NativeAbi.CLOCK_MONOTONIC, NativeAbi.TFD_CLOEXEC | NativeAbi.TFD_NONBLOCK)));
        assertEquals(-NativeAbi.EINVAL, Native.timerfdSettime(tfd, 0, 1_000_000_000L, 0, 0),
                "the raw call shows what the clamp prevents");
        long[][] values = {
            {0, 1_000_000_000L}, {0, 999_999_999L}, {0, Long.MAX_VALUE}, {Long.MAX_VALUE, Long.MAX_VALUE},
            {0, -1}, {-5, -1}, {0, 0}, {1, -1}, {Long.MIN_VALUE, Long.MIN_VALUE}, {3, 5_000_000_123L},
        };
        for (long[] v : values) {
            assertEquals(0, Native.timerfdSetTime(tfd, v[0], v[1]), () -> "timerfd_settime(" + v[0] + " s, " + v[1]
                    + " ns) was rejected");
        }
        assertEquals(0, Native.timerfdSetTimeoutNanos(tfd, Long.MAX_VALUE));
        assertEquals(0, Native.timerfdSetTimeoutNanos(tfd, Long.MIN_VALUE));
        assertEquals(0, Native.timerfdDisarm(tfd));
    }

    @Test
    void tcpLoopbackConnectAcceptWriteReadShutdownEof() throws Exception {
        int server = socket(NativeAbi.AF_INET, NativeAbi.SOCK_STREAM);
        ERRORS.check("setsockopt", Native.setsockoptInt(server, NativeAbi.SOL_SOCKET, NativeAbi.SO_REUSEADDR, 1));
        bind(server, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ERRORS.check("listen", Native.listen(server, 16));
        InetSocketAddress serverAddress = (InetSocketAddress) localAddress(server);
        assertNotEquals(0, serverAddress.getPort());

        int client = socket(NativeAbi.AF_INET, NativeAbi.SOCK_STREAM);
        byte[] sa = SOCKADDR.newSockaddr();
        int rc = Native.connect(client, sa, SOCKADDR.encode(serverAddress, sa, false));
        if (ERRORS.isInProgress(rc)) {
            await(client, NativeAbi.EPOLLOUT);
            rc = Native.finishConnect(client);
        }
        ERRORS.checkConnect("connect", rc);

        await(server, NativeAbi.EPOLLIN);
        byte[] peer = Native.newAddressOut();
        int accepted = track(ERRORS.check("accept4",
                Native.accept4(server, peer, NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC)));
        assertEquals(localAddress(client), SOCKADDR.decodeAddressOut(peer));
        byte[] peerName = Native.newAddressOut();
        ERRORS.check("getpeername", Native.getpeername(client, peerName));
        assertEquals(serverAddress, SOCKADDR.decodeAddressOut(peerName));

        ERRORS.check("setsockopt", Native.setsockoptInt(client, NativeAbi.IPPROTO_TCP, NativeAbi.TCP_NODELAY, 1));
        int[] value = new int[1];
        ERRORS.check("getsockopt", Native.getsockoptInt(client, NativeAbi.IPPROTO_TCP, NativeAbi.TCP_NODELAY, value));
        assertEquals(1, value[0]);
        ERRORS.check("setsockopt", Native.setsockoptLinger(client, 1, 3));
        int[] linger = new int[2];
        ERRORS.check("getsockopt", Native.getsockoptLinger(client, linger));
        assertArrayEquals(new int[] {1, 3}, linger);

        NativeMemory hello = bytes("hello");
        assertEquals(5, ERRORS.check("write", Native.write(client, hello.address(), 5)));
        ERRORS.check("shutdown", Native.shutdown(client, NativeAbi.SHUT_WR));

        NativeMemory in = NativeMemory.allocate(64, Native::addressOf);
        StringBuilder received = new StringBuilder();
        while (true) {
            int n = Native.read(accepted, in.address(), 64);
            if (ERRORS.isAgain(n)) {
                await(accepted, NativeAbi.EPOLLIN | NativeAbi.EPOLLRDHUP);
                continue;
            }
            if (ERRORS.check("read", n) == 0) {
                break; // EOF after the peer's shutdown(SHUT_WR)
            }
            received.append(text(in, 0, n));
        }
        assertEquals("hello", received.toString());
        // half-closed: the other direction still works
        assertEquals(2, ERRORS.check("write", Native.write(accepted, bytes("ok").address(), 2)));
        await(client, NativeAbi.EPOLLIN);
        assertEquals(2, ERRORS.check("read", Native.read(client, in.address(), 64)));
        assertEquals("ok", text(in, 0, 2));
    }

    @Test
    void connectToAClosedPortFailsWithConnectionRefusedAndErrno() throws Exception {
        int probe = socket(NativeAbi.AF_INET, NativeAbi.SOCK_STREAM);
        bind(probe, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketAddress closed = localAddress(probe); // bound, never listening: connections are refused
        int client = socket(NativeAbi.AF_INET, NativeAbi.SOCK_STREAM);
        byte[] sa = SOCKADDR.newSockaddr();
        int rc = Native.connect(client, sa, SOCKADDR.encode(closed, sa, false));
        if (ERRORS.isInProgress(rc)) {
            await(client, NativeAbi.EPOLLOUT | NativeAbi.EPOLLERR);
            rc = Native.finishConnect(client);
        }
        IOException e = ERRORS.newConnectException("connect", rc);
        assertInstanceOf(ConnectException.class, e);
        assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
        assertTrue(e.getMessage().contains("(errno " + NativeAbi.ECONNREFUSED + ")"), e.getMessage());
    }

    @Test
    void writevAndReadvMoveSeveralIovecs() throws Exception {
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        NativeMemory a = bytes("alpha-");
        NativeMemory b = bytes("beta-");
        NativeMemory c = bytes("gamma");
        IovArray out = new IovArray(4, NativeAbi.IOVEC);
        assertTrue(out.add(a.address(), 6));
        assertTrue(out.add(b.address() + 1, 4)); // "eta-": an offset into the memory
        assertTrue(out.add(c.address(), 5));
        assertEquals(15, out.totalBytes());
        assertEquals(15, ERRORS.check("writev", Native.writev(pair[0], out.address(), out.count())));

        NativeMemory first = NativeMemory.allocate(7, Native::addressOf);
        NativeMemory second = NativeMemory.allocate(32, Native::addressOf);
        IovArray in = new IovArray(2, NativeAbi.IOVEC);
        in.add(first.address(), 7);
        in.add(second.address(), 32);
        await(pair[1], NativeAbi.EPOLLIN);
        assertEquals(15, ERRORS.check("readv", Native.readv(pair[1], in.address(), in.count())));
        assertEquals("alpha-e", text(first, 0, 7));
        assertEquals("ta-gamma", text(second, 0, 8));
    }

    @Test
    void udpSendmmsgAndRecvmmsgMoveABatchWithSenderAddresses() throws Exception {
        int receiver = socket(NativeAbi.AF_INET, NativeAbi.SOCK_DGRAM);
        bind(receiver, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int sender = socket(NativeAbi.AF_INET, NativeAbi.SOCK_DGRAM);
        bind(sender, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketAddress to = localAddress(receiver);
        SocketAddress from = localAddress(sender);

        String[] payloads = {"one", "", "three-three"};
        NativeMemory data = bytes("onethree-three");
        MsghdrArray send = NativeAbi.mmsghdrArray(3);
        send.setForSend(0, data.address(), 3, to, false);
        send.setForSend(1, data.address(), 0, to, false); // an empty datagram is a datagram
        send.setForSend(2, data.address() + 3, 11, to, false);
        assertEquals(3, ERRORS.check("sendmmsg", Native.sendmmsg(sender, send.address(), 3, 0)));
        assertEquals(3, send.messageLength(0));
        assertEquals(11, send.messageLength(2));

        NativeMemory slots = NativeMemory.allocate(4 * 16, Native::addressOf);
        MsghdrArray receive = NativeAbi.mmsghdrArray(4);
        List<String> got = new ArrayList<>();
        while (got.size() < 3) {
            for (int i = 0; i < 4; i++) {
                receive.setForReceive(i, slots.address() + i * 16L, 16);
            }
            int n = Native.recvmmsg(receiver, receive.address(), 4, 0);
            if (ERRORS.isAgain(n)) {
                await(receiver, NativeAbi.EPOLLIN);
                continue;
            }
            ERRORS.check("recvmmsg", n);
            for (int i = 0; i < n; i++) {
                assertEquals(from, receive.sender(i));
                assertEquals(null, receive.recipient(i), "no IP_RECVORIGDSTADDR: no control message");
                assertEquals(0, receive.flags(i) & NativeAbi.MSG_TRUNC);
                got.add(text(slots, i * 16, receive.messageLength(i)));
            }
        }
        assertEquals(List.of(payloads), got);
    }

    @Test
    void ipRecvOrigDstAddrReportsTheRealDestinationThroughRecvmmsgAndRecvmsg() throws Exception {
        int receiver = socket(NativeAbi.AF_INET, NativeAbi.SOCK_DGRAM);
        ERRORS.check("setsockopt", Native.setsockoptInt(receiver, NativeAbi.IPPROTO_IP, NativeAbi.IP_RECVORIGDSTADDR, 1));
        bind(receiver, new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0)); // wildcard: any local address
        int port = ((InetSocketAddress) localAddress(receiver)).getPort();
        InetSocketAddress destination = new InetSocketAddress(InetAddress.getByName("127.0.0.2"), port);
        int sender = socket(NativeAbi.AF_INET, NativeAbi.SOCK_DGRAM);
        byte[] sa = SOCKADDR.newSockaddr();
        int length = SOCKADDR.encode(destination, sa, false);
        NativeMemory data = bytes("first second");
        ERRORS.check("sendto", Native.sendto(sender, data.address(), 5, 0, sa, length));
        ERRORS.check("sendto", Native.sendto(sender, data.address() + 6, 6, 0, sa, length));

        NativeMemory in = NativeMemory.allocate(32, Native::addressOf);
        MsghdrArray receive = NativeAbi.mmsghdrArray(1);
        receive.setForReceive(0, in.address(), 32);
        await(receiver, NativeAbi.EPOLLIN);
        assertEquals(1, ERRORS.check("recvmmsg", Native.recvmmsg(receiver, receive.address(), 1, 0)));
        assertEquals("first", text(in, 0, receive.messageLength(0)));
        assertEquals(destination, receive.recipient(0), "the address the datagram was sent to, not 0.0.0.0");
        InetSocketAddress source = (InetSocketAddress) receive.sender(0);
        assertEquals(((InetSocketAddress) localAddress(sender)).getPort(), source.getPort());
        assertTrue(source.getAddress().isLoopbackAddress(), source.toString());

        receive.setForReceive(0, in.address(), 32);
        int n;
        while (ERRORS.isAgain(n = Native.recvmsg(receiver, receive.messageAddress(0), 0))) {
            await(receiver, NativeAbi.EPOLLIN);
        }
        assertEquals("second", text(in, 0, ERRORS.check("recvmsg", n)));
        assertEquals(destination, receive.recipient(0));
        assertEquals(0, receive.flags(0) & NativeAbi.MSG_CTRUNC);
    }

    @Test
    void sendtoAndRecvfromReportTheSender() throws Exception {
        int receiver = socket(NativeAbi.AF_INET6, NativeAbi.SOCK_DGRAM);
        bind(receiver, new InetSocketAddress(InetAddress.getByName("::1"), 0));
        int sender = socket(NativeAbi.AF_INET6, NativeAbi.SOCK_DGRAM);
        bind(sender, new InetSocketAddress(InetAddress.getByName("::1"), 0));
        byte[] sa = SOCKADDR.newSockaddr();
        int length = SOCKADDR.encode(localAddress(receiver), sa, true);
        assertEquals(4, ERRORS.check("sendto", Native.sendto(sender, bytes("ping").address(), 4, 0, sa, length)));
        await(receiver, NativeAbi.EPOLLIN);
        NativeMemory in = NativeMemory.allocate(16, Native::addressOf);
        byte[] senderOut = Native.newAddressOut();
        assertEquals(4, ERRORS.check("recvfrom", Native.recvfrom(receiver, in.address(), 16, 0, senderOut)));
        assertEquals("ping", text(in, 0, 4));
        assertEquals(localAddress(sender), SOCKADDR.decodeAddressOut(senderOut));
    }

    /** A direct buffer holding {@code text} in {@code [position, position + text.length())}, that range its window. */
    private static java.nio.ByteBuffer direct(String text, int position, int capacity) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocateDirect(capacity);
        b.position(position);
        b.put(text.getBytes(StandardCharsets.US_ASCII));
        b.limit(b.position()).position(position);
        return b;
    }

    private static String text(java.nio.ByteBuffer b, int from, int length) {
        byte[] data = new byte[length];
        b.get(from, data);
        return new String(data, StandardCharsets.US_ASCII);
    }

    @Test
    void oneCallNativesMoveExactlyTheGivenRangeAndLeavePositionAndLimitAlone() throws Exception {
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        java.nio.ByteBuffer out = direct("xxhello-worldyy", 3, 32); // window "hello-worldyy" from index 3
        assertEquals(11, ERRORS.check("write", Native.writeBuffer(pair[0], out, 5, 16))); // "hello-world"
        assertEquals(3, out.position(), "the native does not move the buffer: the caller does");
        java.nio.ByteBuffer in = java.nio.ByteBuffer.allocateDirect(64);
        await(pair[1], NativeAbi.EPOLLIN);
        assertEquals(6, ERRORS.check("read", Native.readBuffer(pair[1], in, 10, 16))); // at most 6 bytes at index 10
        assertEquals("hello-", text(in, 10, 6));
        assertEquals(0, in.position());
        assertEquals(64, in.limit());
        assertEquals(5, ERRORS.check("read", Native.readBuffer(pair[1], in, 0, 64)));
        assertEquals("world", text(in, 0, 5));
        assertEquals(-NativeAbi.EAGAIN, Native.readBuffer(pair[1], in, 0, 64), "drained: EAGAIN is a value");
    }

    @Test
    void oneCallNativesReturnMinusErrnoForHeapBuffersBadRangesAndClosedDescriptors() throws Exception {
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        java.nio.ByteBuffer heap = java.nio.ByteBuffer.allocate(8);
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(8);
        assertEquals(-NativeAbi.EINVAL, Native.writeBuffer(pair[0], heap, 0, 8), "a heap buffer has no address");
        assertEquals(-NativeAbi.EINVAL, Native.readBuffer(pair[1], heap, 0, 8));
        assertEquals(-NativeAbi.EINVAL, Native.writeBuffer(pair[0], direct, 6, 2), "limit before position");
        byte[] sa = SOCKADDR.newSockaddr();
        assertEquals(-NativeAbi.EINVAL, Native.sendtoBuffer(pair[0], heap, 0, 8, 0, sa, 0));
        assertEquals(-NativeAbi.EINVAL, Native.recvfromBuffer(pair[1], heap, 0, 8, 0, Native.newAddressOut()));
        int closed = ERRORS.check("socket", Native.socket(NativeAbi.AF_UNIX, NativeAbi.SOCK_STREAM, 0));
        Native.close(closed);
        assertEquals(-NativeAbi.EBADF, Native.writeBuffer(closed, direct, 0, 8));
        assertEquals(-NativeAbi.EBADF, Native.readBuffer(closed, direct, 0, 8));
    }

    @Test
    void sendtoBufferAndRecvfromBufferMoveTheRangeAndReportTheSender() throws Exception {
        int receiver = socket(NativeAbi.AF_INET, NativeAbi.SOCK_DGRAM);
        bind(receiver, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int sender = socket(NativeAbi.AF_INET, NativeAbi.SOCK_DGRAM);
        bind(sender, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        byte[] sa = SOCKADDR.newSockaddr();
        int length = SOCKADDR.encode(localAddress(receiver), sa, false);
        java.nio.ByteBuffer out = direct("--ping--", 0, 16);
        assertEquals(4, ERRORS.check("sendto", Native.sendtoBuffer(sender, out, 2, 6, 0, sa, length)));
        await(receiver, NativeAbi.EPOLLIN);
        java.nio.ByteBuffer in = java.nio.ByteBuffer.allocateDirect(32);
        byte[] senderOut = Native.newAddressOut();
        assertEquals(4, ERRORS.check("recvfrom", Native.recvfromBuffer(receiver, in, 7, 32, 0, senderOut)));
        assertEquals("ping", text(in, 7, 4));
        assertEquals(localAddress(sender), SOCKADDR.decodeAddressOut(senderOut));
    }

    @Test
    void sendfileCopiesATempFileIntoASocket(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("payload.txt");
        Files.writeString(file, "0123456789abcdef", StandardCharsets.US_ASCII);
        int fileFd = track(ERRORS.check("open", Native.open(file.toString().getBytes(StandardCharsets.UTF_8),
                NativeAbi.O_RDONLY | NativeAbi.O_CLOEXEC, 0)));
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        assertEquals(10, ERRORS.check("sendfile", Native.sendfile(pair[0], fileFd, 6, 10)));
        assertEquals(0, ERRORS.check("sendfile", Native.sendfile(pair[0], fileFd, 16, 10)), "at end of file");
        NativeMemory in = NativeMemory.allocate(32, Native::addressOf);
        await(pair[1], NativeAbi.EPOLLIN);
        assertEquals(10, ERRORS.check("read", Native.read(pair[1], in.address(), 32)));
        assertEquals("6789abcdef", text(in, 0, 10));
    }

    @Test
    void spliceMovesBytesThroughAPipe() throws Exception {
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        int[] pipe = new int[2];
        ERRORS.check("pipe2", Native.pipe2(pipe, NativeAbi.O_NONBLOCK | NativeAbi.O_CLOEXEC));
        track(pipe[0]);
        track(pipe[1]);
        Native.write(pair[0], bytes("spliced").address(), 7);
        await(pair[1], NativeAbi.EPOLLIN);
        assertEquals(7, ERRORS.check("splice", Native.splice(pair[1], -1, pipe[1], -1, 64, NativeAbi.SPLICE_F_NONBLOCK)));
        NativeMemory in = NativeMemory.allocate(16, Native::addressOf);
        assertEquals(7, ERRORS.check("read", Native.read(pipe[0], in.address(), 16)));
        assertEquals("spliced", text(in, 0, 7));
    }

    @Test
    void unixSocketsReportPeerCredentials() throws Exception {
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        int[] credentials = new int[3];
        ERRORS.check("getsockopt", Native.getPeerCredentials(pair[0], credentials));
        assertEquals(ProcessHandle.current().pid(), credentials[0]);
    }

    @Test
    void closedDescriptorsAreReportedAsClosedChannels() throws Exception {
        int[] pair = socketpair(NativeAbi.SOCK_STREAM);
        ERRORS.check("close", Native.close(pair[0]));
        fds.remove(Integer.valueOf(pair[0]));
        int rc = Native.write(pair[0], bytes("x").address(), 1);
        assertEquals(-NativeAbi.EBADF, rc);
        assertInstanceOf(java.nio.channels.ClosedChannelException.class, ERRORS.newIoException("write", rc));
    }
}
