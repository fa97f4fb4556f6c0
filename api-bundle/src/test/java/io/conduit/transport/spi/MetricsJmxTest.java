package io.conduit.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoop;
import io.conduit.internal.metrics.Jmx;
import io.conduit.metrics.EventLoopMetrics;
import io.conduit.transport.Transports;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JMX side of the metrics: a loop's MBean comes with the loop and goes when it terminates, the waits a
 * handler announces are counted as waiting, {@code conduit.jmx=false} registers nothing, and stopping the
 * registrar (the API bundle stops) leaves no Conduit MBean behind.
 */
@Timeout(30)
class MetricsJmxTest {

    private static final MBeanServer MBS = ManagementFactory.getPlatformMBeanServer();

    @AfterEach
    void restore() {
        System.clearProperty(Jmx.PROPERTY);
        Jmx.start();
    }

    /** Parks for the context's delay (at most 30 s) when it may block, announcing the wait. */
    private static final class WaitingHandler implements IoHandler {
        private volatile Thread thread;

        @Override
        public int run(IoHandlerContext context) {
            thread = Thread.currentThread();
            if (context.canBlock()) {
                long delay = context.delayNanos(System.nanoTime());
                context.waitStarting();
                java.util.concurrent.locks.LockSupport.parkNanos(this,
                        delay < 0 ? TimeUnit.SECONDS.toNanos(30) : Math.min(delay, TimeUnit.SECONDS.toNanos(30)));
                context.waitEnded();
            }
            return 0;
        }

        @Override
        public void wakeup() {
            java.util.concurrent.locks.LockSupport.unpark(thread);
        }

        @Override
        public void prepareToDestroy() {
        }

        @Override
        public void destroy() {
        }
    }

    private static IoEventLoopGroup newGroup() {
        return new IoEventLoopGroup(1, EventExecutors.newThreadFactory("metrics-jmx-test"), WaitingHandler::new);
    }

    private static Set<ObjectName> loopNames() throws Exception {
        return new HashSet<>(MBS.queryNames(new ObjectName("io.conduit:type=EventLoop,*"), null));
    }

    private static EventLoopMetrics metricsOf(EventLoop loop) throws Exception {
        String thread = loop.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
        return Transports.metrics().eventLoops().stream().filter(m -> m.getThreadName().equals(thread)).findFirst()
                .orElseThrow();
    }

    @Test
    void aLoopsMBeanLivesAsLongAsTheLoopAndAnnouncedWaitsCountAsWaiting() throws Exception {
        Set<ObjectName> before = loopNames();
        IoEventLoopGroup g = newGroup();
        EventLoop loop = g.next();
        EventLoopMetrics m = metricsOf(loop);
        assertEquals("unnamed", m.getTransport(), "a group made directly has no transport");
        ObjectName name = new ObjectName("io.conduit:type=EventLoop,transport=unnamed,name=" + m.getName());
        Set<ObjectName> during = loopNames();
        during.removeAll(before);
        assertEquals(Set.of(name), during);
        assertEquals(m.getThreadName(), MBS.getAttribute(name, "ThreadName"));

        Thread.sleep(500);
        EventLoopMetrics idle = metricsOf(loop);
        assertTrue(idle.getWaitNanos() - m.getWaitNanos() >= TimeUnit.MILLISECONDS.toNanos(400),
                "the parked half second counts as waiting: " + m.getWaitNanos() + " then " + idle.getWaitNanos());
        assertTrue(idle.getBusyNanos() - m.getBusyNanos() < TimeUnit.MILLISECONDS.toNanos(250),
                "and not as busy: " + m.getBusyNanos() + " then " + idle.getBusyNanos());

        assertTrue(g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (MBS.isRegistered(name) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(!MBS.isRegistered(name), name + " is unregistered once the loop terminated");
    }

    @Test
    void withTheSystemPropertyFalseNothingIsRegistered() throws Exception {
        System.setProperty(Jmx.PROPERTY, "false");
        Set<ObjectName> before = loopNames();
        IoEventLoopGroup g = newGroup();
        try {
            metricsOf(g.next()); // the loop runs and is in the snapshot
            assertEquals(before, loopNames(), "no EventLoop MBean with " + Jmx.PROPERTY + "=false");
        } finally {
            g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void stoppingTheRegistrarUnregistersEveryConduitMBean() throws Exception {
        IoEventLoopGroup g = newGroup();
        try {
            metricsOf(g.next());
            assertTrue(!MBS.queryNames(new ObjectName("io.conduit:*"), null).isEmpty());
            Jmx.stop();
            assertEquals(Set.of(), MBS.queryNames(new ObjectName("io.conduit:*"), null));
        } finally {
            g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
