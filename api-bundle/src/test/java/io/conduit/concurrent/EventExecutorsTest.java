package io.conduit.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class EventExecutorsTest {

    @Test
    void virtualThreadExecutorRunsTasksOneAtATimeInOrderOnAVirtualThreadOrNeedsJava21() throws Exception {
        if (Runtime.version().feature() < 21) {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> EventExecutors.newVirtualThreadExecutor("vt"));
            assertTrue(e.getMessage().contains("21"), e.getMessage());
            return;
        }
        EventExecutor vt = EventExecutors.newVirtualThreadExecutor("vt-test");
        try {
            List<Integer> order = new ArrayList<>();
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                int n = i;
                futures.add(vt.submit(() -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    if (ThreadLocalRandom.current().nextInt(10) == 0) {
                        Thread.sleep(1); // blocking is fine on a virtual thread
                    }
                    order.add(n);
                    running.decrementAndGet();
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.sync();
            }
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add(i);
            }
            assertEquals(expected, vt.submit(() -> new ArrayList<>(order)).get(5, TimeUnit.SECONDS));
            assertEquals(1, maxRunning.get());
            Thread t = vt.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
            assertEquals(Boolean.TRUE, Thread.class.getMethod("isVirtual").invoke(t));
            assertEquals("vt-test", t.getName());
            assertTrue(vt.submit(() -> vt.inEventLoop()).get(5, TimeUnit.SECONDS));
            assertEquals("later", vt.schedule(() -> "later", 5, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS));
            assertSame(vt, vt.parent());
        } finally {
            assertTrue(vt.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void newGroupMakesPlainLoopsThatCloseGracefully() throws Exception {
        EventLoopGroup group = EventExecutors.newGroup(2, "plain");
        EventLoop loop = group.next();
        assertSame(group, loop.parent());
        assertSame(loop, loop.next());
        String name = loop.submit(() -> Thread.currentThread().getName()).get(5, TimeUnit.SECONDS);
        assertTrue(name.matches("plain-\\d+-0"), name);
        assertFalse(group.isShuttingDown());
        group.close();
        assertTrue(group.isTerminated());
        assertTrue(group.terminationFuture().isSuccess());
        assertThrows(IllegalArgumentException.class, () -> EventExecutors.newGroup(0, "none"));
    }

    @Test
    void threadFactoryMakesNonDaemonThreadsNamedByGroupAndLoop() {
        java.util.concurrent.ThreadFactory f = EventExecutors.newThreadFactory("tf");
        Thread a = f.newThread(() -> { });
        Thread b = f.newThread(() -> { });
        assertFalse(a.isDaemon());
        String group = a.getName().split("-")[1];
        assertEquals("tf-" + group + "-0", a.getName());
        assertEquals("tf-" + group + "-1", b.getName());
    }
}
