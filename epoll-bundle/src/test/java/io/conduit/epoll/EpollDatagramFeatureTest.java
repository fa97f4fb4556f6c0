package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramPacket;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** UDP on epoll: batching with recvmmsg/sendmmsg, plain read/write when connected, the real destination address. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollDatagramFeatureTest {

    private final EpollTransport transport = EpollTestSupport.transport();

    private Channel bind(IoEventLoopGroup group, EpollTestSupport.Datagrams handler, InetSocketAddress at,
            boolean origDst) {
        Bootstrap b = new Bootstrap().transport(transport).group(group).channelType(ChannelType.UDP).handler(handler)
                .option(ChannelOption.MAX_MESSAGES_PER_READ, 64);
        if (origDst) {
            b.option(ChannelOption.IP_RECVORIGDSTADDR, true);
        }
        return await(b.bind(at));
    }

    private static InetSocketAddress loopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    /** Writes {@code count} numbered datagrams to {@code to} on the sender's loop, then flushes them at once. */
    private static void burst(Channel sender, InetSocketAddress to, int count) {
        await(sender.eventLoop().submit(() -> {
            for (int i = 0; i < count; i++) {
                byte[] payload = payload(i);
                sender.write(new DatagramPacket(sender.alloc().buffer(payload.length).writeBytes(payload), to));
            }
            sender.flush();
        }));
    }

    private static long calls(EpollDatagramSocket.Call c) {
        return c.count.get();
    }

    @Test
    void thirtyTwoDatagramsGoOutInOneSendmmsgAndComeInBatched() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1); // one loop: the receiver reads only after the flush
        EpollTestSupport.Datagrams rx = new EpollTestSupport.Datagrams();
        Channel receiver = bind(group, rx, loopback(), false);
        Channel sender = bind(group, new EpollTestSupport.Datagrams(), loopback(), false);
        try {
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            long sendmmsg = calls(EpollDatagramSocket.Call.SENDMMSG);
            long recvmmsg = calls(EpollDatagramSocket.Call.RECVMMSG);
            long sendto = calls(EpollDatagramSocket.Call.SENDTO);
            long recvfrom = calls(EpollDatagramSocket.Call.RECVFROM);
            burst(sender, to, 32);
            for (int i = 0; i < 32; i++) {
                EpollTestSupport.Datagrams.Received r = rx.poll();
                assertArrayEquals(payload(i), r.content(), "datagram " + i + " in order and byte-exact");
                assertEquals(sender.localAddress(), r.sender());
            }
            assertEquals(1, calls(EpollDatagramSocket.Call.SENDMMSG) - sendmmsg, "32 datagrams in one sendmmsg");
            long receives = calls(EpollDatagramSocket.Call.RECVMMSG) - recvmmsg;
            assertTrue(receives >= 1 && receives <= 3, "32 datagrams in one batch (+ the call that finds none): "
                    + receives + " recvmmsg calls");
            assertEquals(0, calls(EpollDatagramSocket.Call.SENDTO) - sendto);
            assertEquals(0, calls(EpollDatagramSocket.Call.RECVFROM) - recvfrom);
        } finally {
            closeAll(sender, receiver);
            EpollTestSupport.close(group);
        }
    }

    private static byte[] payload(int i) {
        byte[] a = new byte[100 + i * 37];
        for (int j = 0; j < a.length; j++) {
            a[j] = (byte) (i * 31 + j);
        }
        return a;
    }

    @Test
    void connectedDatagramChannelsUsePlainReadAndWrite() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1);
        EpollTestSupport.Datagrams aRx = new EpollTestSupport.Datagrams();
        EpollTestSupport.Datagrams bRx = new EpollTestSupport.Datagrams();
        Channel a = bind(group, aRx, loopback(), false);
        Channel b = bind(group, bRx, loopback(), false);
        try {
            await(b.connect(a.localAddress()));
            long write = calls(EpollDatagramSocket.Call.WRITE);
            long read = calls(EpollDatagramSocket.Call.READ);
            long sendto = calls(EpollDatagramSocket.Call.SENDTO);
            long recvfrom = calls(EpollDatagramSocket.Call.RECVFROM);
            for (int i = 0; i < 10; i++) {
                byte[] p = payload(i);
                await(b.writeAndFlush(b.alloc().buffer(p.length).writeBytes(p)));
                EpollTestSupport.Datagrams.Received r = aRx.poll();
                assertArrayEquals(p, r.content());
                await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(p.length).writeBytes(p), r.sender())));
                assertArrayEquals(p, bRx.poll().content(), "reply " + i);
            }
            await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(0), (InetSocketAddress) b.localAddress())));
            assertEquals(0, bRx.poll().content().length, "an empty datagram reaches the connected channel");
            assertEquals(10, calls(EpollDatagramSocket.Call.WRITE) - write, "one write(2) per datagram sent connected");
            assertTrue(calls(EpollDatagramSocket.Call.READ) - read >= 11, "the connected channel reads with read(2)");
            assertEquals(0, calls(EpollDatagramSocket.Call.SENDTO) - sendto, "no sendto: connected uses write");
            assertEquals(0, calls(EpollDatagramSocket.Call.RECVFROM) - recvfrom, "no recvfrom: connected uses read");
        } finally {
            closeAll(a, b);
            EpollTestSupport.close(group);
        }
    }

    @Test
    void ipRecvorigdstaddrReportsTheRealDestinationAddress() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1);
        EpollTestSupport.Datagrams withRx = new EpollTestSupport.Datagrams();
        EpollTestSupport.Datagrams withoutRx = new EpollTestSupport.Datagrams();
        Channel with = bind(group, withRx, new InetSocketAddress(0), true);
        Channel without = bind(group, withoutRx, new InetSocketAddress(0), false);
        InetAddress second = InetAddress.getByName("127.0.0.2");
        try (DatagramChannel jdk = DatagramChannel.open()) {
            int withPort = ((InetSocketAddress) with.localAddress()).getPort();
            int withoutPort = ((InetSocketAddress) without.localAddress()).getPort();
            assertEquals(true, with.config().getOption(ChannelOption.IP_RECVORIGDSTADDR));
            jdk.send(ByteBuffer.wrap(new byte[] {1, 2, 3}), new InetSocketAddress(second, withPort));
            EpollTestSupport.Datagrams.Received r = withRx.poll();
            assertArrayEquals(new byte[] {1, 2, 3}, r.content());
            assertEquals(new InetSocketAddress(second, withPort), r.recipient(),
                    "the recipient is the address the datagram was sent to, not the wildcard the socket is bound to");
            assertFalse(r.truncated());
            jdk.send(ByteBuffer.wrap(new byte[] {4}), new InetSocketAddress(second, withoutPort));
            EpollTestSupport.Datagrams.Received plain = withoutRx.poll();
            assertEquals(without.localAddress(), plain.recipient(), "without the option: the local address");
        } finally {
            closeAll(with, without);
            EpollTestSupport.close(group);
        }
    }

    @Test
    void batchingResumesAfterAConnectedPhaseEnds() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1);
        EpollTestSupport.Datagrams aRx = new EpollTestSupport.Datagrams();
        EpollTestSupport.Datagrams bRx = new EpollTestSupport.Datagrams();
        Channel a = bind(group, aRx, loopback(), false);
        Channel b = bind(group, bRx, loopback(), false);
        try {
            InetSocketAddress aAddress = (InetSocketAddress) a.localAddress();
            await(b.connect(aAddress));
            long write = calls(EpollDatagramSocket.Call.WRITE);
            long read = calls(EpollDatagramSocket.Call.READ);
            await(b.writeAndFlush(b.alloc().buffer(1).writeByte(7)));
            assertArrayEquals(new byte[] {7}, aRx.poll().content());
            await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(1).writeByte(8), (InetSocketAddress) b.localAddress())));
            assertArrayEquals(new byte[] {8}, bRx.poll().content());
            assertEquals(1, calls(EpollDatagramSocket.Call.WRITE) - write, "connected: write(2)");
            assertTrue(calls(EpollDatagramSocket.Call.READ) - read >= 1, "connected: read(2)");

            await(b.disconnect());
            long sendmmsg = calls(EpollDatagramSocket.Call.SENDMMSG);
            long recvmmsg = calls(EpollDatagramSocket.Call.RECVMMSG);
            long sendto = calls(EpollDatagramSocket.Call.SENDTO);
            long recvfrom = calls(EpollDatagramSocket.Call.RECVFROM);
            burst(b, aAddress, 16);
            for (int i = 0; i < 16; i++) {
                assertArrayEquals(payload(i), aRx.poll().content(), "datagram " + i);
            }
            await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(1).writeByte(9), (InetSocketAddress) b.localAddress())));
            assertArrayEquals(new byte[] {9}, bRx.poll().content());
            assertTrue(calls(EpollDatagramSocket.Call.SENDMMSG) - sendmmsg >= 2, "sendmmsg by b and by a");
            assertTrue(calls(EpollDatagramSocket.Call.RECVMMSG) - recvmmsg >= 2, "both read with recvmmsg");
            assertEquals(0, calls(EpollDatagramSocket.Call.SENDTO) - sendto, "no fallback to sendto after connect");
            assertEquals(0, calls(EpollDatagramSocket.Call.RECVFROM) - recvfrom, "no fallback to recvfrom after connect");
        } finally {
            closeAll(a, b);
            EpollTestSupport.close(group);
        }
    }

    @Test
    void theContentOfEverySentPacketIsReleasedWhicheverCallSentIt() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1);
        EpollTestSupport.Datagrams aRx = new EpollTestSupport.Datagrams();
        Channel a = bind(group, aRx, loopback(), false);
        Channel b = bind(group, new EpollTestSupport.Datagrams(), loopback(), false);
        try {
            InetSocketAddress to = (InetSocketAddress) a.localAddress();
            io.conduit.buffer.Buffer batched = b.alloc().buffer(4).writeInt(1);
            await(b.writeAndFlush(new DatagramPacket(batched, to)));
            io.conduit.buffer.Buffer heap = b.alloc().heapBuffer(4).writeInt(2);
            await(b.writeAndFlush(new DatagramPacket(heap, to)));
            await(b.connect(to));
            io.conduit.buffer.Buffer connected = b.alloc().buffer(4).writeInt(3);
            await(b.writeAndFlush(new DatagramPacket(connected, to)));
            for (int i = 0; i < 3; i++) {
                aRx.poll();
            }
            assertEquals(0, batched.refCnt(), "sendmmsg: the packet's content is released");
            assertEquals(0, heap.refCnt(), "heap content through the bounce buffer: released");
            assertEquals(0, connected.refCnt(), "write(2) on a connected channel: released");
            io.conduit.buffer.Buffer refused = b.alloc().buffer(4).writeInt(4);
            EpollTestSupport.awaitFailure(b.writeAndFlush(new DatagramPacket(refused, loopback())));
            assertEquals(0, refused.refCnt(), "a datagram refused (another recipient than the peer): released");
        } finally {
            closeAll(a, b);
            EpollTestSupport.close(group);
        }
    }

    @Test
    void ipMulticastIfChoosesLoopbackAndAMulticastDatagramGoesOutThere() throws Exception {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1"));
        assertNotNull(lo, "the loopback interface");
        InetAddress groupAddress = InetAddress.getByName("239.255.67.89");
        IoEventLoopGroup group = EpollTestSupport.group(1);
        EpollTestSupport.Datagrams rx = new EpollTestSupport.Datagrams();
        Channel receiver = bind(group, rx, new InetSocketAddress(0), false);
        Channel sender = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UDP)
                .handler(new EpollTestSupport.Datagrams()).option(ChannelOption.IP_MULTICAST_IF, lo)
                .bind(new InetSocketAddress(0)));
        try {
            assertEquals(lo, sender.config().getOption(ChannelOption.IP_MULTICAST_IF), "read back from the kernel");
            assertNull(receiver.config().getOption(ChannelOption.IP_MULTICAST_IF), "not set: the kernel chooses");
            await(((io.conduit.channel.DatagramChannel) receiver).joinGroup(groupAddress, lo));
            int port = ((InetSocketAddress) receiver.localAddress()).getPort();
            // lo needs no MULTICAST flag for this: the route is forced by IP_MULTICAST_IF, the membership is on lo
            await(sender.writeAndFlush(new DatagramPacket(sender.alloc().buffer(3).writeBytes(new byte[] {1, 2, 3}),
                    new InetSocketAddress(groupAddress, port))));
            EpollTestSupport.Datagrams.Received r = rx.poll();
            assertArrayEquals(new byte[] {1, 2, 3}, r.content());
            assertTrue(r.sender().getAddress().isLoopbackAddress(), "sent from loopback: " + r.sender());
        } finally {
            closeAll(receiver, sender);
            EpollTestSupport.close(group);
        }
    }
}
