package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DatagramPacket;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * UDP on loopback: byte-exact unicast of several sizes, empty datagrams (sent unconnected, received by
 * unconnected and connected channels), connected channels writing plain buffers, multicast membership.
 */
public abstract class DatagramTest extends AbstractTransportTest {

    private Channel bindUdp(Transport t, Combo combo, Recorder r) {
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
}
