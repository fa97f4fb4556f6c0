package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * A {@link ManagedServer} echo inside the framework under continuous load from plain {@code java.net} sockets in test
 * threads (not Conduit's transports) over loopback, while the epoll bundle is stopped, started, updated from its jar
 * and refreshed, and while the Configuration Admin PID {@code io.conduit.transport} flips {@code transport} between
 * {@code epoll} and {@code nio}.
 *
 * <p>Load: short clients loop connect / write 1–8 KiB of random bytes / read them back / verify / close; long-lived
 * clients keep one connection and exchange 1–32 KiB messages on it. Two phases:
 * <ol>
 *   <li><b>Selection changes</b> (configuration flips, epoll still available): connections stay on the transport that
 *       accepted them ({@link ManagedServer} keeps them), so no exchange may be cut and no long-lived connection
 *       lost; the only failures allowed are resets of connections still in the old listener's accept backlog when it
 *       closed (a kernel limitation without {@code net.ipv4.tcp_migrate_req=1}; counted separately).</li>
 *   <li><b>Epoll going away and back</b> (stop, start, update, refresh, also while nio is selected): connections on
 *       the old epoll are drained, so exchanges in flight there may be cut (counted, not failures).</li>
 * </ol>
 * Always: zero refused connections, zero corrupted bytes (every byte received is compared, also on cut exchanges),
 * no exchange left hanging, and epoll selected and served at the end. The figures are printed.
 */
@RunWith(PaxExam.class)
public class SwapUnderLoadTest {

    private static final int SHORT_CLIENTS = 4;
    private static final int LONG_CLIENTS = 2;
    /** Time between operations while the load runs, in milliseconds. */
    private static final long DWELL_MILLIS = 1_000;

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                ItestOptions.ours("conduit.itest.epollJar"),
                bundle(new File(System.getProperty("conduit.itest.epollX86Jar")).toURI().toString()).noStart());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    /** Echoes every buffer back. */
    @ChannelHandler.Sharable
    private static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** Counters shared by the client threads. */
    private static final class Figures {
        final AtomicLong attempted = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        /**
         * Reset before any echo byte arrived, per phase (index 1, 2): in phase 1 the accept-backlog reset of a closing
         * listener; in phase 2 also a drained connection.
         */
        final AtomicLong[] resetBeforeData = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        /** Ended (reset or end of stream) after the server accepted it: a drain, phase 2 only. */
        final AtomicLong[] cut = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        final AtomicLong timedOut = new AtomicLong();
        final AtomicLong corrupted = new AtomicLong();
        final AtomicLong bytesVerified = new AtomicLong();
        final AtomicLong longExchanges = new AtomicLong();
        /** Long-lived connections lost, per phase (index 1, 2). */
        final AtomicLong[] longLost = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        final List<String> firstProblems = new ArrayList<>();

        synchronized void problem(String s) {
            if (firstProblems.size() < 10) {
                firstProblems.add(s);
            }
        }
    }

    private volatile boolean stop;
    /** 1 while only the selection changes, 2 while epoll goes away and comes back. */
    private volatile int phase = 1;

    @Test
    public void echoUnderLoadWhileEpollIsSwappedOutAndBackInEveryWay() throws Exception {
        Selections.setTransport(configAdmin, "epoll");
        Selections.awaitTrue("epoll selected by the configuration", () -> Selections.selectedIs("epoll"));
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new Echo())
                .threads(2).gracePeriod(2, TimeUnit.SECONDS);
        InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
        Figures f = new Figures();
        List<Thread> clients = new ArrayList<>();
        List<String> operations = new ArrayList<>();
        List<String> libraries = new ArrayList<>();
        try {
            assertEquals("epoll", server.transportName());
            for (int i = 0; i < SHORT_CLIENTS; i++) {
                int seed = i;
                clients.add(Selections.startDaemon("swap-short-" + i, () -> shortClient(address, f, seed)));
            }
            for (int i = 0; i < LONG_CLIENTS; i++) {
                int seed = 1000 + i;
                clients.add(Selections.startDaemon("swap-long-" + i, () -> longClient(address, f, seed)));
            }
            Thread.sleep(DWELL_MILLIS);

            // phase 1: selection changes only
            for (int round = 0; round < 3; round++) {
                flip(server, "nio", operations);
                flip(server, "epoll", operations);
            }
            phase = 2;

            // phase 2: epoll goes away and comes back, selected and not selected
            Bundle epoll = Osgi.bundle(context, "io.conduit.epoll");
            epoll.stop();
            operations.add("stop");
            Selections.awaitServerOn(server, "nio");
            Thread.sleep(DWELL_MILLIS);
            epoll.start();
            operations.add("start");
            Selections.awaitServerOn(server, "epoll");
            Thread.sleep(DWELL_MILLIS);

            Transport before = Transports.get("epoll");
            try (InputStream jar = new FileInputStream(System.getProperty("conduit.itest.epollJar"))) {
                epoll.update(jar);
            }
            operations.add("update");
            awaitNewEpoll(server, before);
            libraries.add("after update: " + epollLoadedHow(epoll));
            Thread.sleep(DWELL_MILLIS);

            before = Transports.get("epoll");
            refresh(epoll);
            operations.add("refresh");
            awaitNewEpoll(server, before);
            libraries.add("after refresh: " + epollLoadedHow(epoll));
            Thread.sleep(DWELL_MILLIS);

            // epoll goes away while nio is selected: the connections kept on epoll are drained
            flip(server, "nio", operations);
            epoll.stop();
            operations.add("stop (nio selected)");
            Thread.sleep(DWELL_MILLIS);
            epoll.start();
            operations.add("start (nio selected)");
            before = Transports.get("epoll");
            refresh(epoll);
            operations.add("refresh (nio selected)");
            Selections.awaitTrue("epoll available again after the refresh", () -> Transports.get("epoll") != null);
            assertNotSame("a new epoll transport after the refresh", before, Transports.get("epoll"));
            Thread.sleep(DWELL_MILLIS);
            flip(server, "epoll", operations);
            Thread.sleep(DWELL_MILLIS);

            stop = true;
            for (Thread t : clients) {
                t.join(30_000);
                assertTrue(t.getName() + " finished", !t.isAlive());
            }
            // after the load: a fresh exchange on the final transport
            int before2 = (int) f.completed.get();
            shortExchange(address, f, new SplittableRandom(99), new byte[8192], new byte[8192]);
            assertEquals("a fresh exchange after the load", before2 + 1, f.completed.get());

            String framework = context.getBundle(0).getSymbolicName();
            String figures = "SWAP-UNDER-LOAD [" + framework + ", JDK " + Runtime.version().feature() + "] attempted="
                    + f.attempted + " completed=" + f.completed + " refused=" + f.refused + " backlogResets(phase1)="
                    + f.resetBeforeData[1] + " resetBeforeData(phase2)=" + f.resetBeforeData[2]
                    + " cutByDrain(phase2)=" + f.cut[2] + " cut(phase1)=" + f.cut[1] + " timedOut=" + f.timedOut
                    + " corrupted=" + f.corrupted + " bytesVerified=" + f.bytesVerified + " longLivedExchanges="
                    + f.longExchanges + " longLivedLost(phase1/phase2)=" + f.longLost[1] + "/" + f.longLost[2]
                    + " swaps=" + operations.size() + " " + operations
                    + " final=" + server.transportName() + " problems=" + f.firstProblems;
            System.out.println(figures);
            libraries.add("after refresh (nio selected): " + epollLoadedHow(Osgi.bundle(context, "io.conduit.epoll")));
            for (String l : libraries) {
                System.out.println("SWAP-UNDER-LOAD [" + framework + "] epoll library " + l);
            }

            assertEquals(figures, 0, f.refused.get());
            assertEquals(figures, 0, f.corrupted.get());
            assertEquals(figures, 0, f.timedOut.get());
            assertEquals("selection changes cut no exchange: " + figures, 0, f.cut[1].get());
            assertEquals("selection changes lose no long-lived connection: " + figures, 0, f.longLost[1].get());
            assertTrue(figures, f.completed.get() > 100 && f.longExchanges.get() > 10);
            assertEquals(figures, "epoll", Transports.selected().name());
            assertEquals(figures, "epoll", server.transportName());
            assertTrue(figures, server.transport() == Transports.selected());
        } finally {
            stop = true;
            server.close().await(15, TimeUnit.SECONDS);
            Osgi.bundle(context, "io.conduit.epoll").start();
            configAdmin.getConfiguration(Selections.PID, null).delete();
        }
    }

    /**
     * @return how the current revision of the epoll bundle loaded its native library (the package-private
     *         {@code Epoll.loadedHow()}, read reflectively: diagnostics only)
     */
    private static String epollLoadedHow(Bundle epoll) throws Exception {
        java.lang.reflect.Method m = epoll.loadClass("io.conduit.epoll.Epoll").getDeclaredMethod("loadedHow");
        m.setAccessible(true);
        return String.valueOf(m.invoke(null));
    }

    private void flip(ManagedServer server, String name, List<String> operations) throws Exception {
        Selections.setTransport(configAdmin, name);
        operations.add("config " + name);
        Selections.awaitServerOn(server, name);
        Thread.sleep(DWELL_MILLIS);
    }

    /** Waits until epoll is selected again as a new {@link Transport} instance and the server listens on it. */
    private static void awaitNewEpoll(ManagedServer server, Transport old) {
        Selections.awaitTrue("the server to run on a new epoll transport", () -> Selections.selectedIs("epoll")
                && Transports.selected() != old && server.transport() == Transports.selected());
    }

    private void refresh(Bundle b) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(List.of(b), e -> {
            if (e.getType() == FrameworkEvent.PACKAGES_REFRESHED || e.getType() == FrameworkEvent.ERROR) {
                done.countDown();
            }
        });
        assertTrue("refresh finished within 20 s", done.await(20, TimeUnit.SECONDS));
        assertEquals("epoll bundle active after the refresh", Bundle.ACTIVE, b.getState());
    }

    private void shortClient(InetSocketAddress address, Figures f, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[8192];
        byte[] in = new byte[8192];
        for (int n = 0; n < 200_000 && !stop; n++) {
            shortExchange(address, f, random, out, in);
        }
    }

    /** One connection: connect, write 1–8 KiB of random bytes, read them back, compare, close. */
    private void shortExchange(InetSocketAddress address, Figures f, SplittableRandom random, byte[] out, byte[] in) {
        int length = 1 + random.nextInt(out.length);
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
            s.setSoTimeout(10_000);
            s.getOutputStream().write(out, 0, length);
            InputStream is = s.getInputStream();
            while (got < length) {
                int r = is.read(in, got, length - got);
                if (r < 0) {
                    throw new EOFException("end of stream after " + got + " of " + length + " bytes");
                }
                got += r;
            }
            if (Arrays.equals(out, 0, length, in, 0, length)) {
                f.completed.incrementAndGet();
                f.bytesVerified.addAndGet(length);
            } else {
                f.corrupted.incrementAndGet();
                f.problem("corrupted echo of " + length + " bytes");
            }
        } catch (SocketTimeoutException e) {
            f.timedOut.incrementAndGet();
            f.problem("short exchange timed out after " + got + " of " + length + " bytes");
        } catch (IOException e) {
            if (got > 0 && !Arrays.equals(out, 0, got, in, 0, got)) {
                f.corrupted.incrementAndGet();
                f.problem("corrupted partial echo: " + e);
            } else if (got == 0 && !(e instanceof EOFException)) {
                f.resetBeforeData[Math.max(phaseAtStart, phase)].incrementAndGet();
            } else {
                f.cut[Math.max(phaseAtStart, phase)].incrementAndGet();
                f.problem("phase " + phase + " cut: " + e);
            }
        }
    }

    /** Keeps one connection and exchanges 1–32 KiB messages on it; reconnects when it is lost. */
    private void longClient(InetSocketAddress address, Figures f, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[32 * 1024];
        byte[] in = new byte[out.length];
        while (!stop) {
            int phaseAtStart = phase;
            try (Socket s = new Socket()) {
                s.connect(address, 5000);
                s.setSoTimeout(10_000);
                OutputStream os = s.getOutputStream();
                InputStream is = s.getInputStream();
                while (!stop) {
                    int length = 1 + random.nextInt(out.length);
                    random.nextBytes(out);
                    os.write(out, 0, length);
                    int got = 0;
                    while (got < length) {
                        int r = is.read(in, got, length - got);
                        if (r < 0) {
                            throw new EOFException("long-lived connection: end of stream after " + got + " of "
                                    + length + " bytes");
                        }
                        got += r;
                    }
                    if (!Arrays.equals(out, 0, length, in, 0, length)) {
                        f.corrupted.incrementAndGet();
                        f.problem("corrupted long-lived echo of " + length + " bytes");
                        return;
                    }
                    f.longExchanges.incrementAndGet();
                    f.bytesVerified.addAndGet(length);
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
                f.problem("phase " + phase + " long-lived connection lost: " + e);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
