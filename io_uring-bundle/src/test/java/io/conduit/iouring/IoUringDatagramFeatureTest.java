package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.testsuite.AbstractTransportTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What io_uring's datagram sockets do beyond the conformance suite: a burst of datagrams, received one
 * {@code recvmsg(2)} at a time after a {@code POLLIN} poll, arrives in order, the real destination address
 * ({@code IP_RECVORIGDSTADDR}) comes with every datagram, multicast goes out on the chosen interface, a connected
 * channel disconnects and sends to others again, Linux abstract names work, and closing sockets with a
 * {@code POLLIN} and a {@code POLLOUT} wait in flight, many times, leaves no descriptor behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringDatagramFeatureTest extends AbstractTransportTest {

    private static final long WAIT_SECONDS = 20;

    private final Transport transport = IoUringPermutations.IO_URING.transport();

    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.ioUringOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }

    /** Collects received datagrams with their addresses and truncation (content copied, packet released). */
    @ChannelHandler.Sharable
    static final class Datagrams implements ChannelHandler {
        record Received(byte[] content, SocketAddress sender, SocketAddress recipient, boolean truncated) {
        }

        final LinkedBlockingQueue<Received> received = new LinkedBlockingQueue<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof DatagramPacket p) {
                try (p) {
                    received.add(new Received(bytes(p.content()), p.sender(), p.recipient(), p.truncated()));
                }
            } else if (msg instanceof DomainDatagramPacket p) {
                try (p) {
                    received.add(new Received(bytes(p.content()), p.sender(), p.recipient(), p.truncated()));
                }
            } else {
                try (Buffer b = (Buffer) msg) {
                    received.add(new Received(bytes(b), null, null, false));
                }
            }
        }

        private static byte[] bytes(Buffer b) {
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            return a;
        }

        Received poll() throws InterruptedException {
            Received r = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (r == null) {
                fail("no datagram within " + WAIT_SECONDS + " s");
            }
            return r;
        }
    }

    private Channel bind(EventLoopGroup group, ChannelType type, ChannelHandler handler, SocketAddress at,
            boolean origDst) {
        Bootstrap b = new Bootstrap().transport(transport).group(group).channelType(type).handler(handler)
                .option(ChannelOption.MAX_MESSAGES_PER_READ, 64);
        if (origDst) {
            b.option(ChannelOption.IP_RECVORIGDSTADDR, true);
        }
        return await(b.bind(at));
    }

    private static byte[] payload(int i) {
        byte[] a = new byte[100 + i * 37];
        for (int j = 0; j < a.length; j++) {
            a[j] = (byte) (i * 31 + j);
        }
        return a;
    }

    private static Buffer content(Channel c, byte[] a) {
        return c.alloc().buffer(a.length).writeBytes(a);
    }

    @Test
    void aBurstOfDatagramsArrivesInOrderAndByteExact() throws Exception {
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Datagrams rx = new Datagrams();
            Channel receiver = bind(group, ChannelType.UDP, rx, loopback(), false);
            Channel sender = bind(group, ChannelType.UDP, new Datagrams(), loopback(), false);
            try {
                InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
                int count = 48;
                await(sender.eventLoop().submit(() -> {
                    for (int i = 0; i < count; i++) {
                        sender.write(new DatagramPacket(content(sender, payload(i)), to));
                    }
                    sender.flush();
                }));
                for (int i = 0; i < count; i++) {
                    Datagrams.Received r = rx.poll();
                    assertArrayEquals(payload(i), r.content(), "datagram " + i + " in order and byte-exact");
                    assertEquals(sender.localAddress(), r.sender());
                    assertEquals(receiver.localAddress(), r.recipient(), "no IP_RECVORIGDSTADDR: the local address");
                    assertFalse(r.truncated());
                }
            } finally {
                closeAll(sender, receiver);
            }
        }
    }

    /**
     * Back-pressure: with auto-read off nothing is taken from the socket (not even into memory of the transport's
     * own), each {@code read()} takes one datagram, and the datagrams left waiting in the socket arrive in order once
     * auto-read is on again.
     */
    @Test
    void withAutoReadOffNothingIsTakenFromTheSocketAndEachReadTakesOneDatagram() throws Exception {
        try (EventLoopGroup group = transport.newEventLoopGroup(1);
                DatagramChannel jdk = DatagramChannel.open()) {
            jdk.bind(loopback());
            Datagrams rx = new Datagrams();
            Channel receiver = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UDP)
                    .handler(rx).option(ChannelOption.AUTO_READ, false).bind(loopback()));
            try {
                long callsBefore = IoUringDatagramSocket.RECVMSG_CALLS.get();
                for (int i = 0; i < 10; i++) {
                    jdk.send(ByteBuffer.wrap(payload(i)), receiver.localAddress());
                }
                Thread.sleep(200);
                await(receiver.eventLoop().submit(() -> null));
                assertEquals(callsBefore, IoUringDatagramSocket.RECVMSG_CALLS.get(),
                        "auto-read off, no read(): no datagram is taken from the socket");
                assertTrue(rx.received.isEmpty());

                receiver.read();
                assertArrayEquals(payload(0), rx.poll().content(), "one read(), the first datagram");
                await(receiver.eventLoop().submit(() -> null));
                assertNull(rx.received.poll(200, TimeUnit.MILLISECONDS), "one read() takes one datagram");

                receiver.config().setAutoRead(true);
                for (int i = 1; i < 10; i++) {
                    assertArrayEquals(payload(i), rx.poll().content(), "datagram " + i + " waited in the socket");
                }
            } finally {
                closeAll(receiver);
            }
        }
    }

    /**
     * The receive slot is {@value DatagramScratch#RECEIVE_BYTES} bytes: a Unix datagram of exactly that length arrives
     * whole and not truncated, one byte longer arrives cut to it and marked truncated ({@code MSG_TRUNC}), connected
     * or not.
     */
    @Test
    void aUnixDatagramOfTheSlotSizeArrivesWholeAndOneByteMoreIsCutAndMarked() throws Exception {
        Path dir = Files.createTempDirectory("iouring-slot");
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Datagrams rx = new Datagrams();
            Bootstrap b = new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_DATAGRAM)
                    .option(ChannelOption.SO_SNDBUF, 262_144).option(ChannelOption.SO_RCVBUF, 262_144);
            Channel receiver = await(b.handler(rx).bind(java.net.UnixDomainSocketAddress.of(dir.resolve("rx.sock"))));
            Channel sender = await(b.handler(new Datagrams())
                    .bind(java.net.UnixDomainSocketAddress.of(dir.resolve("tx.sock"))));
            try {
                int slot = DatagramScratch.RECEIVE_BYTES;
                byte[] exact = payloadOf(slot, 1);
                byte[] longer = payloadOf(slot + 1, 2);
                for (boolean connected : new boolean[] {false, true}) {
                    if (connected) {
                        await(receiver.connect(sender.localAddress()));
                    }
                    await(sender.writeAndFlush(new DomainDatagramPacket(content(sender, exact),
                            receiver.localAddress())));
                    Datagrams.Received whole = rx.poll();
                    assertArrayEquals(exact, whole.content(), "connected " + connected);
                    assertFalse(whole.truncated(), "connected " + connected + ": exactly the slot is not truncated");
                    await(sender.writeAndFlush(new DomainDatagramPacket(content(sender, longer),
                            receiver.localAddress())));
                    Datagrams.Received cut = rx.poll();
                    assertTrue(cut.truncated(), "connected " + connected + ": one byte more is truncated");
                    assertArrayEquals(java.util.Arrays.copyOf(longer, slot), cut.content());
                }
            } finally {
                closeAll(sender, receiver);
            }
        } finally {
            try (Stream<Path> files = Files.list(dir)) {
                files.forEach(f -> f.toFile().delete());
            }
            Files.delete(dir);
        }
    }

    private static byte[] payloadOf(int length, int seed) {
        byte[] a = new byte[length];
        for (int j = 0; j < a.length; j++) {
            a[j] = (byte) (seed * 31 + j * 7);
        }
        return a;
    }

    @Test
    void ipRecvorigdstaddrReportsTheRealDestinationAddress() throws Exception {
        try (EventLoopGroup group = transport.newEventLoopGroup(1);
                DatagramChannel jdk = DatagramChannel.open()) {
            Datagrams withRx = new Datagrams();
            Channel with = bind(group, ChannelType.UDP, withRx, new InetSocketAddress(0), true);
            InetAddress second = InetAddress.getByName("127.0.0.2");
            try {
                int port = ((InetSocketAddress) with.localAddress()).getPort();
                assertEquals(true, with.config().getOption(ChannelOption.IP_RECVORIGDSTADDR));
                for (int i = 0; i < 8; i++) {
                    InetAddress to = i % 2 == 0 ? second : InetAddress.getLoopbackAddress();
                    jdk.send(ByteBuffer.wrap(new byte[] {(byte) i}), new InetSocketAddress(to, port));
                    Datagrams.Received r = withRx.poll();
                    assertArrayEquals(new byte[] {(byte) i}, r.content());
                    assertEquals(new InetSocketAddress(to, port), r.recipient(),
                            "the recipient is the address datagram " + i + " was sent to, not the wildcard");
                }
            } finally {
                closeAll(with);
            }
        }
    }

    @Test
    void ipMulticastIfChoosesLoopbackAndAMulticastDatagramGoesOutThere() throws Exception {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1"));
        assertNotNull(lo, "the loopback interface");
        InetAddress groupAddress = InetAddress.getByName("239.255.67.90");
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Datagrams rx = new Datagrams();
            Channel receiver = bind(group, ChannelType.UDP, rx, new InetSocketAddress(0), false);
            Channel sender = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.UDP)
                    .handler(new Datagrams()).option(ChannelOption.IP_MULTICAST_IF, lo)
                    .bind(new InetSocketAddress(0)));
            try {
                assertEquals(lo, sender.config().getOption(ChannelOption.IP_MULTICAST_IF), "read back");
                assertNull(receiver.config().getOption(ChannelOption.IP_MULTICAST_IF), "not set: the kernel chooses");
                io.conduit.channel.DatagramChannel r = (io.conduit.channel.DatagramChannel) receiver;
                await(r.joinGroup(groupAddress, lo));
                await(r.joinGroup(groupAddress, lo)); // a second join is no error
                int port = ((InetSocketAddress) receiver.localAddress()).getPort();
                await(sender.writeAndFlush(new DatagramPacket(content(sender, new byte[] {1, 2, 3}),
                        new InetSocketAddress(groupAddress, port))));
                Datagrams.Received got = rx.poll();
                assertArrayEquals(new byte[] {1, 2, 3}, got.content());
                assertTrue(((InetSocketAddress) got.sender()).getAddress().isLoopbackAddress(), "from loopback");
                await(r.leaveGroup(groupAddress, lo));
                await(r.leaveGroup(groupAddress, lo)); // leaving a group it is not in has no effect
            } finally {
                closeAll(receiver, sender);
            }
        }
    }

    @Test
    void aConnectedChannelTalksToItsPeerThenDisconnectsAndSendsToOthers() throws Exception {
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Datagrams aRx = new Datagrams();
            Datagrams bRx = new Datagrams();
            Channel a = bind(group, ChannelType.UDP, aRx, loopback(), false);
            Channel b = bind(group, ChannelType.UDP, bRx, loopback(), false);
            try {
                InetSocketAddress aAddress = (InetSocketAddress) a.localAddress();
                SocketAddress bAddress = b.localAddress();
                await(b.connect(aAddress));
                assertEquals(bAddress, b.localAddress(), "connect keeps the bound address");
                for (int i = 0; i < 10; i++) {
                    await(b.writeAndFlush(content(b, payload(i))));
                    Datagrams.Received r = aRx.poll();
                    assertArrayEquals(payload(i), r.content());
                    assertEquals(bAddress, r.sender());
                    await(a.writeAndFlush(new DatagramPacket(content(a, payload(i)), (InetSocketAddress) bAddress)));
                    Datagrams.Received back = bRx.poll();
                    assertArrayEquals(payload(i), back.content(), "reply " + i);
                    assertEquals(aAddress, back.sender(), "a connected channel still names the sender");
                }
                await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(0), (InetSocketAddress) bAddress)));
                assertEquals(0, bRx.poll().content().length, "an empty datagram reaches the connected channel");
                await(b.disconnect());
                assertEquals(bAddress, b.localAddress(), "the port survives the disconnect");
                try (DatagramChannel other = DatagramChannel.open()) {
                    other.bind(loopback());
                    await(b.writeAndFlush(new DatagramPacket(content(b, new byte[] {42}),
                            (InetSocketAddress) other.getLocalAddress())));
                    ByteBuffer got = ByteBuffer.allocate(8);
                    other.configureBlocking(true);
                    other.socket().setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                    assertEquals(bAddress, other.receive(got));
                    assertEquals(1, got.flip().remaining());
                    other.send(ByteBuffer.wrap(new byte[] {43}), bAddress);
                    Datagrams.Received r = bRx.poll();
                    assertArrayEquals(new byte[] {43}, r.content());
                    assertEquals(other.getLocalAddress(), r.sender(), "unconnected again: anyone's datagrams arrive");
                }
            } finally {
                closeAll(a, b);
            }
        }
    }

    @Test
    void twoChannelsBoundToAbstractNamesExchangeDatagramsAndSeeEachOthersName() throws Exception {
        UnixAbstractAddress aName = UnixAbstractAddress.of("conduit-iouring-a-" + ProcessHandle.current().pid()
                + "-" + System.nanoTime());
        UnixAbstractAddress bName = UnixAbstractAddress.of("conduit-iouring-b-" + ProcessHandle.current().pid()
                + "-" + System.nanoTime());
        try (EventLoopGroup group = transport.newEventLoopGroup(2)) {
            Datagrams aRx = new Datagrams();
            Datagrams bRx = new Datagrams();
            Channel a = bind(group, ChannelType.UNIX_DATAGRAM, aRx, aName, false);
            Channel b = bind(group, ChannelType.UNIX_DATAGRAM, bRx, bName, false);
            try {
                assertEquals(aName, a.localAddress());
                for (int i = 0; i < 10; i++) {
                    await(a.writeAndFlush(new DomainDatagramPacket(content(a, payload(i)), bName)));
                    Datagrams.Received got = bRx.poll();
                    assertArrayEquals(payload(i), got.content());
                    assertEquals(aName, got.sender(), "the sender's abstract name comes with the datagram");
                    assertEquals(bName, got.recipient());
                    await(b.writeAndFlush(new DomainDatagramPacket(content(b, payload(i)), got.sender())));
                    assertEquals(bName, aRx.poll().sender());
                }
            } finally {
                closeAll(a, b);
            }
        }
    }

    /**
     * Closes, 150 times, a UDP channel whose {@code POLLIN} wait is in flight while datagrams pour in, and a Unix
     * datagram channel whose {@code POLLOUT} wait is in flight (its peer does not read), and once the loop ends, so a
     * close meets requests at every stage. Every close completes, the loop keeps working, and the descriptors are back.
     */
    @Test
    void closingSocketsWithReceivesAndAWriteWaitInFlightManyTimesLeaksNothing() throws Exception {
        Path dir = Files.createTempDirectory("iouring-dgram");
        try (DatagramChannel blaster = DatagramChannel.open()) {
            blaster.bind(loopback());
            assertTrue(IoUringPermutations.IO_URING.availability().isAvailable()); // the probe's ring is gone
            long withoutLoop = IoUringTransportTest.settledDescriptors(IoUringTransportTest.openDescriptors());
            try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
                await(group.next().submit(() -> null)); // the loop's own descriptors exist before the count
                long before = IoUringTransportTest.settledDescriptors(IoUringTransportTest.openDescriptors());
                for (int round = 0; round < 150; round++) {
                    Datagrams rx = new Datagrams();
                    Channel udp = bind(group, ChannelType.UDP, rx, loopback(), false);
                    SocketAddress udpAddress = udp.localAddress();
                    for (int i = 0; i < 8; i++) {
                        blaster.send(ByteBuffer.wrap(payload(i)), udpAddress);
                    }
                    Channel quiet = await(new Bootstrap().transport(transport).group(group)
                            .channelType(ChannelType.UNIX_DATAGRAM).handler(new Datagrams())
                            .option(ChannelOption.AUTO_READ, false)
                            .bind(java.net.UnixDomainSocketAddress.of(dir.resolve("q" + round + ".sock"))));
                    Channel writer = bind(group, ChannelType.UNIX_DATAGRAM, new Datagrams(),
                            java.net.UnixDomainSocketAddress.of(dir.resolve("w" + round + ".sock")), false);
                    List<Future<Void>> writes = new ArrayList<>();
                    for (int i = 0; i < 400; i++) {
                        writes.add(writer.write(new DomainDatagramPacket(content(writer, payload(1)),
                                quiet.localAddress())));
                    }
                    writer.flush();
                    if (round % 3 == 0) {
                        rx.poll(); // sometimes a receive completed before the close, sometimes not
                    }
                    assertTrue(writer.close().await(10, TimeUnit.SECONDS), "round " + round + ": writer closed");
                    assertTrue(udp.close().await(10, TimeUnit.SECONDS), "round " + round + ": UDP channel closed");
                    assertTrue(quiet.close().await(10, TimeUnit.SECONDS), "round " + round + ": receiver closed");
                    assertNull(awaitDone(writes.get(0)), "round " + round + ": the first write was sent");
                    assertInstanceOf(ChannelClosedException.class, awaitDone(writes.get(writes.size() - 1)),
                            "round " + round + ": the last write waited for room (POLLOUT) until the close");
                }
                Datagrams rx = new Datagrams();
                Channel last = bind(group, ChannelType.UDP, rx, loopback(), false);
                blaster.send(ByteBuffer.wrap(new byte[] {7}), last.localAddress());
                assertArrayEquals(new byte[] {7}, rx.poll().content(), "the loop still receives");
                assertTrue(last.close().await(10, TimeUnit.SECONDS));
                assertEquals(before, IoUringTransportTest.settledDescriptors(before),
                        "every closed channel's descriptor is closed");
                // the loop ends with receives in flight: its end cancels them and closes their descriptors
                Channel open = bind(group, ChannelType.UDP, new Datagrams(), loopback(), false);
                blaster.send(ByteBuffer.wrap(new byte[] {8}), open.localAddress());
            }
            assertEquals(withoutLoop, IoUringTransportTest.settledDescriptors(withoutLoop),
                    "the ended loop's ring, eventfd and last socket are closed");
        } finally {
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(0, files.count(), "every Unix socket file was removed at close");
            }
            Files.delete(dir);
        }
    }
}
