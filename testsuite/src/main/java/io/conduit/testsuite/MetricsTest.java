package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramPacket;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.metrics.EventLoopMetrics;
import io.conduit.metrics.MetricsSnapshot;
import io.conduit.metrics.TransportMetrics;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The platform metrics ({@code io.conduit.metrics}) count what really moved over loopback: every test uses event
 * loop groups of one loop of its own, so a loop's counters are exact, and reads them by the loop's thread name.
 * Transport totals are checked to include loops that stopped. Timing is checked with wide bounds only: an idle
 * loop is busy for less than half of the wall time, a loaded one gets busier.
 */
public abstract class MetricsTest extends AbstractTransportTest {

    /** @return UDP permutations (transports that have UDP) */
    protected abstract List<Combo> datagramPermutations();

    private static final int STREAM_BYTES = 300_000;

    /** @return the metrics of {@code loop}, found by its thread's name, from a new snapshot */
    protected static EventLoopMetrics loopMetrics(EventLoop loop) {
        String thread = await(loop.submit(() -> Thread.currentThread().getName()));
        for (EventLoopMetrics m : Transports.metrics().eventLoops()) {
            if (m.getThreadName().equals(thread)) {
                return m;
            }
        }
        throw new AssertionError("no metrics for the loop on thread " + thread + " in " + Transports.metrics().eventLoops());
    }

    private static TransportMetrics transportMetrics(String name) {
        MetricsSnapshot s = Transports.metrics();
        return s.transport(name).orElseThrow(() -> new AssertionError("no metrics of transport " + name + ": "
                + s.transports()));
    }

    private static EventLoop onlyLoop(EventLoopGroup g) {
        return (EventLoop) g.iterator().next();
    }

    private static void shutDown(EventLoopGroup... groups) {
        for (EventLoopGroup g : groups) {
            try {
                g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(15, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Channel bind(Transport t, EventLoopGroup g, ChannelHandler childHandler, Combo combo) {
        return await(new ServerBootstrap().transport(t).group(g).channelType(ChannelType.TCP)
                .childOption(ChannelOption.ALLOCATOR, combo.allocator().allocator()).childHandler(childHandler)
                .bind(loopback()));
    }

    private static Channel connect(Transport t, EventLoopGroup g, ChannelHandler handler, Combo combo,
            java.net.SocketAddress to) {
        return await(new Bootstrap().transport(t).group(g).channelType(ChannelType.TCP)
                .option(ChannelOption.ALLOCATOR, combo.allocator().allocator()).handler(handler).connect(to));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void loopsCountTheBytesConnectionsAndChannelsOfAnEcho(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        Transport st = combo.serverTransport();
        Transport ct = combo.clientTransport();
        EventLoopGroup serverGroup = st.newEventLoopGroup(1);
        EventLoopGroup clientGroup = ct.newEventLoopGroup(1);
        EventLoop serverLoop = onlyLoop(serverGroup);
        EventLoop clientLoop = onlyLoop(clientGroup);
        Channel server = null;
        Channel client = null;
        try {
            server = bind(st, serverGroup, new EchoHandler(), combo);
            Recorder echoed = new Recorder();
            client = connect(ct, clientGroup, echoed, combo, server.localAddress());
            Buffer buf = client.alloc().buffer(STREAM_BYTES);
            buf.writeBytes(randomBytes(STREAM_BYTES, 18));
            await(client.writeAndFlush(buf));
            eventually("the echo of " + STREAM_BYTES + " bytes", () -> echoed.byteCount() >= STREAM_BYTES);

            EventLoopMetrics s = loopMetrics(serverLoop);
            EventLoopMetrics c = loopMetrics(clientLoop);
            assertEquals(st.name(), s.getTransport());
            assertEquals(ct.name(), c.getTransport());
            assertEquals(1, s.getAcceptedConnections(), "accepted on the server loop");
            assertEquals(STREAM_BYTES, s.getBytesRead(), "bytes the server read = bytes the client sent");
            assertEquals(STREAM_BYTES, s.getBytesWritten(), "bytes the server echoed");
            assertEquals(STREAM_BYTES, c.getBytesWritten(), "bytes the client sent");
            assertEquals(STREAM_BYTES, c.getBytesRead(), "bytes the client read back");
            assertEquals(0, c.getAcceptedConnections());
            assertEquals(2, s.getOpenChannels(), "listener and accepted connection on the server loop");
            assertEquals(1, c.getOpenChannels(), "the client connection");
            assertEquals(0, s.getIoErrors());
            assertEquals(0, c.getIoErrors());
            assertEquals(0, s.getDatagramsRead() + s.getDatagramsWritten() + c.getDatagramsRead() + c.getDatagramsWritten());

            TransportMetrics whileRunning = transportMetrics(st.name());
            assertTrue(whileRunning.getBytesRead() >= STREAM_BYTES, whileRunning.toString());
            assertTrue(whileRunning.getAcceptedConnections() >= 1, whileRunning.toString());
            assertTrue(whileRunning.getOpenChannels() >= 2, whileRunning.toString());

            closeAll(client);
            eventually("the server loop's accepted connection closed", () -> loopMetrics(serverLoop).getOpenChannels() == 1);
            assertEquals(0, loopMetrics(clientLoop).getOpenChannels());
            closeAll(server);
            eventually("the server loop's listener closed", () -> loopMetrics(serverLoop).getOpenChannels() == 0);

            String loopName = s.getName();
            shutDown(serverGroup, clientGroup);
            MetricsSnapshot after = Transports.metrics();
            assertFalse(after.eventLoops().stream().anyMatch(m -> m.getName().equals(loopName)),
                    "a terminated loop is no longer listed");
            TransportMetrics stopped = after.transport(st.name()).orElseThrow();
            assertTrue(stopped.getBytesRead() >= whileRunning.getBytesRead(),
                    "the totals keep what the stopped loops counted: " + whileRunning + " then " + stopped);
            assertTrue(stopped.getAcceptedConnections() >= whileRunning.getAcceptedConnections(), stopped.toString());
        } finally {
            closeAll(client, server);
            shutDown(serverGroup, clientGroup);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("datagramPermutations")
    void loopsCountDatagramsAndTheirPayloadBytes(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UDP)) {
            return;
        }
        EventLoopGroup receiverGroup = combo.serverTransport().newEventLoopGroup(1);
        EventLoopGroup senderGroup = combo.clientTransport().newEventLoopGroup(1);
        Channel receiver = null;
        Channel sender = null;
        try {
            Recorder received = new Recorder();
            receiver = await(new Bootstrap().transport(combo.serverTransport()).group(receiverGroup)
                    .channelType(ChannelType.UDP).option(ChannelOption.ALLOCATOR, combo.allocator().allocator())
                    .handler(received).bind(loopback()));
            sender = await(new Bootstrap().transport(combo.clientTransport()).group(senderGroup)
                    .channelType(ChannelType.UDP).handler(new Recorder()).bind(loopback()));
            InetSocketAddress to = (InetSocketAddress) receiver.localAddress();
            int[] sizes = {0, 1, 512, 1400, 8192};
            long total = 0;
            for (int size : sizes) {
                await(sender.writeAndFlush(new DatagramPacket(sender.alloc().buffer(size).writeBytes(
                        randomBytes(size, size)), to)));
                assertNotNull(received.datagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS), "datagram of " + size + " bytes");
                total += size;
            }
            EventLoopMetrics r = loopMetrics(onlyLoop(receiverGroup));
            EventLoopMetrics s = loopMetrics(onlyLoop(senderGroup));
            assertEquals(sizes.length, r.getDatagramsRead());
            assertEquals(total, r.getBytesRead());
            assertEquals(0, r.getDatagramsWritten());
            assertEquals(sizes.length, s.getDatagramsWritten());
            assertEquals(total, s.getBytesWritten());
            assertEquals(0, s.getDatagramsRead());
            assertEquals(1, r.getOpenChannels());
        } finally {
            closeAll(sender, receiver);
            shutDown(senderGroup, receiverGroup);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aRefusedConnectIsOneIoError(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        EventLoopGroup g = combo.clientTransport().newEventLoopGroup(1);
        try {
            Throwable failure = awaitDone(new Bootstrap().transport(combo.clientTransport()).group(g)
                    .channelType(ChannelType.TCP).handler(new Recorder())
                    .connect(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), closedPort)));
            assertNotNull(failure, "connecting to a closed port fails");
            EventLoop loop = onlyLoop(g);
            eventually("one I/O error counted", () -> loopMetrics(loop).getIoErrors() == 1);
            assertEquals(0, loopMetrics(loop).getOpenChannels());
        } finally {
            shutDown(g);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void pendingTasksAreTheTasksQueuedBehindARunningOne(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        EventLoopGroup g = combo.serverTransport().newEventLoopGroup(1);
        EventLoop loop = onlyLoop(g);
        String thread = await(loop.submit(() -> Thread.currentThread().getName()));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            loop.execute(() -> {
                running.countDown();
                try {
                    release.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(running.await(WAIT_SECONDS, TimeUnit.SECONDS));
            for (int i = 0; i < 5; i++) {
                loop.execute(() -> { });
            }
            EventLoopMetrics m = Transports.metrics().eventLoops().stream()
                    .filter(e -> e.getThreadName().equals(thread)).findFirst().orElseThrow();
            assertEquals(5, m.getPendingTasks());
        } finally {
            release.countDown();
            shutDown(g);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void anIdleLoopWaitsMostOfTheTimeAndALoadedOneGetsBusier(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Transport t = combo.serverTransport();
        EventLoopGroup g = t.newEventLoopGroup(1);
        EventLoop loop = onlyLoop(g);
        Channel server = null;
        try {
            EventLoopMetrics start = loopMetrics(loop);
            Thread.sleep(1000);
            EventLoopMetrics idle = loopMetrics(loop);
            long busy = idle.getBusyNanos() - start.getBusyNanos();
            long waited = idle.getWaitNanos() - start.getWaitNanos();
            long wall = busy + waited;
            assertTrue(wall >= TimeUnit.MILLISECONDS.toNanos(900), "busy + wait cover the second: " + idle);
            assertTrue(busy < wall / 2, "an idle loop is busy for less than half of the time: busy " + busy
                    + " ns, waited " + waited + " ns");

            server = bind(t, g, new EchoHandler(), combo);
            EventLoopGroup clientGroup = t.newEventLoopGroup(1);
            try {
                for (int i = 0; i < 20; i++) {
                    Recorder echoed = new Recorder();
                    Channel c = connect(t, clientGroup, echoed, combo, server.localAddress());
                    Buffer buf = c.alloc().buffer(STREAM_BYTES);
                    buf.writeBytes(randomBytes(STREAM_BYTES, i));
                    await(c.writeAndFlush(buf));
                    eventually("echo " + i, () -> echoed.byteCount() >= STREAM_BYTES);
                    closeAll(c);
                }
            } finally {
                shutDown(clientGroup);
            }
            EventLoopMetrics loaded = loopMetrics(loop);
            assertTrue(loaded.getBusyNanos() > idle.getBusyNanos(), "busy time grew under load: " + idle.getBusyNanos()
                    + " then " + loaded.getBusyNanos());
            assertEquals(20, loaded.getAcceptedConnections());
            assertEquals(20L * STREAM_BYTES, loaded.getBytesRead());
        } finally {
            closeAll(server);
            shutDown(g);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void jmxShowsTheLoopAndTheTransportWithTheSnapshotsValues(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Transport t = combo.serverTransport();
        EventLoopGroup g = t.newEventLoopGroup(1);
        EventLoop loop = onlyLoop(g);
        Channel server = null;
        Channel client = null;
        try {
            server = bind(t, g, new EchoHandler(), combo);
            Recorder echoed = new Recorder();
            client = connect(t, g, echoed, combo, server.localAddress());
            await(client.writeAndFlush(client.alloc().buffer(1000).writeBytes(randomBytes(1000, 3))));
            eventually("echo", () -> echoed.byteCount() >= 1000);
            EventLoopMetrics m = loopMetrics(loop);
            MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
            ObjectName loopName = new ObjectName("io.conduit:type=EventLoop,transport=" + t.name() + ",name="
                    + m.getName());
            assertTrue(mbs.isRegistered(loopName), loopName + " is registered");
            assertEquals(2000L, mbs.getAttribute(loopName, "BytesRead"), "server and client read 1000 bytes each");
            assertEquals(2000L, mbs.getAttribute(loopName, "BytesWritten"));
            assertEquals(1L, mbs.getAttribute(loopName, "AcceptedConnections"));
            assertEquals(3L, mbs.getAttribute(loopName, "OpenChannels"));
            assertEquals(m.getThreadName(), mbs.getAttribute(loopName, "ThreadName"));
            ObjectName transportName = new ObjectName("io.conduit:type=Transport,name=" + t.name());
            assertTrue(mbs.isRegistered(transportName), transportName + " is registered");
            long jmxRead = (Long) mbs.getAttribute(transportName, "BytesRead");
            assertTrue(jmxRead >= 2000, "transport BytesRead " + jmxRead);
            assertTrue(mbs.isRegistered(new ObjectName("io.conduit:type=Allocator,name=pooled")));

            closeAll(client, server);
            shutDown(g);
            eventually("a terminated loop's MBean is unregistered", () -> !mbs.isRegistered(loopName));
        } finally {
            closeAll(client, server);
            shutDown(g);
        }
    }
}
