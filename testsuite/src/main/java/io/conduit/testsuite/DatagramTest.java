package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DatagramPacket;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.DatagramLimits;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * UDP on loopback: byte-exact unicast of several sizes, empty datagrams (sent unconnected, received by
 * unconnected and connected channels), connected channels writing plain buffers, the address rule of
 * {@link DatagramChannel} (a connected channel sends to its peer only; bad addresses fail with messages),
 * multicast membership, and that the core frees every packet's content it owns (sent, failed, refused,
 * pending at close, or reaching the pipeline tail unhandled).
 */
public abstract class DatagramTest extends AbstractTransportTest {

    private Channel bindUdp(Transport t, Combo combo, ChannelHandler r) {
        return await(new Bootstrap().transport(t).group(group(t)).channelType(ChannelType.UDP).handler(r)
                .option(ChannelOption.ALLOCATOR, combo.allocator().allocator()).bind(loopback()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void unicastDatagramsArriveByteExactIncludingEmptyOnes(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder receiverEvents = new Recorder();
        Channel receiver = bindUdp(combo.serverTransport(), combo, receiverEvents);
        Channel sender = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            int[] sizes = {0, 1, 512, 1400, 8192, 60_000};
            for (int size : sizes) {
                byte[] data = randomBytes(size, size);
                await(sender.writeAndFlush(new DatagramPacket(sender.alloc().buffer(size).writeBytes(data), to)));
                Recorder.ReceivedDatagram d = receiverEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertNotNull(d, "datagram of " + size + " bytes");
                assertArrayEquals(data, d.content(), "datagram of " + size + " bytes");
                assertEquals(((InetSocketAddress) sender.localAddress()).getPort(), d.sender().getPort());
            }
        } finally {
            closeAll(sender, receiver);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void connectedChannelsReadAndWritePlainBuffers(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder aEvents = new Recorder();
        Recorder bEvents = new Recorder();
        Channel a = bindUdp(combo.serverTransport(), combo, aEvents);
        Channel b = bindUdp(combo.clientTransport(), combo, bEvents);
        try {
            await(b.connect(a.localAddress()));
            assertTrue(((DatagramChannel) b).isConnected());
            assertEquals(a.localAddress(), b.remoteAddress());
            byte[] hello = randomBytes(300, 1);
            await(b.writeAndFlush(b.alloc().buffer(300).writeBytes(hello)));
            Recorder.ReceivedDatagram d = aEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d);
            assertArrayEquals(hello, d.content());
            // reply to the connected channel
            byte[] reply = randomBytes(200, 2);
            await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(200).writeBytes(reply), d.sender())));
            Recorder.ReceivedDatagram r = bEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(r);
            assertArrayEquals(reply, r.content());
            await(a.writeAndFlush(new DatagramPacket(a.alloc().buffer(0), d.sender())));
            Recorder.ReceivedDatagram empty = bEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(empty, "an empty datagram to a connected channel is delivered");
            assertEquals(0, empty.content().length);
        } finally {
            closeAll(a, b);
        }
    }

    /**
     * The rule of {@link DatagramChannel} for every transport: connected, a packet to the peer or without a
     * recipient is sent; one to another address fails its own write with both addresses named, and the channel
     * stays open; connecting again fails until disconnected.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aConnectedChannelSendsToItsPeerOnlyAndStaysOpen(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder peerEvents = new Recorder();
        Recorder otherEvents = new Recorder();
        Channel peer = bindUdp(combo.serverTransport(), combo, peerEvents);
        Channel other = bindUdp(combo.serverTransport(), combo, otherEvents);
        Channel b = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress peerAddress = (InetSocketAddress) peer.localAddress();
            InetSocketAddress otherAddress = (InetSocketAddress) other.localAddress();
            await(b.connect(peerAddress));
            byte[] one = randomBytes(100, 3);
            await(b.writeAndFlush(new DatagramPacket(b.alloc().buffer(100).writeBytes(one), peerAddress)));
            Recorder.ReceivedDatagram d = peerEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "a packet to the connected peer is sent");
            assertArrayEquals(one, d.content());
            byte[] two = randomBytes(50, 4);
            await(b.writeAndFlush(new DatagramPacket(b.alloc().buffer(50).writeBytes(two), null)));
            d = peerEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "a packet without a recipient goes to the connected peer");
            assertArrayEquals(two, d.content());

            Throwable cause = awaitDone(b.writeAndFlush(new DatagramPacket(b.alloc().buffer(10).writeBytes(
                    randomBytes(10, 5)), otherAddress)));
            assertInstanceOf(AlreadyConnectedException.class, cause, String.valueOf(cause));
            String message = String.valueOf(cause.getMessage());
            assertTrue(message.contains(":" + peerAddress.getPort()) && message.contains(":" + otherAddress.getPort()),
                    "names both addresses: " + message);
            assertTrue(b.isOpen(), "one refused packet does not close the channel");
            assertEquals(null, otherEvents.datagrams.poll(100, TimeUnit.MILLISECONDS), "nothing reached the other");

            cause = awaitDone(b.connect(otherAddress));
            assertInstanceOf(AlreadyConnectedException.class, cause, String.valueOf(cause));
            message = String.valueOf(cause.getMessage());
            assertTrue(message.contains(":" + peerAddress.getPort()) && message.contains("disconnect"), message);
            assertTrue(b.isOpen());
            assertEquals(peerAddress, b.remoteAddress());

            await(b.writeAndFlush(b.alloc().buffer(3).writeBytes(new byte[] {1, 2, 3})));
            d = peerEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "still sends to the peer afterwards");
            assertArrayEquals(new byte[] {1, 2, 3}, d.content());
        } finally {
            closeAll(b, other, peer);
        }
    }

    /**
     * A UDP datagram one byte longer than IPv4 carries (65,507 bytes) fails its own write, unconnected and connected,
     * with an {@link IOException} saying "Message too long" and naming its length and the limit (it once said only
     * "Message too long"); its content is released, the channel stays open, and a datagram of exactly the limit
     * arrives whole.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aDatagramLongerThanUdpCarriesFailsWithItsLengthAndTheLimit(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder receiverEvents = new Recorder();
        Channel receiver = bindUdp(combo.serverTransport(), combo, receiverEvents);
        Channel sender = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            int max = DatagramLimits.MAX_UDP_PAYLOAD_IPV4_BYTES;
            for (boolean connected : new boolean[] {false, true}) {
                if (connected) {
                    await(sender.connect(to));
                }
                String mode = connected ? "connected" : "unconnected";
                Buffer tooLong = sender.alloc().buffer(max + 1).writeBytes(randomBytes(max + 1, 11));
                Throwable cause = awaitDone(sender.writeAndFlush(new DatagramPacket(tooLong, to)));
                assertInstanceOf(IOException.class, cause, mode + ": " + cause);
                String message = String.valueOf(cause.getMessage());
                assertTrue(message.contains("Message too long") && message.contains((max + 1) + " bytes")
                        && message.contains("at most " + max + " bytes"), mode + ": " + message);
                assertEquals(0, tooLong.refCnt(), mode + ": the content of a failed datagram is released");
                assertTrue(sender.isOpen(), mode + ": the channel stays open");
                byte[] largest = randomBytes(max, 12);
                await(sender.writeAndFlush(new DatagramPacket(sender.alloc().buffer(max).writeBytes(largest), to)));
                Recorder.ReceivedDatagram d = receiverEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                assertNotNull(d, mode + ": a datagram of exactly the limit arrives");
                assertArrayEquals(largest, d.content(), mode);
            }
        } finally {
            closeAll(sender, receiver);
        }
    }

    /**
     * A datagram written on a channel neither bound nor connected fails at once with a
     * {@link NotYetConnectedException} saying so (it once waited forever), and its content is released.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aDatagramOnAnUnboundChannelFailsWithNotYetConnected(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        Transport t = combo.clientTransport();
        Channel receiver = bindUdp(combo.serverTransport(), combo, new Recorder());
        Channel ch = null;
        try {
            ch = await(new Bootstrap().transport(t).group(group(t)).channelType(ChannelType.UDP)
                    .handler(new Recorder()).register());
            Buffer content = ch.alloc().buffer(1).writeByte(1);
            Throwable cause = awaitDone(ch.writeAndFlush(new DatagramPacket(content,
                    (InetSocketAddress) receiver.localAddress())));
            assertInstanceOf(NotYetConnectedException.class, cause);
            assertTrue(cause.getMessage().contains(ch.id()) && cause.getMessage().contains("bind or connect it"),
                    cause.getMessage());
            assertEquals(0, content.refCnt(), "the failed datagram's content is released");
            assertTrue(ch.isOpen());
        } finally {
            closeAll(ch, receiver);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void badAddressesFailTheirOperationWithAMessage(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Channel ch = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress unresolved = InetSocketAddress.createUnresolved("no-such-host.invalid", 5000);
            Throwable cause = awaitDone(ch.writeAndFlush(new DatagramPacket(ch.alloc().buffer(1).writeByte(1), unresolved)));
            assertInstanceOf(UnresolvedAddressException.class, cause, String.valueOf(cause));
            assertTrue(String.valueOf(cause.getMessage()).contains("no-such-host.invalid:5000")
                    && cause.getMessage().contains("resolve"), cause.getMessage());

            cause = awaitDone(ch.connect(unresolved));
            assertInstanceOf(UnresolvedAddressException.class, cause, String.valueOf(cause));
            assertTrue(String.valueOf(cause.getMessage()).contains("no-such-host.invalid:5000"), cause.getMessage());

            UnixDomainSocketAddress unix = unixAddress();
            cause = awaitDone(ch.connect(unix));
            assertInstanceOf(UnsupportedAddressTypeException.class, cause, String.valueOf(cause));
            assertTrue(String.valueOf(cause.getMessage()).contains(unix.getPath().toString())
                    && cause.getMessage().contains("use InetSocketAddress"), cause.getMessage());

            cause = awaitDone(ch.writeAndFlush(ch.alloc().buffer(1).writeByte(1)));
            assertInstanceOf(NotYetConnectedException.class, cause, String.valueOf(cause));
            assertTrue(String.valueOf(cause.getMessage()).contains("recipient"), cause.getMessage());
            assertTrue(ch.isOpen(), "bad addresses do not close the channel");
        } finally {
            closeAll(ch);
        }
    }

    /**
     * The core owns a written packet: it frees the content once the datagram was sent, when the send failed, when
     * the channel was closed before the write, and when the channel closed with the write still queued.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void writtenPacketsHaveTheirContentReleasedWhateverTheOutcome(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder receiverEvents = new Recorder();
        Channel receiver = bindUdp(combo.serverTransport(), combo, receiverEvents);
        Channel sender = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            Buffer sent = sender.alloc().buffer(16).writeBytes(randomBytes(16, 6));
            await(sender.writeAndFlush(new DatagramPacket(sent, to)));
            assertEquals(0, sent.refCnt(), "a sent packet's content is released");
            assertNotNull(receiverEvents.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS), "the datagram arrived");

            Buffer failed = sender.alloc().buffer(1).writeByte(1);
            assertNotNull(awaitDone(sender.writeAndFlush(new DatagramPacket(failed,
                    InetSocketAddress.createUnresolved("no-such-host.invalid", 5000)))));
            assertEquals(0, failed.refCnt(), "a failed packet's content is released");

            Buffer queued = sender.alloc().buffer(1).writeByte(2);
            var pending = sender.write(new DatagramPacket(queued, to)); // not flushed: still queued at close
            await(sender.close());
            assertNotNull(awaitDone(pending), "a write pending at close fails");
            assertEquals(0, queued.refCnt(), "the content of a packet pending at close is released");

            Buffer late = sender.alloc().buffer(1).writeByte(3);
            assertNotNull(awaitDone(sender.writeAndFlush(new DatagramPacket(late, to))));
            assertEquals(0, late.refCnt(), "a packet written to a closed channel has its content released");
        } finally {
            closeAll(sender, receiver);
        }
    }

    /**
     * A received packet that no handler consumes is freed by the pipeline tail, on the batch (unconnected) and the
     * single-read (connected) receive path alike: the handler passes it on and records the content's count after
     * the tail ran.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void receivedPacketsNobodyConsumesAreReleasedByThePipelineTail(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        BlockingQueue<Integer> countsAfterTail = new LinkedBlockingQueue<>();
        Channel unconnected = bindUdp(combo.serverTransport(), combo, passToTailRecordingCount(countsAfterTail));
        Channel connected = bindUdp(combo.serverTransport(), combo, passToTailRecordingCount(countsAfterTail));
        Channel sender = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            await(connected.connect(sender.localAddress()));
            for (Channel receiver : new Channel[] {unconnected, connected}) {
                for (int i = 0; i < 3; i++) {
                    await(sender.writeAndFlush(new DatagramPacket(sender.alloc().buffer(8).writeBytes(
                            randomBytes(8, i)), (InetSocketAddress) receiver.localAddress())));
                    assertTailReleased(countsAfterTail, "datagram " + i + " of " + receiver);
                }
            }
        } finally {
            closeAll(sender, connected, unconnected);
        }
    }

    /**
     * Joins and leaves an administratively scoped group on the loopback interface. Nothing is sent to the
     * group: the test stays on this host whatever the routing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void joinsAndLeavesAMulticastGroupOnLoopback(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        java.net.NetworkInterface lo = java.net.NetworkInterface.getByInetAddress(java.net.InetAddress.getLoopbackAddress());
        assertNotNull(lo, "no loopback interface");
        java.net.InetAddress group = java.net.InetAddress.getByName("239.255.42.99");
        Channel ch = bindUdp(combo.serverTransport(), combo, new Recorder());
        try {
            DatagramChannel dc = (DatagramChannel) ch;
            await(dc.joinGroup(group, lo));
            await(dc.joinGroup(group, lo)); // already a member: no error
            await(dc.leaveGroup(group, lo));
            await(dc.leaveGroup(group, lo)); // not a member any more: no effect
            assertTrue(ch.isOpen());
        } finally {
            closeAll(ch);
        }
    }

    /**
     * The traffic counters {@code conduit:channels} shows count every datagram's payload both ways, unconnected
     * (the {@code recvmmsg}/{@code sendmmsg} batches on the native transports) and connected: a burst written with one
     * flush, so that the sender can batch it and the receiver read several at once.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void trafficCountersCountEveryDatagramsBytesUnconnectedAndConnected(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder rx = new Recorder();
        Channel receiver = bindUdp(combo.serverTransport(), combo, rx);
        Channel sender = bindUdp(combo.clientTransport(), combo, new Recorder());
        Recorder crx = new Recorder();
        Channel connectedReceiver = bindUdp(combo.serverTransport(), combo, crx);
        Channel connected = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            int[] sizes = {0, 1, 100, 512, 1400, 3000, 8192, 17, 0, 999, 1200, 64, 4096, 33, 7, 1472};
            long total = 0;
            List<io.conduit.concurrent.Future<Void>> writes = new ArrayList<>();
            for (int i = 0; i < sizes.length; i++) {
                writes.add(sender.write(new DatagramPacket(sender.alloc().buffer(sizes[i])
                        .writeBytes(randomBytes(sizes[i], i)), to)));
                total += sizes[i];
            }
            sender.flush();
            writes.forEach(AbstractTransportTest::await);
            for (int i = 0; i < sizes.length; i++) {
                assertNotNull(rx.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS), "datagram " + i);
            }
            assertEquals(total, traffic(sender).bytesWritten(), "bytes out of the unconnected sender");
            assertEquals(total, traffic(receiver).bytesRead(), "bytes into the unconnected receiver");
            assertEquals(0, traffic(sender).bytesRead());
            assertEquals(0, traffic(receiver).bytesWritten());

            // connected: no empty datagram (java.nio cannot send one from a connected channel, and says so)
            await(connected.connect(connectedReceiver.localAddress()));
            writes.clear();
            int count = 0;
            for (int size : sizes) {
                if (size > 0) {
                    writes.add(connected.write(connected.alloc().buffer(size).writeBytes(randomBytes(size, size))));
                    count++;
                }
            }
            connected.flush();
            writes.forEach(AbstractTransportTest::await);
            for (int i = 0; i < count; i++) {
                assertNotNull(crx.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS), "connected datagram " + i);
            }
            assertEquals(total, traffic(connected).bytesWritten(), "bytes out of the connected channel");
            assertEquals(total, traffic(connectedReceiver).bytesRead(), "bytes into its peer");
        } finally {
            closeAll(sender, receiver, connected, connectedReceiver);
        }
    }

    /**
     * A datagram read whose allocator fails (as the shared allocators do with a malformed
     * {@code conduit.leakDetection}) fires that exception once and closes the channel, instead of warning on every
     * datagram and delivering none; a socket error still leaves the channel open.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aReadWhoseAllocatorFailsFiresItOnceAndClosesTheChannel(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        RefusingAllocator refusing = new RefusingAllocator();
        Recorder rx = new Recorder();
        Transport t = combo.serverTransport();
        Channel receiver = await(new Bootstrap().transport(t).group(group(t)).channelType(ChannelType.UDP).handler(rx)
                .option(ChannelOption.ALLOCATOR, refusing).bind(loopback()));
        Channel sender = bindUdp(combo.clientTransport(), combo, new Recorder());
        try {
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            for (int i = 0; i < 3; i++) {
                await(sender.writeAndFlush(new DatagramPacket(sender.alloc().buffer(8).writeLong(i), to)));
            }
            assertEquals(refusing.refusal, await(rx.firstException, "the allocator's exception"));
            await(rx.inactive, "the receiver to close");
            assertTrue(awaitDone(receiver.closeFuture()) == null && !receiver.isOpen());
            assertEquals(1, rx.count(e -> e.startsWith("exception")), rx.events().toString());
            assertEquals(0, rx.datagrams.size(), "nothing delivered");
        } finally {
            closeAll(sender, receiver);
        }
    }
}
