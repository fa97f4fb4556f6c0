package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

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
    private static final int EXCHANGE_BYTES = 1024;
    /** Configuration flips of the selection-only phase. */
    private static final int FLIPS = 6;
    /** Most Conduit log lines a cycle may produce on average. */
    private static final int LOG_LINES_PER_CYCLE = 12;
    /**
     * Sockets that may stay open after the server closed: 0 in most runs, 1 or 2 in some (Felix, JDK 17, 50 cycles;
     * not yet explained, see the figures' descriptor list). Before the swap engine skipped withdrawn transports it
     * was 3 and more.
     */
    private static final int FD_LEAK_ALLOWANCE = 2;
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

    /** Counters shared by the client threads. */
    static final class Figures {
        final AtomicLong attempted = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong corrupted = new AtomicLong();
        final AtomicLong timedOut = new AtomicLong();
        /** Short exchanges ended by reset or end of stream, per phase (index 1, 2). */
        final AtomicLong[] cut = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        /** Long-lived connections lost, per phase (index 1, 2). */
        final AtomicLong[] longLost = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        final AtomicLong longExchanges = new AtomicLong();
        /** Accepted connections on a loop {@link ManagedServer#transportOf} could not name. */
        final AtomicLong unknownLoop = new AtomicLong();
        final List<String> firstProblems = new ArrayList<>();

        synchronized void problem(String s) {
            if (firstProblems.size() < 10) {
                firstProblems.add(s);
            }
        }
    }

    /** Echoes every buffer; checks that the server names the transport of each accepted connection's loop. */
    @ChannelHandler.Sharable
    private static final class Echo implements ChannelHandler {
        private final Figures figures;
        volatile ManagedServer server;

        Echo(Figures figures) {
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

    /** Counts Conduit's log records (JUL, where {@link System.Logger} goes by default) and those with a throwable. */
    private static final class LogCounter extends Handler {
        final AtomicLong lines = new AtomicLong();
        final AtomicLong withThrowable = new AtomicLong();
        final List<String> first = new CopyOnWriteArrayList<>();

        @Override
        public void publish(LogRecord r) {
            if (r.getLoggerName() == null || !r.getLoggerName().startsWith("io.conduit")
                    || r.getLevel().intValue() < Level.INFO.intValue()) {
                return;
            }
            lines.incrementAndGet();
            if (r.getThrown() != null) {
                withThrowable.incrementAndGet();
                if (first.size() < 5) {
                    first.add(r.getMessage() + " / " + r.getThrown());
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private volatile boolean stop;
    private volatile int phase = 1;

    @Test
    public void echoHoldsWhileTheEpollBundleIsUpdatedRefreshedStoppedAndReinstalledBackToBack() throws Exception {
        boolean migrate = tcpMigrateReq();
        Selections.setTransport(configAdmin, "epoll");
        Selections.awaitTrue("epoll selected by the configuration", () -> Selections.selectedIs("epoll"));
        EpollLoaders epollLoaders = new EpollLoaders();
        epollLoaders.record();
        List<String> fdListBefore = descriptorList();
        int fdsBefore = fdListBefore.size();
        int threadsBefore = Thread.activeCount();

        Figures f = new Figures();
        Echo echo = new Echo(f);
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(echo)
                .threads(2).gracePeriod(2, TimeUnit.SECONDS);
        echo.server = server;
        LogCounter log = new LogCounter();
        Logger root = Logger.getLogger("");
        root.addHandler(log);
        Logger conduitLog = Logger.getLogger("io.conduit"); // held: JUL keeps loggers weakly
        Level conduitLevel = conduitLog.getLevel();
        conduitLog.setLevel(Level.INFO); // the framework's logging lets WARNING through only: count INFO lines too
        List<Thread> clients = new ArrayList<>();
        List<String> operations = new ArrayList<>();
        long startNanos = System.nanoTime();
        long phase2Nanos = 0;
        try {
            InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
            for (int i = 0; i < SHORT_CLIENTS; i++) {
                int seed = i;
                clients.add(Selections.startDaemon("torture-short-" + i, () -> shortClient(address, f, seed)));
            }
            for (int i = 0; i < LONG_CLIENTS; i++) {
                int seed = 1000 + i;
                clients.add(Selections.startDaemon("torture-long-" + i, () -> longClient(address, f, seed)));
            }

            // phase 1: selection changes only; connections stay where they were accepted
            for (int i = 0; i < FLIPS; i++) {
                String name = i % 2 == 0 ? "nio" : "epoll";
                Selections.setTransport(configAdmin, name);
                operations.add("config " + name);
                Selections.awaitServerOn(server, name);
                Thread.sleep(200);
            }
            phase = 2;
            long phase2Start = System.nanoTime();

            // phase 2: the epoll bundle goes away and comes back, back to back, between configuration flips
            SplittableRandom random = new SplittableRandom(42);
            int bundleOperations = 0;
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                Bundle epoll = Osgi.bundle(context, "io.conduit.epoll");
                switch (cycle % 3) {
                    case 0 -> {
                        try (InputStream jar = new FileInputStream(System.getProperty("conduit.itest.epollJar"))) {
                            epoll.update(jar);
                        }
                        Osgi.refresh(context, List.of(epoll));
                        operations.add("update+refresh");
                    }
                    case 1 -> {
                        epoll.stop();
                        epoll.start();
                        operations.add("stop+start");
                    }
                    default -> {
                        epoll.uninstall();
                        Bundle again = context.installBundle(
                                new File(System.getProperty("conduit.itest.epollJar")).toURI().toString());
                        again.start();
                        Osgi.refresh(context, List.of(epoll, again));
                        operations.add("uninstall+install+refresh");
                    }
                }
                bundleOperations++;
                if (cycle % 2 == 1) {
                    String name = cycle % 4 == 1 ? "nio" : "epoll";
                    Selections.setTransport(configAdmin, name);
                    operations.add("config " + name);
                }
                epollLoaders.record();
                Thread.sleep(random.nextInt(150));
            }
            Selections.setTransport(configAdmin, "epoll");
            Selections.awaitTrue("the server to settle on the selected epoll", () -> Selections.selectedIs("epoll")
                    && server.transport() == Transports.selected());
            epollLoaders.record();
            Thread.sleep(500);
            phase2Nanos = System.nanoTime() - phase2Start;

            stop = true;
            for (Thread t : clients) {
                t.join(30_000);
                assertTrue(t.getName() + " finished", !t.isAlive());
            }
            long done = f.completed.get();
            shortExchange(address, f, new SplittableRandom(7), new byte[EXCHANGE_BYTES], new byte[EXCHANGE_BYTES]);
            assertEquals("a fresh exchange after the torture", done + 1, f.completed.get());
            long logLines = log.lines.get();
            long logThrowables = log.withThrowable.get();

            server.close().get(30, TimeUnit.SECONDS);
            int fdsAfter = settle(() -> descriptors() <= fdsBefore, SwapTortureTest::descriptors);
            int threadsAfter = settle(() -> Thread.activeCount() <= threadsBefore, Thread::activeCount);
            int epollLoadersLeft = epollLoaders.reachableAfterGc(SETTLE_SECONDS);

            String framework = context.getBundle(0).getSymbolicName();
            String figures = "SWAP-TORTURE [" + framework + ", JDK " + Runtime.version().feature()
                    + ", tcp_migrate_req=" + (migrate ? 1 : 0) + "] cycles=" + CYCLES + " bundleOperations="
                    + bundleOperations + " flips(phase1)=" + FLIPS + " attempted=" + f.attempted + " completed="
                    + f.completed + " refused=" + f.refused + " corrupted=" + f.corrupted + " timedOut=" + f.timedOut
                    + " cut(phase1/phase2)=" + f.cut[1] + "/" + f.cut[2] + " longLivedExchanges=" + f.longExchanges
                    + " longLivedLost(phase1/phase2)=" + f.longLost[1] + "/" + f.longLost[2] + " unknownLoop="
                    + f.unknownLoop + " fds(socket+anon) " + fdsBefore + "->" + fdsAfter + " threads "
                    + threadsBefore + "->" + threadsAfter + " epollLoadersLeft=" + epollLoadersLeft + "/"
                    + epollLoaders.seen() + " logLines=" + logLines + " (" + String.format("%.1f",
                    (double) logLines / (CYCLES + FLIPS)) + "/cycle, withStackTrace=" + logThrowables + ")"
                    + " phase2Seconds=" + TimeUnit.NANOSECONDS.toSeconds(phase2Nanos) + " totalSeconds="
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos) + " problems="
                    + f.firstProblems + " stackTraces=" + log.first + (fdsAfter <= fdsBefore ? "" : " fds before " + fdListBefore
                    + " after " + descriptorList());
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
            assertTrue("at most " + (1 + LOADER_LEAK_ALLOWANCE) + " epoll class loaders reachable after GC: "
                    + figures, epollLoadersLeft <= 1 + LOADER_LEAK_ALLOWANCE);
            assertEquals("no stack trace logged: " + figures, 0, logThrowables);
            assertTrue("at most " + LOG_LINES_PER_CYCLE + " log lines per cycle: " + figures,
                    logLines <= (long) LOG_LINES_PER_CYCLE * (CYCLES + FLIPS));
        } finally {
            stop = true;
            root.removeHandler(log);
            conduitLog.setLevel(conduitLevel);
            server.close().await(30, TimeUnit.SECONDS);
            configAdmin.getConfiguration(Selections.PID, null).delete();
        }
    }

    /** @return whether {@code net.ipv4.tcp_migrate_req} is 1 in this network namespace */
    private static boolean tcpMigrateReq() {
        try {
            return "1".equals(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_migrate_req")).trim());
        } catch (IOException e) {
            return false;
        }
    }

    /** @return this process's socket and anonymous-inode (epoll, eventfd, timerfd) descriptors */
    static int descriptors() {
        return descriptorList().size();
    }

    /** @return e.g. {@code ["12 -> socket:[4711]", "13 -> anon_inode:[eventpoll]"]}, see {@link #descriptors()} */
    static List<String> descriptorList() {
        File[] fds = new File("/proc/self/fd").listFiles();
        List<String> found = new ArrayList<>();
        if (fds != null) {
            for (File fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd.toPath()).toString();
                    if (target.startsWith("socket:") || target.startsWith("anon_inode:")) {
                        found.add(fd.getName() + " -> " + target + tcpLine(target));
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        }
        return found;
    }

    /**
     * @return for a TCP socket, its {@code /proc/net/tcp} or {@code tcp6} entry ({@code " [local remote state]"},
     *         hexadecimal, state 0A = LISTEN, 01 = ESTABLISHED, 07 = CLOSE), else {@code ""}; diagnostics only
     */
    private static String tcpLine(String target) {
        String inode = target.startsWith("socket:[") ? target.substring(8, target.length() - 1) : null;
        if (inode == null) {
            return "";
        }
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[9].equals(inode)) {
                        return " [" + f[1] + " " + f[2] + " " + f[3] + "]";
                    }
                }
            } catch (IOException e) {
                return "";
            }
        }
        return "";
    }

    /**
     * Polls {@code settled} every 100 ms for at most {@link #SETTLE_SECONDS}, calling {@link System#gc()} between.
     *
     * @return the value of {@code now} at the end
     */
    private static int settle(BooleanSupplier settled, java.util.function.IntSupplier now) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        while (!settled.getAsBoolean() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(100);
        }
        return now.getAsInt();
    }

    private void shortClient(InetSocketAddress address, Figures f, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[EXCHANGE_BYTES];
        byte[] in = new byte[EXCHANGE_BYTES];
        for (int n = 0; n < 1_000_000 && !stop; n++) {
            shortExchange(address, f, random, out, in);
        }
    }

    /** One connection: connect, write 1 KiB of random bytes, read them back, compare, close. */
    private void shortExchange(InetSocketAddress address, Figures f, SplittableRandom random, byte[] out, byte[] in) {
        random.nextBytes(out);
        int phaseAtStart = phase;
        f.attempted.incrementAndGet();
        int got = 0;
        try (Socket s = new Socket()) {
            try {
                s.connect(address, 5000);
            } catch (ConnectException e) {
                f.refused.incrementAndGet();
                f.problem("refused: " + e);
                return;
            }
            s.setSoTimeout(15_000);
            s.getOutputStream().write(out);
            InputStream is = s.getInputStream();
            while (got < out.length) {
                int r = is.read(in, got, out.length - got);
                if (r < 0) {
                    throw new EOFException("end of stream after " + got + " of " + out.length + " bytes");
                }
                got += r;
            }
            if (Arrays.equals(out, in)) {
                f.completed.incrementAndGet();
            } else {
                f.corrupted.incrementAndGet();
                f.problem("corrupted echo");
            }
        } catch (SocketTimeoutException e) {
            f.timedOut.incrementAndGet();
            f.problem("short exchange timed out after " + got + " bytes (phase " + phase + ")");
        } catch (IOException e) {
            if (got > 0 && !Arrays.equals(out, 0, got, in, 0, got)) {
                f.corrupted.incrementAndGet();
                f.problem("corrupted partial echo: " + e);
            } else {
                f.cut[Math.max(phaseAtStart, phase)].incrementAndGet();
                if (phase == 1) {
                    f.problem("phase 1 cut: " + e);
                }
            }
        }
    }

    /** Keeps one connection and exchanges 1 KiB messages on it; reconnects when it is lost. */
    private void longClient(InetSocketAddress address, Figures f, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[EXCHANGE_BYTES];
        byte[] in = new byte[EXCHANGE_BYTES];
        while (!stop) {
            int phaseAtStart = phase;
            try (Socket s = new Socket()) {
                s.connect(address, 5000);
                s.setSoTimeout(15_000);
                OutputStream os = s.getOutputStream();
                InputStream is = s.getInputStream();
                while (!stop) {
                    random.nextBytes(out);
                    os.write(out);
                    int got = 0;
                    while (got < out.length) {
                        int r = is.read(in, got, out.length - got);
                        if (r < 0) {
                            throw new EOFException("long-lived connection: end of stream after " + got + " bytes");
                        }
                        got += r;
                    }
                    if (!Arrays.equals(out, in)) {
                        f.corrupted.incrementAndGet();
                        f.problem("corrupted long-lived echo");
                        return;
                    }
                    f.longExchanges.incrementAndGet();
                    Thread.sleep(random.nextInt(20));
                }
            } catch (ConnectException e) {
                f.refused.incrementAndGet();
                f.problem("long-lived refused: " + e);
            } catch (SocketTimeoutException e) {
                f.timedOut.incrementAndGet();
                f.problem("long-lived exchange timed out: " + e);
                return;
            } catch (IOException e) {
                f.longLost[Math.max(phaseAtStart, phase)].incrementAndGet();
                if (phase == 1) {
                    f.problem("phase 1 long-lived connection lost: " + e);
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
