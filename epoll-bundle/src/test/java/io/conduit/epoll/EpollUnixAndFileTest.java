package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static io.conduit.epoll.EpollTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.Bootstrap;
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
import io.conduit.channel.ServerBootstrap;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Unix-domain sockets (peer credentials, half-closure) and sendfile file regions on epoll. */
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
}
