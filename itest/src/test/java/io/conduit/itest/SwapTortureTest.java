package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import javax.inject.Inject;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Swap torture: a {@link ManagedServer} echo follows the selection while the epoll bundle is updated and refreshed,
 * stopped and started, and uninstalled and installed again, each pair back to back with no pause (as Karaf's
 * {@code bundle:update -r} does), interleaved with Configuration Admin flips between {@code nio} and {@code epoll},
 * for {@link #CYCLES} cycles. Plain {@code java.net} clients outside Conduit load it meanwhile: short connections
 * (connect, 1 KiB echo, close) and a few long-lived ones.
 *
 * <p>The bug this guards against: a swap bound its new listener on the epoll revision {@code update} had just
 * started; the refresh right after withdrew that revision, the bind failed with a {@code NoClassDefFoundError}, and
 * the still-working old listener had been closed first. The bind-after-close step then retried for 3 s on the vanished
 * transport, leaking a socket per attempt and logging a stack trace each time; 7 % of connections were refused.
 *
 * <p>Asserts: no connection refused; no byte corrupted; no exchange left hanging; no accepted connection on an
 * event loop the server cannot name the transport of; during the first, selection-only phase no connection cut or
 * lost (with {@code net.ipv4.tcp_migrate_req=1} in this network namespace; otherwise resets of connections still in
 * a closing listener's backlog are counted apart, as the README says); afterwards long-lived connections are lost
 * only when their transport went away (at most once per long-lived client and bundle operation); socket and
 * event-poll descriptors and live threads back to their start values (polled for a bounded time); at most one epoll
 * class loader reachable after GC; a bounded number of Conduit log lines per cycle and no stack traces. The figures
 * are printed as one {@code SWAP-TORTURE} line.
 */
@RunWith(PaxExam.class)
public class SwapTortureTest {

    /** Bundle operation cycles (each one of: update+refresh, stop+start, uninstall+install+refresh). */
    static final int CYCLES = 50;
    private static final int SHORT_CLIENTS = 4;
    private static final int LONG_CLIENTS = 2;
    /** Configuration flips of the selection-only phase. */
    private static final int FLIPS = 6;
    /** Most Conduit log lines a cycle may produce on average. */
    private static final int LOG_LINES_PER_CYCLE = 12;
    /**
     * Sockets that may stay open after the server closed: none. Two causes were found and fixed. A listener registered
     * on a revision whose classes were gone kept its never-bound socket open (RegisterOnVanishedTransportTest). A
     * listener whose set-up failed before registration (the epoll bundle refreshed while it set its options) was
     * never closed; about one run in four on JDK 25 in Felix ended with that socket open
     * (ConnectAndCloseTest#aChannelWhoseSetUpFailsBeforeRegistrationLeavesNoDescriptorOpen). The JDK's own
     * process-lifetime socket is opened before the count starts ({@link Descriptors#openJdkDescriptors()}).
     */
    private static final int FD_LEAK_ALLOWANCE = 0;
    /** Longest wait for descriptors, threads and class loaders to settle after the load, in seconds. */
    private static final int SETTLE_SECONDS = 30;
    /**
     * Old epoll revisions this test lets stay reachable after GC, besides the current one. On JDK 25 in Felix one
     * run kept one old revision of 34 reachable after 30 s of GC (2/34); JDK 17 and Equinox keep none. The cause is
     * not found yet; {@code EpollBundleLeakTest} and {@code GatewayEpollLeakTest} still allow no old revision.
     */
    private static final int LOADER_LEAK_ALLOWANCE = 1;

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    /**
     * Echoes every buffer; checks that the server names the transport of each accepted connection's loop (also used
     * by {@link IoUringSwapUnderLoadTest}).
     */
    @ChannelHandler.Sharable
    static final class Echo implements ChannelHandler {
        private final EchoChurn.Figures figures;
        volatile ManagedServer server;

        Echo(EchoChurn.Figures figures) {
            this.figures = figures;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Transport t = server.transportOf(ctx.channel().eventLoop());
            if (t == null) {
                figures.unknownLoop.incrementAndGet();
                figures.problem("accepted " + ctx.channel() + " on a loop of no generation of the server");
            }
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    @Test
    public void echoHoldsWhileTheEpollBundleIsUpdatedRefreshedStoppedAndReinstalledBackToBack() throws Exception {
        torture(context, configAdmin, "io.conduit.epoll", "conduit.itest.epollJar", "epoll", CYCLES);
    }

    /**
     * The torture of the class javadoc on one native transport's bundle: phase 1 flips the configuration between
     * {@code nio} and {@code transport}; phase 2 runs {@code cycles} bundle operations on {@code bundleName}
     * (installed again from the jar the system property {@code jarProperty} names), a configuration flip every
     * second cycle. Also used by {@link IoUringSwapTortureTest}.
     */
    static void torture(BundleContext context, ConfigurationAdmin configAdmin, String bundleName, String jarProperty,
            String transport, int cycles) throws Exception {
        boolean migrate = tcpMigrateReq();
        Selections.setTransport(configAdmin, transport);
        Selections.awaitTrue(transport + " selected by the configuration", () -> Selections.selectedIs(transport));
        EpollLoaders loaders = new EpollLoaders(transport);
        loaders.record();
        Descriptors.openJdkDescriptors();
        List<String> fdListBefore = Descriptors.list();
        int fdsBefore = fdListBefore.size();
        int threadsBefore = Thread.activeCount();

        EchoChurn churn = new EchoChurn();
        EchoChurn.Figures f = churn.figures;
        Echo echo = new Echo(f);
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(echo)
                .threads(2).gracePeriod(2, TimeUnit.SECONDS);
        echo.server = server;
        ConduitLogCounter log = new ConduitLogCounter().attach();
        List<String> operations = new ArrayList<>();
        long startNanos = System.nanoTime();
        long phase2Nanos = 0;
        try {
            InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
            churn.start(address, SHORT_CLIENTS, LONG_CLIENTS);

            // phase 1: selection changes only; connections stay where they were accepted
            for (int i = 0; i < FLIPS; i++) {
                String name = i % 2 == 0 ? "nio" : transport;
                Selections.setTransport(configAdmin, name);
                operations.add("config " + name);
                Selections.awaitServerOn(server, name);
                Thread.sleep(200);
            }
            churn.phase(2);
            long phase2Start = System.nanoTime();

            // phase 2: the transport's bundle goes away and comes back, back to back, between configuration flips
            SplittableRandom random = new SplittableRandom(42);
            int bundleOperations = 0;
            for (int cycle = 0; cycle < cycles; cycle++) {
                Bundle revision = Osgi.bundle(context, bundleName);
                switch (cycle % 3) {
                    case 0 -> {
                        try (InputStream jar = new FileInputStream(System.getProperty(jarProperty))) {
                            revision.update(jar);
                        }
                        Osgi.refresh(context, List.of(revision));
                        operations.add("update+refresh");
                    }
                    case 1 -> {
                        revision.stop();
                        revision.start();
                        operations.add("stop+start");
                    }
                    default -> {
                        revision.uninstall();
                        Bundle again = context.installBundle(
                                new File(System.getProperty(jarProperty)).toURI().toString());
                        again.start();
                        Osgi.refresh(context, List.of(revision, again));
                        operations.add("uninstall+install+refresh");
                    }
                }
                bundleOperations++;
                if (cycle % 2 == 1) {
                    String name = cycle % 4 == 1 ? "nio" : transport;
                    Selections.setTransport(configAdmin, name);
                    operations.add("config " + name);
                }
                loaders.record();
                Thread.sleep(random.nextInt(150));
            }
            Selections.setTransport(configAdmin, transport);
            Selections.awaitTrue("the server to settle on the selected " + transport, () -> Selections.selectedIs(transport)
                    && server.transport() == Transports.selected());
            loaders.record();
            Thread.sleep(500);
            phase2Nanos = System.nanoTime() - phase2Start;

            churn.stopAndJoin();
            assertTrue("a fresh exchange after the torture: " + f.problems(), churn.freshExchange());
            long logLines = log.lines.get();
            long logThrowables = log.withThrowable.get();

            server.close().get(30, TimeUnit.SECONDS);
            int fdsAfter = settle(() -> Descriptors.count() <= fdsBefore, Descriptors::count);
            int threadsAfter = settle(() -> Thread.activeCount() <= threadsBefore, Thread::activeCount);
            int loadersLeft = loaders.reachableAfterGc(SETTLE_SECONDS);

            String framework = context.getBundle(0).getSymbolicName();
            String figures = "SWAP-TORTURE [" + transport + ", " + framework + ", JDK " + Runtime.version().feature()
                    + ", tcp_migrate_req=" + (migrate ? 1 : 0) + "] cycles=" + cycles + " bundleOperations="
                    + bundleOperations + " flips(phase1)=" + FLIPS + " attempted=" + f.attempted + " completed="
                    + f.completed + " refused=" + f.refused + " corrupted=" + f.corrupted + " timedOut=" + f.timedOut
                    + " cut(phase1/phase2)=" + f.cut[1] + "/" + f.cut[2] + " longLivedExchanges=" + f.longExchanges
                    + " longLivedLost(phase1/phase2)=" + f.longLost[1] + "/" + f.longLost[2] + " unknownLoop="
                    + f.unknownLoop + " fds(socket+anon) " + fdsBefore + "->" + fdsAfter + " threads "
                    + threadsBefore + "->" + threadsAfter + " " + transport + "LoadersLeft=" + loadersLeft + "/"
                    + loaders.seen() + " logLines=" + logLines + " (" + String.format("%.1f",
                    (double) logLines / (cycles + FLIPS)) + "/cycle, withStackTrace=" + logThrowables + ")"
                    + " phase2Seconds=" + TimeUnit.NANOSECONDS.toSeconds(phase2Nanos) + " totalSeconds="
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos) + " problems="
                    + f.problems() + " stackTraces=" + log.first + (fdsAfter <= fdsBefore ? "" : " fds before "
                    + fdListBefore + " after " + Descriptors.list());
            System.out.println(figures);

            assertEquals(figures, 0, f.refused.get());
            assertEquals(figures, 0, f.corrupted.get());
            assertEquals(figures, 0, f.timedOut.get());
            assertEquals(figures, 0, f.unknownLoop.get());
            assertEquals("selection changes lose no long-lived connection: " + figures, 0, f.longLost[1].get());
            if (migrate) {
                assertEquals("selection changes cut no exchange: " + figures, 0, f.cut[1].get());
            }
            assertTrue("long-lived connections are lost only when their transport goes away: " + figures,
                    f.longLost[2].get() <= (long) LONG_CLIENTS * bundleOperations);
            assertTrue(figures, f.completed.get() > 100 && f.longExchanges.get() > 10);
            assertTrue("descriptors back to their start value, but for at most " + FD_LEAK_ALLOWANCE + ": " + figures,
                    fdsAfter <= fdsBefore + FD_LEAK_ALLOWANCE);
            assertTrue("threads back to their start value: " + figures, threadsAfter <= threadsBefore);
            assertTrue("at most " + (1 + LOADER_LEAK_ALLOWANCE) + " " + transport + " class loaders reachable after GC: "
                    + figures + (loadersLeft <= 1 + LOADER_LEAK_ALLOWANCE ? "" : loaders.suspects()),
                    loadersLeft <= 1 + LOADER_LEAK_ALLOWANCE);
            assertEquals("no stack trace logged: " + figures, 0, logThrowables);
            assertTrue("at most " + LOG_LINES_PER_CYCLE + " log lines per cycle: " + figures,
                    logLines <= (long) LOG_LINES_PER_CYCLE * (cycles + FLIPS));
        } finally {
            churn.stopNow();
            log.detach();
            server.close().await(30, TimeUnit.SECONDS);
            configAdmin.getConfiguration(Selections.PID, null).delete();
        }
    }

    /** @return whether {@code net.ipv4.tcp_migrate_req} is 1 in this network namespace */
    static boolean tcpMigrateReq() {
        try {
            return "1".equals(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_migrate_req")).trim());
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Polls {@code settled} every 100 ms for at most {@link #SETTLE_SECONDS}, calling {@link System#gc()} between.
     *
     * @return the value of {@code now} at the end
     */
    static int settle(BooleanSupplier settled, java.util.function.IntSupplier now) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        while (!settled.getAsBoolean() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(100);
        }
        return now.getAsInt();
    }
}
