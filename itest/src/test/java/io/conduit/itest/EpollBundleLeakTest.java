package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.File;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * A stopped, uninstalled and refreshed epoll bundle leaves nothing behind: after echo traffic over epoll (so its
 * event-loop threads ran), no live thread runs epoll code or carries its class loader, and that class loader is
 * garbage-collected — the API bundle's registry, its published {@code Transport} service, the channel list and the
 * per-loop caches keep nothing of it. The JNI library stays loaded in the JVM until the loader is collected (the
 * JDK unloads it then). Installed again afterwards, the bundle gets a new bundle id and so a new library path in
 * the framework storage: the framework loads the library from the fragment again and epoll serves an echo. (The
 * JVM binds a library file to one class loader, so reusing the very same path before the old loader is collected
 * would fail with "already loaded in another classloader"; see {@link EpollBundleTest}.)
 *
 * <p>The event-loop group belongs to the test, as a group belongs to whoever made it: the test shuts it down when
 * the stop withdrew epoll, as an application (or {@code ManagedServer}) does when the selection moves away from a
 * transport. Fresh framework, own JVM.
 */
@RunWith(PaxExam.class)
public class EpollBundleLeakTest {

    /** Longest wait for the loop threads to end and for the class loader to be collected, in seconds. */
    private static final int WAIT_SECONDS = 20;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void anUninstalledEpollBundleLeavesNoThreadAndItsClassLoaderIsCollected() throws Exception {
        Set<String> loopThreads = ConcurrentHashMap.newKeySet();
        WeakReference<ClassLoader> epollLoader = echoThenUninstall(loopThreads);
        assertEquals("nio is selected once epoll is gone", "nio", Transports.selection().selectedName());

        awaitNoEpollThread(loopThreads, epollLoader);
        long collectedAfterMillis = awaitCollected(epollLoader);
        System.out.println("epoll bundle uninstalled in " + context.getBundle(0).getSymbolicName() + ": loop threads "
                + loopThreads + " ended; its class loader was collected after " + collectedAfterMillis + " ms of GC");

        // the framework goes on working over nio
        echo(Transports.selected(), "nio");

        // the same jar installed again (a new bundle id, so a new library path in the framework storage): the
        // fragments, left installed, attach to it, the framework loads the library again and epoll is selected
        Bundle again = context.installBundle(new File(System.getProperty("conduit.itest.epollJar")).toURI().toString());
        again.start();
        Osgi.assertAllBundlesActive(context);
        EpollBundleTest.assertLoadedFromTheFragment(again);
        echo(Transports.selected(), "epoll");
    }

    private static void echo(Transport transport, String expectedName) throws Exception {
        assertEquals(Transports.selection().explain(), expectedName, transport.name());
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel server = SocketEcho.bind(transport, group);
            assertEquals(4L * SocketEcho.CHUNK_BYTES, SocketEcho.exchange((InetSocketAddress) server.localAddress(),
                    1, 4));
            server.close().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Runs echo traffic over epoll on a group of two loops, records the loops' thread names, stops the epoll bundle,
     * shuts the group down, uninstalls the bundle and refreshes. Every strong reference to epoll objects lives in
     * this frame only.
     *
     * @return a weak reference to the epoll bundle's class loader
     */
    private WeakReference<ClassLoader> echoThenUninstall(Set<String> loopThreads) throws Exception {
        Bundle epoll = Osgi.bundle(context, "io.conduit.epoll");
        ServiceReference<TransportProvider> ref = context.getServiceReferences(TransportProvider.class,
                "(conduit.transport.name=epoll)").iterator().next();
        TransportProvider provider = context.getService(ref);
        WeakReference<ClassLoader> loader = new WeakReference<>(provider.getClass().getClassLoader());
        context.ungetService(ref);

        Transport transport = Transports.selected();
        assertEquals("epoll", transport.name());
        assertTrue("the selected transport comes from the epoll bundle",
                transport.getClass().getClassLoader() == loader.get());
        EventLoopGroup group = transport.newEventLoopGroup(2);
        Channel server = SocketEcho.bind(transport, group);
        assertEquals(8L * 16 * SocketEcho.CHUNK_BYTES, SocketEcho.exchange((InetSocketAddress) server.localAddress(),
                8, 16));
        for (EventExecutor loop : group) {
            loop.submit(() -> loopThreads.add(Thread.currentThread().getName())).get(10, TimeUnit.SECONDS);
        }
        assertEquals("loop threads " + loopThreads, 2, loopThreads.size());
        server.close().get(10, TimeUnit.SECONDS);

        epoll.stop();
        assertEquals("epoll is withdrawn when its bundle stops", "nio", Transports.selection().selectedName());
        // the group is the test's: it ends it now that epoll is gone, as ManagedServer ends its own
        assertTrue("the epoll group terminated within 10 s",
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
        epoll.uninstall();
        Osgi.refresh(context, List.of(epoll));
        return loader;
    }

    /** Waits (bounded) until no live thread has a recorded loop name, runs epoll code or has its loader as TCCL. */
    private static void awaitNoEpollThread(Set<String> loopThreads, WeakReference<ClassLoader> loader) {
        Osgi.await("the epoll loop threads to end", () -> epollThreads(loopThreads, loader).isEmpty(),
                () -> epollThreads(loopThreads, loader).toString());
    }

    private static List<String> epollThreads(Set<String> loopThreads, WeakReference<ClassLoader> loader) {
        List<String> found = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            boolean runsEpoll = false;
            for (StackTraceElement frame : e.getValue()) {
                runsEpoll |= frame.getClassName().startsWith("io.conduit.epoll.");
            }
            ClassLoader epollLoader = loader.get();
            if (t.isAlive() && (loopThreads.contains(t.getName()) || runsEpoll
                    || (epollLoader != null && t.getContextClassLoader() == epollLoader))) {
                found.add(t.getName() + " (" + t.getState() + ", epoll frames: " + runsEpoll + ")");
            }
        }
        return found;
    }

    /**
     * Calls {@link System#gc()} with some allocation pressure every 50 ms until {@code loader} is cleared, for at
     * most {@link #WAIT_SECONDS} s.
     *
     * @return the milliseconds it took
     */
    private static long awaitCollected(WeakReference<ClassLoader> loader) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (loader.get() != null) {
            if (System.nanoTime() - deadline > 0) {
                fail("the class loader of the uninstalled and refreshed epoll bundle was not collected within "
                        + WAIT_SECONDS + " s of System.gc(): something still references it");
            }
            byte[][] pressure = new byte[16][];
            for (int i = 0; i < pressure.length; i++) {
                pressure[i] = new byte[1 << 20];
            }
            System.gc();
            Thread.sleep(50);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
