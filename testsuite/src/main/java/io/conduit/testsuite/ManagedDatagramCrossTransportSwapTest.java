package io.conduit.testsuite;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.testsuite.CoreChannels;
import io.conduit.testsuite.EpollNioSwaps;
import io.conduit.testsuite.RenamedTransport;
import io.conduit.testsuite.UdpEchoLoad;
import io.conduit.transport.ChannelType;
import io.conduit.transport.ManagedDatagramEndpoint;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * UDP endpoints following transport swaps ({@link ManagedDatagramEndpoint}) between real sockets of the transport
 * under test and nio: the kernel facts the hand-over relies on, then loss measured under load while the selection
 * flips and a copy of the transport under test goes away.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ManagedDatagramCrossTransportSwapTest {

    /**
     * @return the name of the registered transport under test; the suite swaps between it and {@code nio}, the
     *         fallback every installation has
     */
    protected abstract String transportUnderTest();

    /** @return the transport under test and nio: each is the old socket of a hand-over once */
    List<String> bothTransports() {
        return List.of(transportUnderTest(), "nio");
    }

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<TransportProvider> registered = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        Transports.setPreference(null);
        registered.forEach(Transports::unregister);
    }

    /** Echoes every datagram to its sender; sharable and stateless. */
    @ChannelHandler.Sharable
    static final class DatagramEcho implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            DatagramPacket p = (DatagramPacket) msg;
            ctx.write(new DatagramPacket(p.content(), p.sender()));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Records the sender and first byte of every datagram read; sharable. */
    @ChannelHandler.Sharable
    static final class Recorder implements ChannelHandler {
        final Set<String> seen = ConcurrentHashMap.newKeySet();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try (DatagramPacket p = (DatagramPacket) msg) {
                seen.add(p.sender().getPort() + ":" + p.content().getByte(p.content().readerIndex()));
            }
        }
    }

    /**
     * The kernel facts of the hand-over, for both transports as the old socket: datagrams queued in it before
     * {@code connectAway} are still delivered, with their senders; afterwards every new datagram goes to the other
     * {@code SO_REUSEPORT} socket, whatever its sender's hash.
     */
    @ParameterizedTest
    @MethodSource("bothTransports")
    void connectAwayKeepsTheQueueAndSteersNewDatagramsToTheSuccessor(String transportName) throws Exception {
        Transport t = Transports.get(transportName);
        EventLoopGroup group = t.newEventLoopGroup(1);
        Recorder recorder = new Recorder();
        List<DatagramChannel> senders = new ArrayList<>();
        try (DatagramChannel successor = DatagramChannel.open()) {
            Channel old = new Bootstrap().transport(t).group(group).channelType(ChannelType.UDP).handler(recorder)
                    .option(ChannelOption.SO_REUSEPORT, Boolean.TRUE).option(ChannelOption.AUTO_READ, Boolean.FALSE)
                    .bind(new InetSocketAddress(LOOPBACK, 0)).sync().getNow();
            InetSocketAddress address = (InetSocketAddress) old.localAddress();
            for (int i = 0; i < 32; i++) {
                DatagramChannel s = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0));
                senders.add(s);
                s.send(ByteBuffer.wrap(new byte[] {1}), address); // queued: the old socket is alone and not reading
            }
            successor.setOption(StandardSocketOptions.SO_REUSEPORT, true).bind(address).configureBlocking(false);
            try (DatagramChannel sink = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
                assertTrue(CoreChannels.connectAway(old, (InetSocketAddress) sink.getLocalAddress())
                        .get(5, TimeUnit.SECONDS), transportName + " connects away");
                assertTrue(old.isOpen());
                assertTrue(old.remoteAddress() == null, "still unconnected for the channel: " + old.remoteAddress());
                for (DatagramChannel s : senders) {
                    s.send(ByteBuffer.wrap(new byte[] {2}), address);
                }
                Set<String> atSuccessor = new HashSet<>();
                ByteBuffer b = ByteBuffer.allocate(16);
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (atSuccessor.size() < senders.size() && System.nanoTime() < end) {
                    InetSocketAddress from = (InetSocketAddress) successor.receive(b.clear());
                    if (from == null) {
                        Thread.sleep(1);
                        continue;
                    }
                    assertEquals(2, b.get(0), "only datagrams sent after connectAway reach the successor");
                    atSuccessor.add(from.getPort() + ":2");
                }
                assertEquals(senders.size(), atSuccessor.size(), "every new datagram went to the successor");
                old.config().setAutoRead(true);
                end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (recorder.seen.size() < senders.size() && System.nanoTime() < end) {
                    Thread.sleep(1);
                }
                Set<String> expected = new HashSet<>();
                for (DatagramChannel s : senders) {
                    expected.add(((InetSocketAddress) s.getLocalAddress()).getPort() + ":1");
                }
                assertEquals(expected, recorder.seen, "the queued datagrams, each with its sender, and nothing else");
            } finally {
                old.close().sync();
            }
        } finally {
            for (DatagramChannel s : senders) {
                s.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    /**
     * An endpoint bound to the wildcard address: the old socket's connect to the loopback sink gives it the loopback
     * address, and the marker sent there still comes back behind its queue, so every hand-over ends by reading the
     * old socket dry, within milliseconds, not by the marker's 2 s timeout. Swaps run one after the other on the
     * endpoint's thread, so a swap asked for right after another one finishes only after the other's hand-over:
     * each takes well under those 2 s. Echoes work after every swap, at the same port.
     */
    @Test
    void aWildcardEndpointIsReadDryOnEverySwap() throws Exception {
        Transports.setPreference(transportUnderTest());
        ManagedDatagramEndpoint endpoint = new ManagedDatagramEndpoint(new InetSocketAddress("0.0.0.0", 0))
                .handler(new DatagramEcho());
        try (DatagramChannel client = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            InetSocketAddress to = new InetSocketAddress(LOOPBACK, endpoint.start().sync().getNow().getPort());
            client.configureBlocking(false);
            List<Long> millis = new ArrayList<>();
            for (String next : new String[] {"nio", transportUnderTest(), "nio", transportUnderTest()}) {
                long start = System.nanoTime();
                Transports.setPreference(next);
                while (!next.equals(endpoint.transportName())) {
                    if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(10)) {
                        fail("no swap to " + next + " within 10 s");
                    }
                    Thread.sleep(1);
                }
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                ByteBuffer reply = ByteBuffer.allocate(16);
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (reply.position() == 0 && System.nanoTime() < end) {
                    client.send(ByteBuffer.wrap(new byte[] {7}), to);
                    Thread.sleep(20);
                    client.receive(reply);
                }
                assertEquals(1, reply.position(), "an echo after the swap to " + next);
            }
            System.out.println("wildcard endpoint swaps (ms, each after the previous hand-over): " + millis);
            for (long m : millis.subList(1, millis.size())) {
                assertTrue(m < 1500, "the previous hand-over ended by its marker, not its 2 s timeout: " + millis);
            }
        } finally {
            endpoint.close().await(15, TimeUnit.SECONDS);
        }
    }

    private TransportProvider register(Transport t) {
        TransportProvider p = ((RenamedTransport) t).provider();
        assertTrue(Transports.register(p));
        registered.add(p);
        return p;
    }

    /**
     * Clients count echo replies ({@link UdpEchoLoad}, a bounded window each, so no receive buffer can overflow)
     * while the selection flips between the transport under test and nio and a copy of the transport under test
     * goes away (its provider unregistered); each lost datagram is charged to the swap it was sent after. Asserted:
     * nothing lost, and the endpoint ends on the transport under test. A hand-over from nio used to lose what arrived
     * between nio's last read and its connect away (the JDK's connect drops the queue; 4 datagrams once in a CI run,
     * where 3 were allowed); now the transport under test steers the group to the new socket first.
     */
    @Test
    void repliesKeepComingWhileTheSelectionFlipsAndTheTransportUnderTestGoesAway() throws Exception {
        Transports.setPreference(transportUnderTest());
        ManagedDatagramEndpoint endpoint = new ManagedDatagramEndpoint(new InetSocketAddress(LOOPBACK, 0))
                .handler(new DatagramEcho());
        try {
            InetSocketAddress address = endpoint.start().sync().getNow();
            assertEquals(transportUnderTest(), endpoint.transportName());
            TransportProvider second = register(new RenamedTransport(Transports.get(transportUnderTest()),
                    transportUnderTest() + "-b"));
            UdpEchoLoad.Result result;
            try (UdpEchoLoad load = new UdpEchoLoad(address, 4, 32, 500_000).start()) {
                EpollNioSwaps.run(transportUnderTest(), second, 300, load::mark);
                result = load.stop(UdpEchoLoad.WRITE_OFF_MILLIS * 2);
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!transportUnderTest().equals(endpoint.transportName())) {
                if (System.nanoTime() > end) {
                    fail("endpoint on " + endpoint.transportName());
                }
                Thread.sleep(10);
            }
            System.out.println("UDP endpoint swap load (" + transportUnderTest() + "): " + result);
            for (UdpEchoLoad.Phase phase : result.phases()) {
                assertEquals(0, phase.lost(), phase.label() + " loses nothing; " + result);
            }
            assertTrue(result.sent() > 5_000, result.toString());
        } finally {
            endpoint.close().await(15, TimeUnit.SECONDS);
        }
    }
}
