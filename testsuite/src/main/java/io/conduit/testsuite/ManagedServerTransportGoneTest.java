package io.conduit.testsuite;

import io.conduit.concurrent.Future;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import io.conduit.transport.UnavailableTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ManagedServer} when the transport it binds on goes away during the bind, as when a transport bundle is
 * updated and refreshed back to back (the refresh withdraws the revision the update had just started, and its
 * classes fail to load with {@link NoClassDefFoundError}), and when nothing is selected at {@link ManagedServer#start()}.
 *
 * <p>The bugs these guard against: the failed bind closed the still-working old listener first, then retried every
 * 25 ms for 3 s on the withdrawn transport, logging a stack trace each time; and {@code start()} with nothing
 * selected threw on the server's swap thread, so its future never completed and a caller waiting on it (a bundle
 * activator on Felix's start-level thread) blocked for ever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ManagedServerTransportGoneTest {

    /**
     * @return the transport under test: the suite registers copies of it under other names ({@link SwapTransports})
     *         and swaps between them
     */
    protected abstract Transport transportUnderTest();

    private final SwapTransports.Registered registered = new SwapTransports.Registered(this::transportUnderTest);
    private final List<ManagedServer> servers = new ArrayList<>();
    private SwapTransports.LogRecords log;

    @BeforeEach
    void captureLog() {
        log = new SwapTransports.LogRecords(ManagedServer.class);
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (ManagedServer s : servers) {
            s.close().await(15, TimeUnit.SECONDS);
        }
        registered.unregisterAll();
        log.close();
    }

    private ManagedServer started(String preference) throws Exception {
        Transports.setPreference(preference);
        ManagedServer s = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new EchoHandler());
        servers.add(s);
        s.start().sync();
        return s;
    }

    @Test
    void aTransportThatGoesAwayWhileTheOverlapBindsIsSkippedAndTheOldListenerKeepsListening() throws Exception {
        RenamedTransport.Provider a = registered.register("swap-a", true);
        RenamedTransport.Provider gone = registered.register("swap-gone", true);
        ManagedServer server = started("swap-a");
        SocketAddress address = server.localAddress();
        try (Socket held = new Socket()) {
            held.connect(address, 2000);
            SwapTransports.await(() -> server.openConnections() == 1, "the held connection to be accepted");
            SwapTransports.goesAwayOnNextGroup(gone);
            log.records.clear();
            Transports.setPreference("swap-gone,swap-a");
            SwapTransports.await(() -> log.messages().stream().anyMatch(m -> m.contains("skipped 'swap-gone'")),
                    "the swap's line naming the skipped transport");

            assertEquals("swap-a", server.transportName(), "still on swap-a");
            assertEquals(1, a.transport.groups().size(), "swap-a's listener was never closed and re-bound");
            assertEquals(1, gone.transport.groupRequests(), "nothing retried on the transport that went away");
            assertEquals(List.of(), log.withThrowable(), "no stack trace");
            assertEquals(1, log.records.size(), "one line for the swap: " + log.messages());
            assertTrue(log.records.get(0).getMessage().contains("NoClassDefFoundError: io/conduit/test/EventArray"),
                    log.records.get(0).getMessage());
            assertEquals(1, server.openConnections(), "the held connection stays");
            SwapTransports.echoOnce((InetSocketAddress) address, 64);
        }
    }

    /**
     * The selected transport's bundle is refreshed before the swap asks it anything: its first answer
     * ({@code supports(SO_REUSEPORT)}) loads a class that is gone. A CI run's swap thread died of that
     * {@code NoClassDefFoundError} (uncaught), abandoning the swap; now the transport is skipped like one that goes
     * away while binding.
     */
    @Test
    void aTransportWhoseClassesAreGoneWhenTheSwapAsksWhatItSupportsIsSkipped() throws Exception {
        List<Throwable> uncaught = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            RenamedTransport.Provider a = registered.register("swap-a", true);
            RenamedTransport.Provider gone = registered.register("swap-gone", true);
            ManagedServer server = started("swap-a");
            SocketAddress address = server.localAddress();
            gone.transport.beforeSupports(() -> {
                Transports.unregister(gone);
                throw new NoClassDefFoundError("io/conduit/test/Spec"); // as a refreshed bundle's class loader says
            });
            log.records.clear();
            Transports.setPreference("swap-gone,swap-a");
            SwapTransports.await(() -> log.messages().stream().anyMatch(m -> m.contains("skipped 'swap-gone'")),
                    "the swap's line naming the skipped transport");

            assertEquals(List.of(), uncaught, "nothing escapes the swap thread");
            assertEquals("swap-a", server.transportName(), "still on swap-a: " + log.messages());
            assertEquals(1, a.transport.groups().size(), "swap-a's listener was never closed and re-bound");
            assertEquals(0, gone.transport.groupRequests(), "nothing was made on the transport that went away");
            assertEquals(List.of(), log.withThrowable(), "no stack trace");
            assertTrue(log.records.get(0).getMessage().contains("NoClassDefFoundError: io/conduit/test/Spec"),
                    log.records.get(0).getMessage());
            SwapTransports.echoOnce((InetSocketAddress) address, 64);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    @Test
    void withoutReusePortAFailedBindOnAVanishedTransportBindsOnTheCurrentSelectionAtOnce() throws Exception {
        RenamedTransport.Provider a = registered.register("swap-a", false); // close, then bind
        RenamedTransport.Provider gone = registered.register("swap-gone", false);
        ManagedServer server = started("swap-a");
        SocketAddress address = server.localAddress();
        SwapTransports.goesAwayOnNextGroup(gone);
        log.records.clear();
        Transports.setPreference("swap-gone,swap-a");
        SwapTransports.await(() -> a.transport.groups().size() == 2 && "swap-a".equals(server.transportName()),
                "the server to listen on swap-a again");
        SwapTransports.await(() -> !log.records.isEmpty(), "the swap's line");

        assertEquals(1, gone.transport.groupRequests(), "nothing retried on the transport that went away");
        assertEquals(List.of(), log.withThrowable(), "no stack trace");
        assertEquals(1, log.records.size(), "one line for the swap: " + log.messages());
        assertTrue(log.records.get(0).getMessage().contains("skipped 'swap-gone'"), log.records.get(0).getMessage());
        assertEquals(address, server.localAddress());
        SwapTransports.echoOnce((InetSocketAddress) address, 64);
        assertTrue(a.transport.groups().get(0).terminationFuture().await(10, TimeUnit.SECONDS),
                "the first listener's group terminated");
    }

    @Test
    void aTransportThatGoesAwayDuringTheFirstBindIsSkippedByStart() throws Exception {
        registered.register("swap-a", true);
        RenamedTransport.Provider gone = registered.register("swap-gone", true);
        SwapTransports.goesAwayOnNextGroup(gone);
        ManagedServer server = started("swap-gone,swap-a");
        assertEquals("swap-a", server.transportName());
        assertEquals(1, gone.transport.groupRequests());
        assertEquals(List.of(), log.withThrowable(), "no stack trace");
        SwapTransports.echoOnce((InetSocketAddress) server.localAddress(), 64);
    }

    @Test
    void startWithNothingSelectedFailsWithUnavailableTransportExceptionAndEndsItsThread() throws Exception {
        SwapTransports.strictCollectingUncaught(uncaught -> {
            Transports.setPreference("swap-not-registered"); // strict: nothing is selected
            ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0))
                    .childHandler(new EchoHandler());
            servers.add(server);
            java.util.Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
            Future<SocketAddress> started = server.start();
            assertTrue(started.await(10, TimeUnit.SECONDS), "start() completes");
            UnavailableTransportException e = assertInstanceOf(UnavailableTransportException.class, started.cause());
            assertTrue(e.getMessage().contains("no transport is selected"), e.getMessage());
            assertTrue(server.closeFuture().await(10, TimeUnit.SECONDS), "the server closed itself");
            assertNull(server.transportName());
            SwapTransports.await(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().startsWith("conduit-managed-server-") && !threadsBefore.contains(t)),
                    "the swap thread to end");
            assertEquals(List.of(), uncaught, "nothing thrown on the swap thread");
        });
    }
}
