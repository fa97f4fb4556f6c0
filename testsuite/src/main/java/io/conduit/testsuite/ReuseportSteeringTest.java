package io.conduit.testsuite;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Steering a {@code SO_REUSEPORT} group ({@code IoSocket.steerReuseportGroup}), which a transport swap uses so
 * that the old listener closes with no handshake in flight and the old UDP socket receives nothing new. Two
 * listeners (or UDP sockets) of the transport under test share a port; steered to index 1, every new connection (or
 * datagram) reaches the second; unsteered, the kernel's hash spreads them again. A transport that cannot steer
 * answers {@code false} and changes nothing. A native transport that should steer and cannot fails here.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ReuseportSteeringTest {

    private static final int CONNECTIONS = 40;

    private EventLoopGroup group;
    private Channel first;
    private Channel second;
    private final AtomicInteger acceptedByFirst = new AtomicInteger();
    private final AtomicInteger acceptedBySecond = new AtomicInteger();

    /** @return the transport under test */
    protected abstract Transport transportUnderTest();

    /** @return whether the transport under test must steer (the Linux native ones) */
    protected abstract boolean steers();

    @AfterEach
    void cleanUp() throws InterruptedException {
        for (Channel c : new Channel[] {first, second}) {
            if (c != null) {
                c.close().await(5, TimeUnit.SECONDS);
            }
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    private Channel listen(InetSocketAddress address, AtomicInteger accepted) throws Exception {
        Transport t = transportUnderTest();
        if (group == null) {
            group = t.newEventLoopGroup(1);
        }
        Future<Channel> bound = new ServerBootstrap().transport(t).group(group)
                .option(ChannelOption.SO_REUSEPORT, Boolean.TRUE)
                .childHandler(new Counting(accepted)).bind(address);
        assertTrue(bound.await(5, TimeUnit.SECONDS), "bind of " + address);
        return bound.get();
    }

    /** Counts each accepted connection and closes it. */
    @ChannelHandler.Sharable
    private static final class Counting implements ChannelHandler {
        private final AtomicInteger accepted;

        Counting(AtomicInteger accepted) {
            this.accepted = accepted;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            accepted.incrementAndGet();
            ctx.close();
        }
    }

    private void listenTwice() throws Exception {
        first = listen(new InetSocketAddress("127.0.0.1", 0), acceptedByFirst);
        second = listen((InetSocketAddress) first.localAddress(), acceptedBySecond);
    }

    private void connect(int n) throws Exception {
        int before = acceptedByFirst.get() + acceptedBySecond.get();
        for (int i = 0; i < n; i++) {
            try (Socket s = new Socket()) {
                s.connect(first.localAddress(), 2000);
            }
        }
        SwapTransports.await(() -> acceptedByFirst.get() + acceptedBySecond.get() == before + n,
                n + " more connections accepted (first " + acceptedByFirst + ", second " + acceptedBySecond + ")");
    }

    private static boolean steer(Channel c, boolean steer, int index) throws Exception {
        Future<Boolean> f = ((CoreChannel) c).steerReuseportGroup(steer, index);
        assertTrue(f.await(5, TimeUnit.SECONDS), "steering answered");
        return f.get();
    }

    @Test
    void steeredToIndexOneEveryConnectionReachesTheSecondListenerAndUnsteeredTheHashSpreadsThemAgain()
            throws Exception {
        listenTwice();
        boolean steered = steer(first, true, 1); // the program belongs to the group: either member attaches it
        assertEquals(steers(), steered, "steering on " + transportUnderTest().name());
        if (!steered) {
            assertFalse(steer(first, false, 0), "nothing to remove");
            return;
        }
        connect(CONNECTIONS);
        assertEquals(0, acceptedByFirst.get(), "connections the first listener accepted while steered away");
        assertEquals(CONNECTIONS, acceptedBySecond.get());

        assertTrue(steer(second, false, 0), "the steering removed");
        assertFalse(steer(second, false, 0), "nothing left to remove");
        connect(CONNECTIONS);
        assertTrue(acceptedByFirst.get() > 0, "the hash gives the first listener some of " + CONNECTIONS
                + " connections again (probability of none: 2^-" + CONNECTIONS + ")");
    }

    private Channel receive(InetSocketAddress address, AtomicInteger received) throws Exception {
        Transport t = transportUnderTest();
        if (group == null) {
            group = t.newEventLoopGroup(1);
        }
        Future<Channel> bound = new Bootstrap().transport(t).group(group).channelType(ChannelType.UDP)
                .option(ChannelOption.SO_REUSEPORT, Boolean.TRUE).handler(new ChannelHandler() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        received.incrementAndGet();
                        io.conduit.buffer.ReferenceCounted.safeRelease(msg);
                    }
                }).bind(address);
        assertTrue(bound.await(5, TimeUnit.SECONDS), "bind of " + address);
        return bound.get();
    }

    /** Sends one datagram from each of {@code n} sockets (so the hash sees {@code n} sources) and awaits them. */
    private void sendFromDistinctPorts(int n) throws Exception {
        int before = acceptedByFirst.get() + acceptedBySecond.get();
        for (int i = 0; i < n; i++) {
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
                s.send(new DatagramPacket(new byte[] {(byte) i}, 1, first.localAddress()));
            }
        }
        SwapTransports.await(() -> acceptedByFirst.get() + acceptedBySecond.get() == before + n,
                n + " more datagrams received (first " + acceptedByFirst + ", second " + acceptedBySecond + ")");
    }

    @Test
    void aSteeredUdpGroupGivesEveryDatagramToTheSecondSocketAndUnsteeredTheHashSpreadsThemAgain() throws Exception {
        first = receive(new InetSocketAddress("127.0.0.1", 0), acceptedByFirst);
        second = receive((InetSocketAddress) first.localAddress(), acceptedBySecond);
        boolean steered = steer(second, true, 1);
        assertEquals(steers(), steered, "steering a UDP group on " + transportUnderTest().name());
        if (!steered) {
            return;
        }
        sendFromDistinctPorts(CONNECTIONS);
        assertEquals(0, acceptedByFirst.get(), "datagrams the first socket received while steered away");
        assertEquals(CONNECTIONS, acceptedBySecond.get());

        assertTrue(steer(first, false, 0), "the steering removed");
        sendFromDistinctPorts(CONNECTIONS);
        assertTrue(acceptedByFirst.get() > 0, "the hash gives the first socket some of " + CONNECTIONS
                + " sources again (probability of none: 2^-" + CONNECTIONS + ")");
    }

    @Test
    void anIndexPastTheEndFallsBackToTheHash() throws Exception {
        listenTwice();
        if (!steer(first, true, 7)) {
            assertFalse(steers(), "steering on " + transportUnderTest().name());
            return;
        }
        connect(CONNECTIONS);
        assertTrue(acceptedByFirst.get() > 0 && acceptedBySecond.get() > 0, "both listeners take connections: first "
                + acceptedByFirst + ", second " + acceptedBySecond);
    }

    @Test
    void steeringAClosedListenerFails() throws Exception {
        listenTwice();
        assertTrue(first.close().await(5, TimeUnit.SECONDS));
        Future<Boolean> f = ((CoreChannel) first).steerReuseportGroup(true, 0);
        assertTrue(f.await(5, TimeUnit.SECONDS));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, f::get);
        assertTrue(e.getCause() instanceof java.nio.channels.ClosedChannelException, String.valueOf(e.getCause()));
    }
}
