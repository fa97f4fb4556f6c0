package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The provider's place in the selection, the kinds the transport offers, and the ownership rules of completion I/O
 * seen from outside: a close with a receive in flight ends the connection at once, output staged before a close
 * reaches the peer before its end of stream, and neither a close nor the end of a loop leaves a descriptor behind.
 */
@Timeout(60)
class IoUringTransportTest {

    private static final TransportProvider PROVIDER = new IoUringTransportProvider();

    @Test
    void ranksBelowEpollAndIsSelectedOnlyByName() {
        assertEquals("io_uring", PROVIDER.name());
        assertTrue(PROVIDER.isNative());
        assertTrue(PROVIDER.ranking() < 90 && PROVIDER.ranking() > 10, "below epoll (100) and kqueue (90), above nio");
        assertFalse(PROVIDER.autoSelectable(), "TCP only: auto must not pick it for a kind it lacks");
        assertTrue(ServiceLoader.load(TransportProvider.class).stream()
                .anyMatch(p -> p.type() == IoUringTransportProvider.class), "found through ServiceLoader");
    }

    @Test
    void offersTcpOnlyAndRefusesTheOtherKindsNamingWhatItHas() throws Exception {
        Transport t = PROVIDER.transport();
        assertEquals(Set.of(ChannelType.TCP), t.channelTypes());
        assertFalse(t.supportsAddress(UnixDomainSocketAddress.of("/tmp/x.sock")));
        try (EventLoopGroup g = t.newEventLoopGroup(1)) {
            for (ChannelType type : new ChannelType[] {ChannelType.UDP, ChannelType.UNIX_STREAM,
                    ChannelType.UNIX_DATAGRAM}) {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                        () -> t.newChannel(type, g.next()));
                assertTrue(e.getMessage().contains("'io_uring' transport has no " + type)
                        && e.getMessage().contains("[TCP]"), e.getMessage());
            }
        }
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static long settledDescriptors(long expected) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long n = openDescriptors();
        while (n != expected && System.nanoTime() - end < 0) {
            Thread.sleep(20);
            n = openDescriptors();
        }
        return n;
    }

    @Test
    void closingWithAReceiveInFlightEndsTheConnectionAndFreesItsDescriptor() throws Exception {
        Transport t = PROVIDER.transport();
        try (EventLoopGroup g = t.newEventLoopGroup(2);
                ServerSocket peer = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            g.submit(() -> null).get(); // the loops' own descriptors exist before the count
            g.next().submit(() -> null).get();
            long before = settledDescriptors(openDescriptors());
            int n = 20;
            List<Channel> channels = new ArrayList<>();
            List<Socket> accepted = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                channels.add(new Bootstrap().transport(t).group(g).channelType(ChannelType.TCP)
                        .handler(new ChannelHandler() { }).connect(peer.getLocalSocketAddress())
                        .get(10, TimeUnit.SECONDS));
                accepted.add(peer.accept());
            }
            for (Channel ch : channels) {
                assertTrue(ch.close().await(10, TimeUnit.SECONDS)); // auto-read: a receive is in flight
            }
            for (Socket s : accepted) {
                s.setSoTimeout(5_000);
                assertEquals(-1, s.getInputStream().read(), "the peer sees end of stream after the close");
                s.close();
            }
            assertEquals(before, settledDescriptors(before), "every descriptor of the closed connections is closed");
        }
    }

    @Test
    void bytesStagedBeforeACloseReachThePeerBeforeItsEndOfStream() throws Exception {
        Transport t = PROVIDER.transport();
        byte[] data = new byte[100_000];
        new java.util.Random(20).nextBytes(data);
        try (EventLoopGroup g = t.newEventLoopGroup(1);
                ServerSocket peer = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            peer.setReceiveBufferSize(4096);
            Channel ch = new Bootstrap().transport(t).group(g).channelType(ChannelType.TCP)
                    .option(io.conduit.channel.ChannelOption.SO_SNDBUF, 4096)
                    .handler(new ChannelHandler() { }).connect(peer.getLocalSocketAddress()).get(10, TimeUnit.SECONDS);
            try (Socket s = peer.accept()) {
                assertTrue(ch.writeAndFlush(ch.alloc().buffer(data.length).writeBytes(data))
                        .await(10, TimeUnit.SECONDS));
                assertTrue(ch.close().await(10, TimeUnit.SECONDS));
                Thread.sleep(200); // the peer reads only now: the send was still in flight at the close
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                byte[] got = in.readAllBytes();
                assertEquals(data.length, got.length, "every byte the channel accepted, then end of stream");
                assertTrue(java.util.Arrays.equals(data, got));
            }
        }
    }

    @Test
    void aLoopThatEndsWithConnectionsOpenCancelsTheirRequestsAndClosesThem() throws Exception {
        Transport t = PROVIDER.transport();
        try (ServerSocket peer = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
            long before = openDescriptors();
            EventLoopGroup g = t.newEventLoopGroup(1);
            List<Socket> accepted = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                new Bootstrap().transport(t).group(g).channelType(ChannelType.TCP).handler(new ChannelHandler() { })
                        .connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), peer.getLocalPort()))
                        .get(10, TimeUnit.SECONDS);
                accepted.add(peer.accept());
            }
            assertTrue(g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(15, TimeUnit.SECONDS));
            for (Socket s : accepted) {
                s.setSoTimeout(5_000);
                assertEquals(-1, s.getInputStream().read());
                s.close();
            }
            assertEquals(before, settledDescriptors(before), "the ring, the eventfd and every socket are closed");
        }
    }
}
