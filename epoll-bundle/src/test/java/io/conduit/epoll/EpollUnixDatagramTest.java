package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unix-domain datagram sockets ({@code AF_UNIX}, {@code SOCK_DGRAM}, {@code unix(7)}) on epoll: echo between two
 * channels named by socket file paths and by abstract names, the sender reported with each datagram, connected
 * mode with plain buffers, the socket file removed at close, and the size rules — a datagram longer than the
 * 65,536-byte receive slot arrives cut and marked truncated, one longer than the sender's {@code SO_SNDBUF}
 * fails its write with {@code EMSGSIZE}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollUnixDatagramTest {

    private final EpollTransport transport = EpollTestSupport.transport();
    private final IoEventLoopGroup group = EpollTestSupport.group(2);

    @TempDir
    Path dir;

    @AfterEach
    void closeGroup() throws InterruptedException {
        EpollTestSupport.close(group);
    }

    /** Records received datagrams (content copied, message released); thread-safe. */
    @ChannelHandler.Sharable
    static final class Received implements ChannelHandler {
        record Datagram(byte[] content, SocketAddress sender, SocketAddress recipient, boolean truncated) {
            String text() {
                return new String(content, StandardCharsets.UTF_8);
            }
        }

        final LinkedBlockingQueue<Datagram> queue = new LinkedBlockingQueue<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof DomainDatagramPacket p) {
                try (p) {
                    queue.add(new Datagram(bytes(p.content()), p.sender(), p.recipient(), p.truncated()));
                }
            } else {
                try (Buffer b = (Buffer) msg) {
                    queue.add(new Datagram(bytes(b), null, null, false));
                }
            }
        }

        private static byte[] bytes(Buffer b) {
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            return a;
        }

        Datagram poll() throws InterruptedException {
            Datagram d = queue.poll(EpollTestSupport.WAIT_SECONDS, TimeUnit.SECONDS);
            if (d == null) {
                fail("no datagram within " + EpollTestSupport.WAIT_SECONDS + " s");
            }
            return d;
        }
    }

    private Bootstrap bootstrap(ChannelHandler handler) {
        return new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_DATAGRAM).handler(handler);
    }

    private DomainDatagramChannel bind(Received rx, SocketAddress at) {
        return (DomainDatagramChannel) await(bootstrap(rx).bind(at));
    }

    private static Buffer text(Channel c, String s) {
        byte[] a = s.getBytes(StandardCharsets.UTF_8);
        return c.alloc().buffer(a.length).writeBytes(a);
    }

    private static Buffer filled(Channel c, int length) {
        Buffer b = c.alloc().buffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(i * 31);
        }
        return b;
    }

    private static String unique(String prefix) {
        return prefix + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    @Test
    void epollListsUnixDatagramAndMakesADomainDatagramChannel() {
        assertTrue(transport.channelTypes().contains(ChannelType.UNIX_DATAGRAM), transport.channelTypes().toString());
        Channel c = transport.newChannel(ChannelType.UNIX_DATAGRAM, group.next());
        try {
            assertInstanceOf(DomainDatagramChannel.class, c);
        } finally {
            closeAll(c);
        }
    }

    private void echoBetween(SocketAddress aAddress, SocketAddress bAddress) throws Exception {
        Received aRx = new Received();
        Received bRx = new Received();
        DomainDatagramChannel a = bind(aRx, aAddress);
        DomainDatagramChannel b = bind(bRx, bAddress);
        try {
            assertEquals(aAddress, a.localAddress());
            assertEquals(bAddress, b.localAddress());
            assertFalse(a.isConnected());
            for (int i = 0; i < 20; i++) {
                await(a.writeAndFlush(new DomainDatagramPacket(text(a, "ping " + i), bAddress)));
                Received.Datagram got = bRx.poll();
                assertEquals("ping " + i, got.text());
                assertEquals(aAddress, got.sender(), "the sender's bound name comes with the datagram");
                assertEquals(bAddress, got.recipient());
                assertFalse(got.truncated());
                await(b.writeAndFlush(new DomainDatagramPacket(text(b, "pong " + i), got.sender())));
                Received.Datagram reply = aRx.poll();
                assertEquals("pong " + i, reply.text());
                assertEquals(bAddress, reply.sender());
            }
            Buffer empty = a.alloc().buffer(0);
            await(a.writeAndFlush(new DomainDatagramPacket(empty, bAddress)));
            assertEquals(0, bRx.poll().content().length, "an empty datagram is delivered");
            assertEquals(0, empty.refCnt(), "a sent packet's content is released");
        } finally {
            closeAll(a, b);
        }
    }

    @Test
    void twoChannelsBoundToSocketFilesEchoAndSeeEachOthersPath() throws Exception {
        echoBetween(UnixDomainSocketAddress.of(dir.resolve("a.sock")), UnixDomainSocketAddress.of(dir.resolve("b.sock")));
    }

    @Test
    void twoChannelsBoundToAbstractNamesEchoAndSeeEachOthersName() throws Exception {
        echoBetween(UnixAbstractAddress.of(unique("conduit-dgram-a-")), UnixAbstractAddress.of(unique("conduit-dgram-b-")));
    }

    @Test
    void theSocketFileIsRemovedWhenTheChannelCloses() throws Exception {
        Path file = dir.resolve("removed.sock");
        DomainDatagramChannel c = bind(new Received(), UnixDomainSocketAddress.of(file));
        assertTrue(Files.exists(file), "bind(2) created the socket file");
        await(c.close());
        assertFalse(Files.exists(file), "close removed the socket file");
        DomainDatagramChannel again = bind(new Received(), UnixDomainSocketAddress.of(file));
        try {
            assertEquals(UnixDomainSocketAddress.of(file), again.localAddress(), "the path can be bound again");
        } finally {
            closeAll(again);
        }
    }

    @Test
    void aConnectedChannelWritesPlainBuffersAndRefusesOtherRecipients() throws Exception {
        Received serverRx = new Received();
        Received clientRx = new Received();
        SocketAddress serverAddress = UnixDomainSocketAddress.of(dir.resolve("server.sock"));
        SocketAddress clientAddress = UnixAbstractAddress.of(unique("conduit-dgram-client-"));
        DomainDatagramChannel server = bind(serverRx, serverAddress);
        DomainDatagramChannel client = bind(clientRx, clientAddress);
        Channel unnamed = null;
        try {
            await(client.connect(serverAddress));
            assertTrue(client.isConnected());
            assertEquals(serverAddress, client.remoteAddress());
            for (int i = 0; i < 10; i++) {
                await(client.writeAndFlush(text(client, "plain " + i)));
                Received.Datagram got = serverRx.poll();
                assertEquals("plain " + i, got.text());
                assertEquals(clientAddress, got.sender());
                await(server.writeAndFlush(new DomainDatagramPacket(text(server, "back " + i), clientAddress)));
                Received.Datagram back = clientRx.poll();
                assertEquals("back " + i, back.text());
                assertEquals(serverAddress, back.sender(), "a connected channel reports its peer as the sender");
            }
            Throwable other = awaitFailure(client.writeAndFlush(
                    new DomainDatagramPacket(text(client, "x"), UnixDomainSocketAddress.of(dir.resolve("other.sock")))));
            assertInstanceOf(AlreadyConnectedException.class, other);
            assertTrue(client.isOpen(), "a refused datagram fails its own write only");
            Throwable inet = awaitFailure(server.writeAndFlush(
                    new DomainDatagramPacket(text(server, "x"), new java.net.InetSocketAddress("127.0.0.1", 9))));
            assertInstanceOf(UnsupportedAddressTypeException.class, inet);

            await(client.disconnect());
            assertFalse(client.isConnected());
            await(client.writeAndFlush(new DomainDatagramPacket(text(client, "after disconnect"), serverAddress)));
            assertEquals("after disconnect", serverRx.poll().text());

            // a never-bound socket connects and sends; the receiver sees the empty path as its sender (unix(7))
            unnamed = await(bootstrap(new Received()).connect(serverAddress));
            await(unnamed.writeAndFlush(text(unnamed, "from nobody")));
            Received.Datagram anonymous = serverRx.poll();
            assertEquals("from nobody", anonymous.text());
            assertEquals(UnixDomainSocketAddress.of(""), anonymous.sender());
        } finally {
            closeAll(client, server, unnamed);
        }
    }

    @Test
    void aDatagramLongerThanTheReceiveSlotArrivesCutAndMarkedTruncated() throws Exception {
        int slot = LoopResources.DATAGRAM_SLOT_BYTES;
        int length = slot + 34_464; // 100,000 bytes: within the default SO_SNDBUF, beyond the receive slot
        Received rx = new Received();
        SocketAddress rxAddress = UnixAbstractAddress.of(unique("conduit-dgram-big-"));
        DomainDatagramChannel receiver = bind(rx, rxAddress);
        DomainDatagramChannel sender = bind(new Received(), UnixAbstractAddress.of(unique("conduit-dgram-big-tx-")));
        try {
            await(sender.writeAndFlush(new DomainDatagramPacket(filled(sender, length), rxAddress)));
            Received.Datagram cut = rx.poll();
            assertTrue(cut.truncated(), "unconnected (recvmmsg): MSG_TRUNC reported");
            assertEquals(slot, cut.content().length);
            byte[] expected = new byte[slot];
            for (int i = 0; i < slot; i++) {
                expected[i] = (byte) (i * 31);
            }
            assertArrayEquals(expected, cut.content(), "the first slot's bytes arrive intact");

            await(receiver.connect(sender.localAddress()));
            await(sender.writeAndFlush(new DomainDatagramPacket(filled(sender, length), rxAddress)));
            Received.Datagram cutConnected = rx.poll();
            assertTrue(cutConnected.truncated(), "connected (recvfrom with MSG_TRUNC): truncation reported");
            assertEquals(slot, cutConnected.content().length);

            await(sender.writeAndFlush(new DomainDatagramPacket(filled(sender, 1000), rxAddress)));
            Received.Datagram small = rx.poll();
            assertFalse(small.truncated());
            assertEquals(1000, small.content().length);
        } finally {
            closeAll(sender, receiver);
        }
    }

    @Test
    void aDatagramLongerThanTheSendBufferFailsItsWriteWithEmsgsize() throws Exception {
        Received rx = new Received();
        SocketAddress rxAddress = UnixAbstractAddress.of(unique("conduit-dgram-huge-"));
        DomainDatagramChannel receiver = bind(rx, rxAddress);
        DomainDatagramChannel sender = (DomainDatagramChannel) await(bootstrap(new Received())
                .option(ChannelOption.SO_SNDBUF, 65_536).bind(UnixAbstractAddress.of(unique("conduit-dgram-huge-tx-"))));
        try {
            int sndbuf = sender.config().getOption(ChannelOption.SO_SNDBUF); // the kernel doubles the request
            Throwable tooBig = awaitFailure(sender.writeAndFlush(
                    new DomainDatagramPacket(filled(sender, sndbuf + 1), rxAddress)));
            assertInstanceOf(IOException.class, tooBig);
            assertTrue(tooBig.getMessage().contains("EMSGSIZE") || tooBig.getMessage().contains("too long"),
                    tooBig.getMessage());
            assertTrue(sender.isOpen(), "the channel stays open");
            await(sender.writeAndFlush(new DomainDatagramPacket(text(sender, "still fine"), rxAddress)));
            assertEquals("still fine", rx.poll().text());
        } finally {
            closeAll(sender, receiver);
        }
    }

    /**
     * The receiver's queue ({@code net.unix.max_dgram_qlen}, 10 by default) fills while it does not read: the
     * sender's writes wait (the kernel says {@code EAGAIN}) and are all delivered, in order, once it reads again —
     * connected (writability follows the peer's queue) and unconnected (the sender is woken as its own queued
     * datagrams are consumed).
     */
    @Test
    void writesToAReceiverThatStoppedReadingWaitAndAllArriveInOrderWhenItReadsAgain() throws Exception {
        for (boolean connect : new boolean[] {true, false}) {
            Received rx = new Received();
            SocketAddress rxAddress = UnixAbstractAddress.of(unique("conduit-dgram-slow-"));
            DomainDatagramChannel receiver = (DomainDatagramChannel) await(bootstrap(rx)
                    .option(ChannelOption.AUTO_READ, false).bind(rxAddress));
            DomainDatagramChannel sender = bind(new Received(), UnixAbstractAddress.of(unique("conduit-dgram-fast-")));
            try {
                if (connect) {
                    await(sender.connect(rxAddress));
                }
                int count = 500;
                java.util.List<io.conduit.concurrent.Future<Void>> writes = new java.util.ArrayList<>();
                for (int i = 0; i < count; i++) {
                    Buffer b = text(sender, "datagram " + i);
                    writes.add(connect ? sender.write(b) : sender.write(new DomainDatagramPacket(b, rxAddress)));
                }
                sender.flush();
                EpollTestSupport.eventually("some writes to wait for the full receiver", () -> !writes.get(count - 1)
                        .isDone() && writes.get(0).isDone());
                receiver.config().setAutoRead(true);
                for (int i = 0; i < count; i++) {
                    assertEquals("datagram " + i, rx.poll().text(), (connect ? "connected" : "unconnected") + " sender");
                }
                for (io.conduit.concurrent.Future<Void> w : writes) {
                    await(w);
                }
            } finally {
                closeAll(sender, receiver);
            }
        }
    }
}
