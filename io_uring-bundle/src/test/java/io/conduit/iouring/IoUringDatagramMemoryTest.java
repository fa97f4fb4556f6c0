package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.testsuite.AbstractTransportTest;
import io.conduit.testsuite.Combo;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The receive memory an idle UDP socket holds on io_uring: {@value #SOCKETS} channels on one loop, each with reads on
 * and one datagram received (so whatever a socket makes for receiving exists), then idle. The direct memory they added
 * together ({@link BufferPoolMXBean} {@code "direct"}), divided by their number, is what one idle UDP socket costs;
 * the loop's own memory (shared by all its sockets) is made by a first channel before the count starts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringDatagramMemoryTest extends AbstractTransportTest {

    private static final int SOCKETS = 64;
    /** what an idle UDP socket may hold, bytes: no receive memory of its own, only small structs */
    private static final long IDLE_SOCKET_MAX_BYTES = 1024;

    private final Transport transport = IoUringPermutations.IO_URING.transport();

    @Override
    protected List<Combo> permutations() {
        return IoUringPermutations.ioUringOnly();
    }

    @Override
    protected void assertExpectedUnavailability(TransportProvider provider, Availability availability) {
        IoUringPermutations.assertExpectedUnavailability(provider, availability);
    }

    /** Counts each received datagram down, and releases it. */
    @ChannelHandler.Sharable
    private static final class CountDown implements ChannelHandler {
        volatile CountDownLatch latch;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof DatagramPacket p) {
                p.close();
            } else {
                ((Buffer) msg).close();
            }
            latch.countDown();
        }
    }

    private static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new AssertionError("no direct buffer pool bean");
    }

    @Test
    void anIdleUdpSocketHoldsNoReceiveMemoryOfItsOwn() throws Exception {
        CountDown handler = new CountDown();
        ByteBuffer datagram = ByteBuffer.allocateDirect(64); // direct: the JDK sends it without a temporary copy
        try (EventLoopGroup group = transport.newEventLoopGroup(1); DatagramChannel jdk = DatagramChannel.open()) {
            jdk.bind(loopback());
            Bootstrap b = new Bootstrap().transport(transport).group(group).channelType(ChannelType.UDP)
                    .handler(handler);
            // the loop's shared memory and the allocator's first chunk: made before the count
            handler.latch = new CountDownLatch(1);
            Channel first = await(b.bind(loopback()));
            jdk.send(datagram.clear(), first.localAddress());
            assertTrue(handler.latch.await(20, TimeUnit.SECONDS), "the first channel receives");
            long before = directBytes();

            handler.latch = new CountDownLatch(SOCKETS);
            List<Channel> channels = new ArrayList<>();
            try {
                for (int i = 0; i < SOCKETS; i++) {
                    channels.add(await(b.bind(loopback())));
                }
                for (Channel c : channels) {
                    jdk.send(datagram.clear(), (InetSocketAddress) c.localAddress());
                }
                assertTrue(handler.latch.await(20, TimeUnit.SECONDS), "every channel received its datagram");
                long perSocket = (directBytes() - before) / SOCKETS;
                System.out.println("io_uring UDP: " + perSocket + " bytes of direct memory per idle socket ("
                        + SOCKETS + " sockets, each after one datagram received)");
                assertTrue(perSocket <= IDLE_SOCKET_MAX_BYTES, "an idle UDP socket holds " + perSocket
                        + " bytes of direct memory, more than " + IDLE_SOCKET_MAX_BYTES);
            } finally {
                channels.add(first);
                closeAll(channels.toArray(new Channel[0]));
            }
        }
    }
}
