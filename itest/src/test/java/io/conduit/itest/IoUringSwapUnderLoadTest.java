package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transports;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;

/**
 * A {@link ManagedServer} echo inside the framework follows {@code conduit:use} from epoll to io_uring, to nio and
 * back to io_uring, {@link #ROUNDS} times, under load from plain {@code java.net} clients outside Conduit
 * ({@link EchoChurn}: short 1 KiB exchanges and long-lived connections). Only the selection changes; every
 * transport stays provided, so connections stay on the loops that accepted them.
 *
 * <p>Asserts: no connection refused, no byte corrupted, no exchange left hanging, no accepted connection on a loop
 * the server cannot name the transport of, no long-lived connection lost; with {@code net.ipv4.tcp_migrate_req=1}
 * no exchange cut either (otherwise a connection still in a closing listener's accept backlog may be reset; counted
 * and printed). Once the clients stopped, the old generations' groups terminate: no live thread runs epoll or nio
 * code while the server runs on io_uring. After {@link ManagedServer#close()} no thread runs io_uring code, and the
 * socket and anonymous-inode descriptors (io_uring rings, eventfds) and the live threads are back to their start
 * values. The figures are printed as one {@code IOURING-SWAP} line.
 */
@RunWith(PaxExam.class)
public class IoUringSwapUnderLoadTest {

    /** Rounds of epoll → io_uring → nio → io_uring. */
    private static final int ROUNDS = 2;
    private static final int SHORT_CLIENTS = 4;
    private static final int LONG_CLIENTS = 2;
    /** Time on each transport while the load runs, in milliseconds. */
    private static final long DWELL_MILLIS = 700;

    /** Package prefix of each transport's classes, to find the threads that run its code. */
    private static final Map<String, String> PACKAGES = Map.of("epoll", "io.conduit.epoll.", "io_uring",
            "io.conduit.iouring.", "nio", "io.conduit.internal.nio.");

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
    public void echoUnderLoadFollowsConduitUseBetweenEpollIoUringAndNio() throws Exception {
        boolean migrate = SwapTortureTest.tcpMigrateReq();
        use("epoll");
        Descriptors.openJdkDescriptors();
        List<String> fdListBefore = Descriptors.list();
        int fdsBefore = fdListBefore.size();
        int threadsBefore = Thread.activeCount();

        EchoChurn churn = new EchoChurn();
        EchoChurn.Figures f = churn.figures;
        SwapTortureTest.Echo echo = new SwapTortureTest.Echo(f);
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(echo)
                .threads(2).gracePeriod(2, TimeUnit.SECONDS);
        echo.server = server;
        List<String> operations = new ArrayList<>();
        long startNanos = System.nanoTime();
        try {
            InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
            assertEquals("epoll", server.transportName());
            churn.start(address, SHORT_CLIENTS, LONG_CLIENTS);
            Thread.sleep(DWELL_MILLIS);
            for (int round = 0; round < ROUNDS; round++) {
                for (String name : round == 0 ? List.of("io_uring", "nio", "io_uring")
                        : List.of("epoll", "io_uring", "nio", "io_uring")) {
                    use(name);
                    Selections.awaitServerOn(server, name);
                    Thread.sleep(DWELL_MILLIS);
                    // the loops serving now are found by their frames (the check below relies on it)
                    int loops = threadsRunning(name).size();
                    operations.add(name + "(" + loops + " loop threads)");
                    assertTrue(name + " loop threads found while it serves: " + operations, loops >= 1);
                }
            }
            churn.stopAndJoin();
            assertTrue("a fresh exchange after the swaps: " + f.problems(), churn.freshExchange());
            assertEquals("io_uring", server.transportName());

            // the clients closed every connection: the groups of the old generations end
            int oldLoops = SwapTortureTest.settle(
                    () -> threadsRunning("epoll").isEmpty() && threadsRunning("nio").isEmpty(),
                    () -> threadsRunning("epoll").size() + threadsRunning("nio").size());
            String oldThreads = "epoll " + threadsRunning("epoll") + ", nio " + threadsRunning("nio");
            int iouringLoops = threadsRunning("io_uring").size();

            server.close().get(30, TimeUnit.SECONDS);
            int iouringAfterClose = SwapTortureTest.settle(() -> threadsRunning("io_uring").isEmpty(),
                    () -> threadsRunning("io_uring").size());
            int fdsAfter = SwapTortureTest.settle(() -> Descriptors.count() <= fdsBefore, Descriptors::count);
            int threadsAfter = SwapTortureTest.settle(() -> Thread.activeCount() <= threadsBefore,
                    Thread::activeCount);

            String figures = "IOURING-SWAP [" + context.getBundle(0).getSymbolicName() + ", JDK "
                    + Runtime.version().feature() + ", tcp_migrate_req=" + (migrate ? 1 : 0) + "] swaps="
                    + operations.size() + " " + operations + " attempted=" + f.attempted + " completed="
                    + f.completed + " refused=" + f.refused + " corrupted=" + f.corrupted + " timedOut="
                    + f.timedOut + " cut=" + f.cut[1] + " longLivedExchanges=" + f.longExchanges
                    + " longLivedLost=" + f.longLost[1] + " unknownLoop=" + f.unknownLoop
                    + " oldLoopThreadsLeft=" + oldLoops + " (" + oldThreads + ") io_uringLoopThreads="
                    + iouringLoops + "->" + iouringAfterClose + " fds(socket+anon) " + fdsBefore + "->" + fdsAfter
                    + " threads " + threadsBefore + "->" + threadsAfter + " seconds="
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos) + " problems=" + f.problems()
                    + (fdsAfter <= fdsBefore ? "" : " fds before " + fdListBefore + " after " + Descriptors.list());
            System.out.println(figures);

            assertEquals(figures, 0, f.refused.get());
            assertEquals(figures, 0, f.corrupted.get());
            assertEquals(figures, 0, f.timedOut.get());
            assertEquals(figures, 0, f.unknownLoop.get());
            assertEquals("selection changes lose no long-lived connection: " + figures, 0, f.longLost[1].get());
            if (migrate) {
                assertEquals("selection changes cut no exchange: " + figures, 0, f.cut[1].get());
            }
            assertTrue(figures, f.completed.get() > 100 && f.longExchanges.get() > 10);
            assertEquals("the old generations' groups terminated: " + figures, 0, oldLoops);
            assertTrue("the server ran on io_uring loops: " + figures, iouringLoops >= 1);
            assertEquals("no io_uring loop thread after close: " + figures, 0, iouringAfterClose);
            assertTrue("descriptors back to their start value: " + figures, fdsAfter <= fdsBefore);
            assertTrue("threads back to their start value: " + figures, threadsAfter <= threadsBefore);
        } finally {
            churn.stopNow();
            server.close().await(30, TimeUnit.SECONDS);
            Transports.setPreference(null);
        }
    }

    /** {@code conduit:use name} through Gogo, as an operator types it; the selection follows at once. */
    private void use(String name) {
        String out = Osgi.gogo(context, "conduit:use " + name);
        assertTrue(out, out.contains("preference set to '" + name + "'"));
        assertEquals(Transports.selection().explain(), name, Transports.selected().name());
    }

    /**
     * @param transport a key of {@link #PACKAGES}
     * @return the live threads with a frame of that transport's classes, with their names and states
     */
    static List<String> threadsRunning(String transport) {
        String prefix = PACKAGES.get(transport);
        List<String> found = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            for (StackTraceElement frame : e.getValue()) {
                if (frame.getClassName().startsWith(prefix)) {
                    found.add(e.getKey().getName() + " (" + e.getKey().getState() + ")");
                    break;
                }
            }
        }
        return found;
    }
}
