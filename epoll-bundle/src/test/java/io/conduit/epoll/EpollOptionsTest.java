package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static io.conduit.epoll.EpollTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** Linux socket options of the epoll transport, each checked by its effect or by a kernel round trip. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollOptionsTest {

    private final EpollTransport transport = EpollTestSupport.transport();
    private IoEventLoopGroup group;

    @BeforeAll
    void start() {
        group = EpollTestSupport.group(2);
    }

    @AfterAll
    void stop() throws InterruptedException {
        EpollTestSupport.close(group);
    }

    private static InetSocketAddress loopback(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    private ServerBootstrap server(ChannelHandler child) {
        return new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP).childHandler(child);
    }

    private Channel connectedClient(Channel server) {
        return await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .handler(new ChannelHandler() { }).connect(server.localAddress()));
    }

    @Test
    void supportsAnswersForEveryStandardAndImplementedNativeOption() {
        for (ChannelOption<?> o : List.of(ChannelOption.SO_REUSEPORT, ChannelOption.SO_BUSY_POLL,
                ChannelOption.TCP_FASTOPEN_CONNECT, ChannelOption.TCP_FASTOPEN, ChannelOption.IP_FREEBIND,
                ChannelOption.IP_TRANSPARENT, ChannelOption.IP_RECVORIGDSTADDR, ChannelOption.TCP_CORK,
                ChannelOption.TCP_QUICKACK, ChannelOption.TCP_USER_TIMEOUT, ChannelOption.TCP_NOTSENT_LOWAT,
                ChannelOption.TCP_KEEPIDLE, ChannelOption.TCP_KEEPINTVL, ChannelOption.TCP_KEEPCNT,
                ChannelOption.SO_SNDBUF, ChannelOption.SO_RCVBUF, ChannelOption.SO_KEEPALIVE, ChannelOption.SO_REUSEADDR,
                ChannelOption.SO_LINGER, ChannelOption.SO_BROADCAST, ChannelOption.SO_BACKLOG, ChannelOption.IP_TOS,
                ChannelOption.IP_MULTICAST_TTL, ChannelOption.IP_MULTICAST_LOOP, ChannelOption.IP_MULTICAST_IF,
                ChannelOption.TCP_NODELAY, ChannelOption.AUTO_READ, ChannelOption.ALLOW_HALF_CLOSURE,
                ChannelOption.ALLOCATOR)) {
            assertTrue(transport.supports(o), o + " is implemented by epoll");
        }
    }

    @Test
    void soReuseportLetsTwoListenersShareAPortAndBothAccept() throws Exception {
        AtomicInteger acceptedA = new AtomicInteger();
        AtomicInteger acceptedB = new AtomicInteger();
        Channel a = await(server(counting(acceptedA)).option(ChannelOption.SO_REUSEPORT, true).bind(loopback(0)));
        int port = ((InetSocketAddress) a.localAddress()).getPort();
        Channel b = await(server(counting(acceptedB)).option(ChannelOption.SO_REUSEPORT, true).bind(loopback(port)));
        Throwable refused = awaitFailure(server(counting(new AtomicInteger())).bind(loopback(port)));
        List<SocketChannel> clients = new ArrayList<>();
        try {
            assertTrue(hasCause(refused, BindException.class), "without SO_REUSEPORT the port is taken: " + refused);
            for (int i = 0; i < 32; i++) {
                clients.add(SocketChannel.open(loopback(port)));
            }
            eventually("32 connections accepted", () -> acceptedA.get() + acceptedB.get() == 32);
            assertTrue(acceptedA.get() > 0 && acceptedB.get() > 0,
                    "both listeners accept: " + acceptedA + " and " + acceptedB);
        } finally {
            for (SocketChannel c : clients) {
                c.close();
            }
            closeAll(a, b);
        }
    }

    private static ChannelHandler counting(AtomicInteger accepted) {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.incrementAndGet();
            }
        };
    }

    private static boolean hasCause(Throwable t, Class<?> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void soBusyPollRoundTrips() {
        Channel server = await(server(new ChannelHandler() { }).option(ChannelOption.SO_BUSY_POLL, 50).bind(loopback(0)));
        Channel client = connectedClient(server);
        try {
            assertEquals(50, server.config().getOption(ChannelOption.SO_BUSY_POLL));
            assertTrue(client.config().setOption(ChannelOption.SO_BUSY_POLL, 25));
            assertEquals(25, client.config().getOption(ChannelOption.SO_BUSY_POLL));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void ipFreebindAllowsBindingToAnAddressNotOnThisHost() throws Exception {
        InetSocketAddress foreign = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 0); // TEST-NET-1
        Throwable without = awaitFailure(server(new ChannelHandler() { }).bind(foreign));
        assertTrue(hasCause(without, BindException.class), "binding 192.0.2.1 without IP_FREEBIND fails: " + without);
        Channel with = await(server(new ChannelHandler() { }).option(ChannelOption.IP_FREEBIND, true).bind(foreign));
        try {
            assertEquals(InetAddress.getByName("192.0.2.1"), ((InetSocketAddress) with.localAddress()).getAddress());
            assertEquals(true, with.config().getOption(ChannelOption.IP_FREEBIND));
        } finally {
            closeAll(with);
        }
    }

    @Test
    void ipTransparentCanBeSetAsRoot() {
        Channel server = await(server(new ChannelHandler() { }).option(ChannelOption.IP_TRANSPARENT, true)
                .bind(loopback(0)));
        try {
            assertEquals(true, server.config().getOption(ChannelOption.IP_TRANSPARENT));
        } finally {
            closeAll(server);
        }
    }

    @Test
    void tcpTuningOptionsRoundTripThroughTheKernel() {
        Channel server = await(server(new ChannelHandler() { }).option(ChannelOption.TCP_FASTOPEN, 16).bind(loopback(0)));
        Channel c = connectedClient(server);
        try {
            assertEquals(16, server.config().getOption(ChannelOption.TCP_FASTOPEN));
            assertTrue(c.config().setOption(ChannelOption.TCP_CORK, true));
            assertEquals(true, c.config().getOption(ChannelOption.TCP_CORK));
            assertTrue(c.config().setOption(ChannelOption.TCP_CORK, false));
            assertEquals(false, c.config().getOption(ChannelOption.TCP_CORK));
            assertTrue(c.config().setOption(ChannelOption.TCP_QUICKACK, true));
            assertEquals(true, c.config().getOption(ChannelOption.TCP_QUICKACK));
            assertTrue(c.config().setOption(ChannelOption.TCP_USER_TIMEOUT, 4321));
            assertEquals(4321, c.config().getOption(ChannelOption.TCP_USER_TIMEOUT));
            assertTrue(c.config().setOption(ChannelOption.TCP_NOTSENT_LOWAT, 16384));
            assertEquals(16384, c.config().getOption(ChannelOption.TCP_NOTSENT_LOWAT));
            assertTrue(c.config().setOption(ChannelOption.SO_KEEPALIVE, true));
            assertEquals(true, c.config().getOption(ChannelOption.SO_KEEPALIVE));
            assertTrue(c.config().setOption(ChannelOption.TCP_KEEPIDLE, 37));
            assertTrue(c.config().setOption(ChannelOption.TCP_KEEPINTVL, 7));
            assertTrue(c.config().setOption(ChannelOption.TCP_KEEPCNT, 4));
            assertEquals(37, c.config().getOption(ChannelOption.TCP_KEEPIDLE));
            assertEquals(7, c.config().getOption(ChannelOption.TCP_KEEPINTVL));
            assertEquals(4, c.config().getOption(ChannelOption.TCP_KEEPCNT));
            assertTrue(c.config().setOption(ChannelOption.TCP_NODELAY, true));
            assertEquals(true, c.config().getOption(ChannelOption.TCP_NODELAY));
            assertTrue(c.config().setOption(ChannelOption.SO_LINGER, 0));
            assertEquals(0, c.config().getOption(ChannelOption.SO_LINGER));
        } finally {
            closeAll(c, server);
        }
    }
}
