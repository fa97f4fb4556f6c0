package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.NativeLibraryLoader;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The io_uring bundle stopped and started, and updated from its jar and refreshed, {@link #CYCLES} times in turn,
 * with an echo over io_uring before each operation (so its loop threads ran, its rings were made and the library
 * of the revision was loaded): afterwards no live thread has a recorded loop name or runs io_uring code, the socket
 * and anonymous-inode descriptors (rings, eventfds) are back to their start value, and of the class loaders of the
 * revisions seen only the current one stays reachable after GC. Each update makes a new revision, which loads the
 * library from the fragment again (a new path in the framework storage) and serves an echo.
 *
 * <p>The groups belong to the test, as a group belongs to whoever made it: it shuts each one down after the
 * operation that withdrew its transport. Fresh framework, own JVM.
 */
@RunWith(PaxExam.class)
public class IoUringBundleLeakTest {

    /** Bundle operations: stop+start and update+refresh in turn. */
    private static final int CYCLES = 8;
    /** Longest wait for threads, descriptors and class loaders to settle, in seconds. */
    private static final int SETTLE_SECONDS = 20;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                ItestOptions.iouring());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void stopStartAndUpdateRefreshCyclesLeaveNoThreadDescriptorOrOldClassLoader() throws Exception {
        Descriptors.openJdkDescriptors();
        List<String> fdListBefore = Descriptors.list();
        int fdsBefore = fdListBefore.size();
        int threadsBefore = Thread.activeCount();
        EpollLoaders loaders = new EpollLoaders("io_uring");
        loaders.record();
        Set<String> loopThreads = ConcurrentHashMap.newKeySet();
        List<String> operations = new ArrayList<>();
        long verified = 0;
        long startNanos = System.nanoTime();

        for (int cycle = 0; cycle < CYCLES; cycle++) {
            Transport before = Transports.get("io_uring");
            EventLoopGroup group = before.newEventLoopGroup(2);
            verified += echo(before, group, loopThreads);
            Bundle iouring = Osgi.bundle(context, "io.conduit.iouring");
            if (cycle % 2 == 0) {
                iouring.stop();
                assertWithdrawn();
                iouring.start();
                operations.add("stop+start");
            } else {
                try (InputStream jar = new FileInputStream(System.getProperty("conduit.itest.iouringJar"))) {
                    iouring.update(jar);
                }
                Osgi.refresh(context, List.of(iouring));
                operations.add("update+refresh");
            }
            assertTrue("the old io_uring group terminated within 10 s",
                    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
            group = null;
            Osgi.assertAllBundlesActive(context);
            Transport after = Transports.get("io_uring");
            if (cycle % 2 == 1) {
                assertNotSame("a new io_uring transport after " + operations, before, after);
            }
            before = null;
            after = null;
            loaders.record();
        }
        // the current revision loaded its library from the fragment and serves: through Bundle-NativeCode, or, when
        // the JVM still binds the framework's library file to an old revision's loader not collected yet, from the
        // fragment's entry extracted to a private copy (NativeLibraryLoader's fallback)
        String loadedHow = IoUringBundleTest.loadedHow(Osgi.bundle(context, "io.conduit.iouring"));
        String library = "libconduit_iouring_" + NativeLibraryLoader.arch() + ".so";
        assertTrue("the current revision loaded the fragment's library: " + loadedHow,
                loadedHow.equals(IoUringBundleTest.FROM_THE_FRAGMENT) || loadedHow.startsWith("extracted bundle:")
                        && loadedHow.contains("/META-INF/native/" + library + " to "));
        Transport current = Transports.get("io_uring");
        try (EventLoopGroup group = current.newEventLoopGroup(2)) {
            verified += echo(current, group, loopThreads);
        }
        current = null;

        int threadsLeft = SwapTortureTest.settle(() -> iouringThreads(loopThreads).isEmpty(),
                () -> iouringThreads(loopThreads).size());
        int fdsAfter = SwapTortureTest.settle(() -> Descriptors.count() <= fdsBefore, Descriptors::count);
        int threadsAfter = SwapTortureTest.settle(() -> Thread.activeCount() <= threadsBefore,
                Thread::activeCount);
        int loadersLeft = loaders.reachableAfterGc(SETTLE_SECONDS);

        String figures = "IOURING-LEAK [" + context.getBundle(0).getSymbolicName() + ", JDK "
                + Runtime.version().feature() + "] cycles=" + CYCLES + " " + operations + " echoBytesVerified="
                + verified + " loopThreadsSeen=" + loopThreads.size() + " io_uringThreadsLeft=" + threadsLeft + " "
                + iouringThreads(loopThreads) + " fds(socket+anon) " + fdsBefore + "->" + fdsAfter + " threads "
                + threadsBefore + "->" + threadsAfter + " io_uringLoadersLeft=" + loadersLeft + "/" + loaders.seen()
                + " library: " + loadedHow + " seconds=" + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos)
                + (fdsAfter <= fdsBefore ? "" : " fds before " + fdListBefore + " after " + Descriptors.list());
        System.out.println(figures);

        assertEquals("one class loader per revision: the first and one per update: " + figures, 1 + CYCLES / 2,
                loaders.seen());
        assertEquals("no io_uring thread left: " + figures, 0, threadsLeft);
        assertTrue("descriptors back to their start value: " + figures, fdsAfter <= fdsBefore);
        assertTrue("threads back to their start value: " + figures, threadsAfter <= threadsBefore);
        assertEquals("only the current revision's class loader reachable after GC: " + figures, 1, loadersLeft);
    }

    /**
     * A TCP echo over {@code transport} on {@code group}, then the listener closed; records the loops' thread names.
     *
     * @return the echoed bytes verified
     */
    private static long echo(Transport transport, EventLoopGroup group, Set<String> loopThreads) throws Exception {
        assertEquals("io_uring", transport.name());
        Channel server = SocketEcho.bind(transport, group);
        long verified = SocketEcho.exchange((InetSocketAddress) server.localAddress(), 2, 8);
        assertEquals(2L * 8 * SocketEcho.CHUNK_BYTES, verified);
        for (EventExecutor loop : group) {
            loop.submit(() -> loopThreads.add(Thread.currentThread().getName())).get(10, TimeUnit.SECONDS);
        }
        server.close().get(10, TimeUnit.SECONDS);
        return verified;
    }

    /** Fails unless the registry has no io_uring transport now (its bundle stopped). */
    private static void assertWithdrawn() {
        try {
            Transport t = Transports.get("io_uring");
            throw new AssertionError("io_uring still registered while its bundle is stopped: " + t);
        } catch (RuntimeException expected) {
            // withdrawn
        }
    }

    /** @return the live threads with a recorded loop name or a frame of io_uring code */
    private static List<String> iouringThreads(Set<String> loopThreads) {
        List<String> found = new ArrayList<>(IoUringSwapUnderLoadTest.threadsRunning("io_uring"));
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && loopThreads.contains(t.getName()) && !found.contains(t.getName() + " ("
                    + t.getState() + ")")) {
                found.add(t.getName() + " (" + t.getState() + ", no io_uring frame)");
            }
        }
        return found;
    }
}
