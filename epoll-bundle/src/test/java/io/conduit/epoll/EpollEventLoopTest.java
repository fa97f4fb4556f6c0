package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static io.conduit.epoll.EpollTestSupport.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.testsuite.EchoHandler;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoop;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The epoll event loop: timerfd arming, clamping, busy-wait, event array growth. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollEventLoopTest {

    @Test
    void timerIsReArmedOnlyWhenTheEarliestDeadlineChanges() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1);
        try {
            IoEventLoop loop = group.next();
            EpollIoHandler handler = EpollTestSupport.handlerOf(loop);
            ScheduledFuture<?> earliest = loop.schedule(() -> { }, 30, TimeUnit.SECONDS);
            eventually("the loop armed the timer for the 30 s task", () -> {
                await(loop.submit(() -> { }));
                return handler.timerArmCount() > 0;
            });
            await(loop.submit(() -> { })); // one more round: the deadline is armed
            long before = handler.timerArmCount();
            List<ScheduledFuture<?>> later = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                later.add(loop.schedule(() -> { }, 60_000 + i, TimeUnit.MILLISECONDS));
            }
            for (int i = 0; i < 20; i++) {
                await(loop.submit(() -> { })); // many blocking rounds behind the unchanged earliest deadline
            }
            assertEquals(before, handler.timerArmCount(),
                    "1,000 later tasks behind an earlier one must not re-arm the timer");
            ScheduledFuture<?> earlier = loop.schedule(() -> { }, 20, TimeUnit.SECONDS);
            // the loop arms only before it blocks, and a task submitted meanwhile keeps it from blocking: wait
            // (bounded) for the re-arm, then check that more blocking rounds do not arm again
            eventually("the loop re-armed the timer for the earlier deadline", () -> {
                await(loop.submit(() -> { }));
                return handler.timerArmCount() > before;
            });
            for (int i = 0; i < 5; i++) {
                await(loop.submit(() -> { }));
            }
            assertEquals(before + 1, handler.timerArmCount(), "an earlier deadline re-arms the timer once");
            CountDownLatch fired = new CountDownLatch(1);
            loop.schedule(fired::countDown, 30, TimeUnit.MILLISECONDS);
            assertTrue(fired.await(5, TimeUnit.SECONDS), "a 30 ms task fires through the timerfd");
            earliest.cancel(false);
            earlier.cancel(false);
            later.forEach(f -> f.cancel(false));
        } finally {
            EpollTestSupport.close(group);
        }
    }

    @Test
    void hugeDelaysAreClampedAndTheLoopKeepsRunningTasks() throws Exception {
        IoEventLoopGroup group = EpollTestSupport.group(1);
        try {
            IoEventLoop loop = group.next();
            EpollIoHandler handler = EpollTestSupport.handlerOf(loop);
            ScheduledFuture<?> never = loop.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            ScheduledFuture<?> far = loop.schedule(() -> { }, Long.MAX_VALUE / 3, TimeUnit.NANOSECONDS);
            ScheduledFuture<?> days = loop.schedule(() -> { }, 100_000, TimeUnit.DAYS);
            for (int i = 0; i < 5; i++) {
                await(loop.submit(() -> { }));
            }
            // The timer is armed when the loop is about to block; on a busy machine that may come a little later.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (handler.timerArmCount() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(handler.timerArmCount() >= 1, "the timer was armed for the huge delay");
            CountDownLatch fired = new CountDownLatch(1);
            loop.schedule(fired::countDown, 20, TimeUnit.MILLISECONDS);
            assertTrue(fired.await(5, TimeUnit.SECONDS), "a short task behind huge ones still fires");
            assertTrue(!never.isDone() && !far.isDone() && !days.isDone());
            never.cancel(false);
            far.cancel(false);
            days.cancel(false);
        } finally {
            EpollTestSupport.close(group);
        }
    }

    @Test
    void busyWaitLoopsEchoWithoutEventfdWakeups() throws Exception {
        EpollTransport t = EpollTestSupport.transport();
        IoEventLoopGroup group = t.newEventLoopGroup(1, null, IoEventLoopGroup.Options.defaults().busyWait(true));
        Channel server = null;
        Channel client = null;
        try {
            EpollIoHandler handler = EpollTestSupport.handlerOf(group.next());
            server = await(new ServerBootstrap().transport(t).group(group).channelType(ChannelType.TCP)
                    .childHandler(new EchoHandler()).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
            EpollTestSupport.Bytes bytes = new EpollTestSupport.Bytes();
            client = await(new Bootstrap().transport(t).group(group).channelType(ChannelType.TCP).handler(bytes)
                    .connect(server.localAddress()));
            byte[] data = new byte[64 * 1024];
            new Random(7).nextBytes(data);
            for (int round = 0; round < 10; round++) {
                int expected = (round + 1) * data.length;
                client.writeAndFlush(client.alloc().buffer(data.length).writeBytes(data));
                eventually("echo round " + round, () -> bytes.size() >= expected);
            }
            byte[] got = bytes.bytes();
            for (int round = 0; round < 10; round++) {
                byte[] slice = java.util.Arrays.copyOfRange(got, round * data.length, (round + 1) * data.length);
                assertArrayEquals(data, slice, "round " + round);
            }
            assertEquals(0, handler.wakeupWriteCount(), "a busy-waiting loop never needs an eventfd wake-up");
        } finally {
            closeAll(client, server);
            EpollTestSupport.close(group);
        }
    }

    @Test
    void eventArrayGrowsWhenAWaitFillsIt() throws Exception {
        EpollTransport t = EpollTestSupport.transport();
        IoEventLoopGroup group = EpollTestSupport.group(1);
        List<Channel> clients = new ArrayList<>();
        Channel server = null;
        try {
            EpollIoHandler handler = EpollTestSupport.handlerOf(group.next());
            assertEquals(EpollIoHandler.INITIAL_EVENTS, handler.eventArrayCapacity());
            server = await(new ServerBootstrap().transport(t).group(group).channelType(ChannelType.TCP)
                    .childHandler(new EchoHandler()).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
            List<EpollTestSupport.Bytes> received = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                EpollTestSupport.Bytes b = new EpollTestSupport.Bytes();
                received.add(b);
                clients.add(await(new Bootstrap().transport(t).group(group).channelType(ChannelType.TCP).handler(b)
                        .connect(server.localAddress())));
            }
            // queue one write per client in one loop task, so that all of them become readable at once
            List<Channel> all = clients;
            await(group.next().submit(() -> {
                for (Channel c : all) {
                    c.writeAndFlush(c.alloc().buffer(16).writeBytes(new byte[16]));
                }
            }));
            for (EpollTestSupport.Bytes b : received) {
                eventually("echo on every connection", () -> b.size() >= 16);
            }
            assertTrue(handler.eventArrayCapacity() > EpollIoHandler.INITIAL_EVENTS,
                    "the event array grew past " + EpollIoHandler.INITIAL_EVENTS + ": " + handler.eventArrayCapacity());
        } finally {
            closeAll(clients.toArray(new Channel[0]));
            closeAll(server);
            EpollTestSupport.close(group);
        }
    }
}
