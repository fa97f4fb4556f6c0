package io.conduit.iouring;

import static io.conduit.iouring.IoUringTestSupport.await;
import static io.conduit.iouring.IoUringTestSupport.awaitFailure;
import static io.conduit.iouring.IoUringTestSupport.closeAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.FileRegion;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
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
 * File regions on io_uring go out with {@code sendfile(2)} from the file's descriptor, not through a Java buffer:
 * byte-exact at an offset, empty, larger than the socket buffers with a slow reader, between writes that keep their
 * order, and copied only where the file system cannot splice ({@code /proc}). Before this, every region was read into
 * the connection's send buffer and sent from there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringFileRegionTest {

    private final Transport transport = IoUringTestSupport.transport();
    private EventLoopGroup group;
    @TempDir
    Path dir;

    @BeforeAll
    void start() {
        group = transport.newEventLoopGroup(1);
    }

    @AfterAll
    void stop() throws InterruptedException {
        IoUringTestSupport.close(group);
    }

    /**
     * A server whose accepted channel writes {@code messages} (buffers, byte arrays, or file regions) in one flush and
     * closes once they are written.
     */
    private Channel server(MessageFactory messages, CompletableFuture<Future<Void>> written) {
        return await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .childOption(ChannelOption.SO_SNDBUF, 64 * 1024)
                .childHandler(new ChannelHandler() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) throws Exception {
                        Future<Void> last = null;
                        for (Object m : messages.messages()) {
                            Object msg = m instanceof byte[] a ? ctx.alloc().buffer(a.length).writeBytes(a) : m;
                            last = ctx.write(msg);
                        }
                        ctx.flush();
                        written.complete(last);
                        last.addListener(x -> ctx.close());
                    }
                }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    }

    interface MessageFactory {
        List<Object> messages() throws IOException;
    }

    /** Connects a plain socket, waits {@code delayMillis} before reading, and reads to end of stream. */
    private static byte[] readAll(Channel server, int receiveBuffer, long delayMillis) throws Exception {
        try (Socket s = new Socket()) {
            if (receiveBuffer > 0) {
                s.setReceiveBufferSize(receiveBuffer);
            }
            s.connect(server.localAddress(), 5000);
            s.setSoTimeout(60_000);
            Thread.sleep(delayMillis);
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[receiveBuffer > 0 ? 4096 : 65536];
            int n;
            while ((n = in.read(chunk)) > 0) {
                out.write(chunk, 0, n);
            }
            return out.toByteArray();
        }
    }

    private Path file(String name, int bytes, int seed) throws IOException {
        byte[] content = new byte[bytes];
        new Random(seed).nextBytes(content);
        return Files.write(dir.resolve(name), content);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void aRegionAtAnOffsetGoesOutWithSendfileByteExact() throws Exception {
        Path file = file("region.bin", 3 * 1024 * 1024 + 123, 11);
        byte[] content = Files.readAllBytes(file);
        long sendfile = IoUringStreamSocket.SENDFILE_CALLS.get();
        long copies = IoUringStreamSocket.FILE_COPY_CALLS.get();
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        Channel server = server(() -> List.of(FileRegion.of(file, 1000, content.length - 1000)), written);
        try {
            byte[] got = readAll(server, 0, 0);
            assertArrayEquals(Arrays.copyOfRange(content, 1000, content.length), got);
            await(written.get(20, TimeUnit.SECONDS));
            assertTrue(IoUringStreamSocket.SENDFILE_CALLS.get() > sendfile, "sendfile(2) was used");
            assertEquals(copies, IoUringStreamSocket.FILE_COPY_CALLS.get(), "no copy through Java memory");
        } finally {
            closeAll(server);
        }
    }

    @Test
    void writesBeforeAndAfterARegionKeepTheirOrder() throws Exception {
        Path file = file("middle.bin", 2 * 1024 * 1024 + 7, 12);
        byte[] content = Files.readAllBytes(file);
        byte[] head = new byte[200 * 1024]; // more than one send buffer: a send is in flight when the region comes
        Arrays.fill(head, (byte) 'h');
        byte[] tail = "tail".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] small = "x".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        long copies = IoUringStreamSocket.FILE_COPY_CALLS.get();
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        Channel server = server(() -> List.of(head, FileRegion.of(file), small, FileRegion.of(file, 5, 100), tail,
                FileRegion.of(file, 0, 0)), written);
        try {
            byte[] got = readAll(server, 0, 0);
            assertArrayEquals(concat(head, content, small, Arrays.copyOfRange(content, 5, 105), tail), got);
            await(written.get(20, TimeUnit.SECONDS));
            assertEquals(copies, IoUringStreamSocket.FILE_COPY_CALLS.get(), "no copy through Java memory");
        } finally {
            closeAll(server);
        }
    }

    @Test
    void anEmptyRegionCompletesAndSendsNothing() throws Exception {
        Path file = file("empty-region.bin", 1000, 13);
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        byte[] a = {1, 2, 3};
        Channel server = server(() -> List.of(a, FileRegion.of(file, 500, 0)), written);
        try {
            assertArrayEquals(a, readAll(server, 0, 0));
            await(written.get(20, TimeUnit.SECONDS));
        } finally {
            closeAll(server);
        }
    }

    /** 24 MB to a reader that starts late with a small receive buffer: the loop waits for room, byte-exact. */
    @Test
    void aRegionLargerThanTheSocketBuffersReachesASlowReader() throws Exception {
        Path file = file("large.bin", 24 * 1024 * 1024, 14);
        byte[] content = Files.readAllBytes(file);
        long sendfile = IoUringStreamSocket.SENDFILE_CALLS.get();
        long copies = IoUringStreamSocket.FILE_COPY_CALLS.get();
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        Channel server = server(() -> List.of(FileRegion.of(file)), written);
        try {
            byte[] got = readAll(server, 16 * 1024, 500);
            assertEquals(content.length, got.length);
            assertArrayEquals(content, got);
            await(written.get(20, TimeUnit.SECONDS));
            assertTrue(IoUringStreamSocket.SENDFILE_CALLS.get() - sendfile > 2, "the loop waited for room in between");
            assertEquals(copies, IoUringStreamSocket.FILE_COPY_CALLS.get(), "no copy through Java memory");
        } finally {
            closeAll(server);
        }
    }

    /**
     * {@code sendfile(2)} answers {@code EINVAL} for a file whose file system cannot splice, such as most of
     * {@code /proc}: the region is then read into the send buffer and sent, in order with the writes around it.
     */
    @Test
    void aFileThatCannotBeSplicedIsCopied() throws Exception {
        Path proc = Path.of("/proc/self/cmdline");
        byte[] content = Files.readAllBytes(proc);
        assertTrue(content.length > 0);
        long copies = IoUringStreamSocket.FILE_COPY_CALLS.get();
        byte[] head = {'<'};
        byte[] tail = {'>'};
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        java.nio.channels.FileChannel procFile = java.nio.channels.FileChannel.open(proc);
        Channel server = server(() -> List.of(head, FileRegion.of(procFile, 0, content.length), tail), written);
        try (procFile) {
            assertArrayEquals(concat(head, content, tail), readAll(server, 0, 0));
            await(written.get(20, TimeUnit.SECONDS));
            assertTrue(IoUringStreamSocket.FILE_COPY_CALLS.get() > copies, "copied through the send buffer");
        } finally {
            closeAll(server);
        }
    }

    @Test
    void aFileShorterThanTheRegionFailsTheWrite() throws Exception {
        Path file = file("short.bin", 1000, 15);
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        Channel server = server(() -> List.of(FileRegion.of(file, 0, 5000)), written);
        try {
            CompletableFuture<byte[]> got = CompletableFuture.supplyAsync(() -> {
                try {
                    return readAll(server, 0, 0);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Throwable failure = awaitFailure(written.get(20, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, failure);
            assertTrue(String.valueOf(failure.getMessage()).contains("shorter"), failure.getMessage());
            assertArrayEquals(Files.readAllBytes(file), got.get(20, TimeUnit.SECONDS));
        } finally {
            closeAll(server);
        }
    }

    /**
     * A connection closed while its region waits for a reader that never reads: the poll for room is cancelled, and
     * the descriptors are back once it completed.
     */
    @Test
    void aCloseWhileWaitingForRoomLeavesNoDescriptor() throws Exception {
        Path file = file("stalled.bin", 32 * 1024 * 1024, 16);
        long before = IoUringTestSupport.openDescriptors();
        CompletableFuture<Channel> child = new CompletableFuture<>();
        CompletableFuture<Future<Void>> written = new CompletableFuture<>();
        Channel server = await(new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .childHandler(new ChannelHandler() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) throws Exception {
                        written.complete(ctx.writeAndFlush(FileRegion.of(file)));
                        child.complete(ctx.channel());
                    }
                }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(16 * 1024);
            s.connect(server.localAddress(), 5000);
            Channel c = child.get(20, TimeUnit.SECONDS);
            Thread.sleep(300); // the socket and the reader's buffer are full: a poll for room waits
            assertTrue(!written.get(20, TimeUnit.SECONDS).isDone(), "the reader reads nothing");
            await(c.close());
            awaitFailure(written.get(20, TimeUnit.SECONDS));
        } finally {
            closeAll(server);
        }
        assertEquals(before, IoUringTestSupport.settledDescriptors(before), "descriptors after the close");
    }
}
