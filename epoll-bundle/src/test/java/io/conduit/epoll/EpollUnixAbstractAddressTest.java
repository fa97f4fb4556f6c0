package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static io.conduit.epoll.EpollTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ServerBootstrap;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.testsuite.EchoHandler;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Linux abstract Unix socket names ({@code unix(7)}: {@code sun_path[0] == '\0'}, the name delimited by the address
 * length) on epoll: echo over one, the address reported back on every side, names with special bytes, the
 * {@code sun_path} limit, and no socket file anywhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollUnixAbstractAddressTest {

    /** bytes of {@code sun_path} after the leading NUL on Linux: 108 - 1 */
    private static final int MAX_NAME_BYTES = 107;

    private final EpollTransport transport = EpollTestSupport.transport();
    private IoEventLoopGroup group;
    @TempDir
    Path dir;

    @BeforeAll
    void start() {
        group = EpollTestSupport.group(2);
    }

    @AfterAll
    void stop() throws InterruptedException {
        EpollTestSupport.close(group);
    }

    private static String unique(String prefix) {
        return prefix + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    private Channel bind(SocketAddress address, ChannelHandler childHandler) {
        return await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .childHandler(childHandler).bind(address));
    }

    private Channel connect(SocketAddress address, ChannelHandler handler) {
        return await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .handler(handler).connect(address));
    }

    /** @return the names of abstract sockets in /proc/net/unix (the kernel shows them as "@name") */
    private static List<String> procNetUnixNames() throws IOException {
        return Files.readAllLines(Path.of("/proc/net/unix")).stream().skip(1)
                .map(line -> line.trim().split("\\s+"))
                .filter(f -> f.length >= 8).map(f -> f[7]).toList();
    }

    @Test
    void streamEchoOverAnAbstractNameReportsTheAddressAndCreatesNoFile() throws Exception {
        UnixAbstractAddress address = UnixAbstractAddress.of(unique("conduit-echo-"));
        Path cwd = Path.of("").toAbsolutePath();
        List<Path> before;
        try (var s = Files.list(cwd)) {
            before = s.toList();
        }
        Channel server = bind(address, new EchoHandler());
        EpollTestSupport.Bytes received = new EpollTestSupport.Bytes();
        Channel client = connect(address, received);
        try {
            assertEquals(address, server.localAddress());
            assertEquals(address, client.remoteAddress());
            assertEquals(UnixDomainSocketAddress.of(""), client.localAddress(), "the client is unnamed");
            assertTrue(procNetUnixNames().contains(address.toString()), "the kernel lists " + address
                    + " in /proc/net/unix");
            byte[] payload = "hello over the abstract namespace".getBytes(StandardCharsets.UTF_8);
            await(client.writeAndFlush(client.alloc().buffer(payload.length).writeBytes(payload)));
            eventually("the echo", () -> received.size() == payload.length);
            assertArrayEquals(payload, received.bytes());
            try (var s = Files.list(cwd)) {
                assertEquals(before, s.toList(), "no socket file appeared in the working directory");
            }
        } finally {
            closeAll(client, server);
        }
        eventually("the name is released", () -> {
            try {
                return !procNetUnixNames().contains(address.toString());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        closeAll(bind(address, new EchoHandler())); // the closed server released the name: it binds again
    }

    @Test
    void theAcceptedChannelReportsTheAbstractNameAsItsLocalAddress() throws Exception {
        UnixAbstractAddress address = UnixAbstractAddress.of(unique("conduit-accepted-"));
        java.util.concurrent.CompletableFuture<SocketAddress> accepted = new java.util.concurrent.CompletableFuture<>();
        Channel server = bind(address, new ChannelHandler() {
            @Override
            public void channelActive(io.conduit.channel.ChannelHandlerContext ctx) {
                accepted.complete(ctx.channel().localAddress());
            }
        });
        Channel client = connect(address, new ChannelHandler() { });
        try {
            assertEquals(address, accepted.get(EpollTestSupport.WAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void namesWithSpecialBytesRoundTripThroughTheKernel() {
        List<UnixAbstractAddress> names = List.of(
                UnixAbstractAddress.of("with\0nul-" + System.nanoTime()),
                UnixAbstractAddress.of("@leading-at/slash and space\n\t-" + System.nanoTime()),
                UnixAbstractAddress.of("ünïcødé-✓-" + System.nanoTime()),
                UnixAbstractAddress.of(new byte[] {(byte) 0xff, 0, (byte) 0x80, 1, 2, (byte) (System.nanoTime() & 0x7f)}));
        for (UnixAbstractAddress address : names) {
            Channel server = bind(address, new EchoHandler());
            Channel client = connect(address, new ChannelHandler() { });
            try {
                assertEquals(address, server.localAddress(), "local address of " + address);
                assertEquals(address, client.remoteAddress(), "remote address of " + address);
                assertArrayEquals(address.bytes(), ((UnixAbstractAddress) server.localAddress()).bytes());
            } finally {
                closeAll(client, server);
            }
        }
    }

    @Test
    void encodingAndDecodingKeepTheNameAndItsLength() {
        UnixAbstractAddress address = UnixAbstractAddress.of("a\0b");
        byte[] out = NativeAbi.SOCKADDR.newSockaddr();
        int length = NativeAbi.SOCKADDR.encode(address, out, false);
        int pathOffset = NativeAbi.constant("SOCKADDR_UN_PATH_OFFSET");
        assertEquals(pathOffset + 1 + 3, length, "family, the leading NUL and the name, no terminating NUL");
        assertEquals(0, out[pathOffset], "sun_path[0] is NUL");
        assertArrayEquals("a\0b".getBytes(StandardCharsets.UTF_8), Arrays.copyOfRange(out, pathOffset + 1, length));
        assertEquals(address, NativeAbi.SOCKADDR.decode(io.conduit.transport.spi.unix.SockaddrCodec.wrap(out), 0,
                length));
        assertEquals("@a\\x00b", address.toString());
    }

    @Test
    void aNameLongerThanSunPathFailsNamingItsLength() {
        String base = unique("conduit-long-");
        UnixAbstractAddress fits = UnixAbstractAddress.of(padded(base, MAX_NAME_BYTES));
        closeAll(bind(fits, new EchoHandler()));

        UnixAbstractAddress tooLong = UnixAbstractAddress.of(padded(base, MAX_NAME_BYTES + 1));
        Throwable cause = awaitFailure(new ServerBootstrap().transport(transport).group(group)
                .channelType(ChannelType.UNIX_STREAM).childHandler(new EchoHandler()).bind(tooLong));
        assertInstanceOf(IllegalArgumentException.class, cause, String.valueOf(cause));
        assertTrue(cause.getMessage().contains((MAX_NAME_BYTES + 1) + " bytes")
                && cause.getMessage().contains(String.valueOf(MAX_NAME_BYTES)), cause.getMessage());
        IllegalArgumentException direct = assertThrows(IllegalArgumentException.class,
                () -> NativeAbi.SOCKADDR.encode(tooLong, NativeAbi.SOCKADDR.newSockaddr(), false));
        assertEquals(cause.getMessage(), direct.getMessage());
    }

    private static String padded(String name, int bytes) {
        StringBuilder b = new StringBuilder(name);
        while (b.length() < bytes) {
            b.append('x');
        }
        return b.substring(0, bytes);
    }

    @Test
    void bindingAnAbstractNameLeavesTheFileSystemAlone() throws Exception {
        UnixAbstractAddress address = UnixAbstractAddress.of(dir.resolve("not-a-file").toString());
        Channel server = bind(address, new EchoHandler());
        try {
            assertFalse(Files.exists(dir.resolve("not-a-file")), "an abstract name creates no file, even when it"
                    + " reads like a path");
        } finally {
            closeAll(server);
        }
        assertTrue(Files.isDirectory(dir));
    }
}
