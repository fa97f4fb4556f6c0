package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static io.conduit.epoll.EpollTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.FileRegion;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.InputShutdownReadCompleteEvent;
import io.conduit.channel.PeerCredentials;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.Future;
import io.conduit.testsuite.EchoHandler;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unix-domain sockets (peer credentials, half-closure), Linux abstract Unix names ({@code unix(7)}:
 * {@code sun_path[0] == '\0'}, the name delimited by the address length: echo, the address reported back on every
 * side, names with special bytes, the {@code sun_path} limit, no socket file) and sendfile file regions on epoll.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollUnixAndFileTest {

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

    private static int statusId(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field + ":")) {
                return Integer.parseInt(line.substring(field.length() + 1).trim().split("\\s+")[1]); // effective id
            }
        }
        throw new AssertionError("no " + field + " in /proc/self/status");
    }

    @Test
    void peerCredentialsAreThisProcess() throws Exception {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("creds.sock"));
        CompletableFuture<PeerCredentials> serverSide = new CompletableFuture<>();
        Channel server = await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .childHandler(new ChannelHandler() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        serverSide.complete(((DomainSocketChannel) ctx.channel()).peerCredentials());
                    }
                }).bind(address));
        Channel client = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .handler(new ChannelHandler() { }).connect(address));
        try {
            PeerCredentials expected = new PeerCredentials((int) ProcessHandle.current().pid(), statusId("Uid"),
                    statusId("Gid"));
            assertEquals(expected, ((DomainSocketChannel) client).peerCredentials());
            assertEquals(expected, serverSide.get(EpollTestSupport.WAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void unixHalfClosureKeepsTheOtherDirectionOpen() throws Exception {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("half.sock"));
        EpollTestSupport.Bytes serverSide = new EpollTestSupport.Bytes() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                super.userEventTriggered(ctx, event);
                if (event instanceof InputShutdownReadCompleteEvent) {
                    byte[] reply = ("got " + bytes().length).getBytes();
                    ctx.writeAndFlush(ctx.alloc().buffer(reply.length).writeBytes(reply))
                            .addListener(f -> ctx.close());
                }
            }
        };
        Channel server = await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true).childHandler(serverSide).bind(address));
        EpollTestSupport.Bytes clientSide = new EpollTestSupport.Bytes();
        Channel client = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_STREAM)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true).handler(clientSide).connect(address));
        try {
            await(client.writeAndFlush(client.alloc().buffer(5).writeBytes("hello".getBytes())));
            await(((DuplexChannel) client).shutdownOutput());
            assertEquals(InputShutdownEvent.INSTANCE, serverSide.events.poll(20, TimeUnit.SECONDS));
            assertEquals(InputShutdownReadCompleteEvent.INSTANCE, serverSide.events.poll(20, TimeUnit.SECONDS));
            eventually("the reply after half-closure", () -> clientSide.size() == "got 5".length());
            assertArrayEquals("got 5".getBytes(), clientSide.bytes());
            assertArrayEquals("hello".getBytes(), serverSide.bytes());
            assertEquals(InputShutdownEvent.INSTANCE, clientSide.events.poll(20, TimeUnit.SECONDS),
                    "the client then sees the server's end-of-stream as half-closure too");
        } finally {
            closeAll(client, server);
        }
    }

    private Channel fileServer(FileRegionFactory regions, CompletableFuture<Future<Void>> writeResult) {
        return await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .childHandler(new ChannelHandler() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) throws Exception {
                        Future<Void> f = ctx.writeAndFlush(regions.region());
                        writeResult.complete(f);
                        f.addListener(x -> ctx.close());
                    }
                }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    }

    interface FileRegionFactory {
        FileRegion region() throws IOException;
    }

    @Test
    void fileRegionGoesOutWithSendfileByteExact() throws Exception {
        byte[] content = new byte[3 * 1024 * 1024 + 123];
        new Random(11).nextBytes(content);
        Path file = dir.resolve("region.bin");
        Files.write(file, content);
        long sendfile = EpollStreamSocket.SENDFILE_CALLS.get();
        long copies = EpollStreamSocket.FILE_COPY_CALLS.get();
        CompletableFuture<Future<Void>> result = new CompletableFuture<>();
        Channel server = fileServer(() -> FileRegion.of(file, 1000, content.length - 1000), result);
        EpollTestSupport.Bytes received = new EpollTestSupport.Bytes();
        Channel client = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .handler(received).connect(server.localAddress()));
        try {
            eventually("the whole region", () -> received.size() >= content.length - 1000);
            assertArrayEquals(java.util.Arrays.copyOfRange(content, 1000, content.length), received.bytes());
            await(result.get(20, TimeUnit.SECONDS));
            assertTrue(EpollStreamSocket.SENDFILE_CALLS.get() > sendfile, "sendfile(2) was used");
            assertEquals(copies, EpollStreamSocket.FILE_COPY_CALLS.get(), "no copy through user space");
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void fileShorterThanTheRegionFailsTheWriteWithoutSpinning() throws Exception {
        Path file = dir.resolve("short.bin");
        Files.write(file, new byte[1000]);
        CompletableFuture<Future<Void>> result = new CompletableFuture<>();
        Channel server = fileServer(() -> FileRegion.of(file, 0, 5000), result);
        EpollTestSupport.Bytes received = new EpollTestSupport.Bytes();
        Channel client = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .handler(received).connect(server.localAddress()));
        try {
            Throwable failure = awaitFailure(result.get(20, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, failure);
            assertNotNull(failure.getMessage());
            assertTrue(failure.getMessage().contains("shorter"), failure.getMessage());
            eventually("the 1000 bytes that exist", () -> received.size() == 1000);
        } finally {
            closeAll(client, server);
        }
    }

    // ------------------------------------------------------------------ Linux abstract Unix names, unix(7)

    /** bytes of {@code sun_path} after the leading NUL of a Linux abstract name: 108 - 1 */
    private static final int MAX_ABSTRACT_NAME_BYTES = 107;

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
        CompletableFuture<SocketAddress> accepted = new CompletableFuture<>();
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
        UnixAbstractAddress fits = UnixAbstractAddress.of(padded(base, MAX_ABSTRACT_NAME_BYTES));
        closeAll(bind(fits, new EchoHandler()));

        UnixAbstractAddress tooLong = UnixAbstractAddress.of(padded(base, MAX_ABSTRACT_NAME_BYTES + 1));
        Throwable cause = awaitFailure(new ServerBootstrap().transport(transport).group(group)
                .channelType(ChannelType.UNIX_STREAM).childHandler(new EchoHandler()).bind(tooLong));
        assertInstanceOf(IllegalArgumentException.class, cause, String.valueOf(cause));
        assertTrue(cause.getMessage().contains((MAX_ABSTRACT_NAME_BYTES + 1) + " bytes")
                && cause.getMessage().contains(String.valueOf(MAX_ABSTRACT_NAME_BYTES)), cause.getMessage());
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
    void bindingAnAbstractNameThatReadsLikeAPathLeavesTheFileSystemAlone() throws Exception {
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
