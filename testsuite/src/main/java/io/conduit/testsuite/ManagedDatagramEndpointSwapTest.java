package io.conduit.testsuite;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.ManagedDatagramEndpoint;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ManagedDatagramEndpoint} between two copies of the transport under test ({@link SwapTransports}) on JDK 17: the
 * close-then-bind fallback, "address already in use", and adopted channels kept on a selection change and drained
 * when their transport goes away.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ManagedDatagramEndpointSwapTest {

    /**
     * @return the transport under test: the suite registers copies of it under other names ({@link SwapTransports})
     *         and swaps between them
     */
    protected abstract Transport transportUnderTest();

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final SwapTransports.Registered registered = new SwapTransports.Registered(this::transportUnderTest);
    private final List<ManagedDatagramEndpoint> endpoints = new ArrayList<>();

    private RenamedTransport.Provider register(String name, boolean reusePort) {
        return registered.register(name, reusePort);
    }

    private ManagedDatagramEndpoint echoEndpoint() {
        ManagedDatagramEndpoint e = new ManagedDatagramEndpoint(new InetSocketAddress(LOOPBACK, 0))
                .handler(new SwapTransports.DatagramEcho()).gracePeriod(300, TimeUnit.MILLISECONDS);
        endpoints.add(e);
        return e;
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (ManagedDatagramEndpoint e : endpoints) {
            e.close().await(15, TimeUnit.SECONDS);
        }
        registered.unregisterAll();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        SwapTransports.await(condition, what);
    }

    /** Sends a datagram and waits for its echo, retrying a few times. */
    private static void echoOnce(InetSocketAddress to) throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            s.setSoTimeout(500);
            byte[] out = "through the managed datagram endpoint".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            java.net.DatagramPacket in = new java.net.DatagramPacket(new byte[256], 256);
            for (int attempt = 0; attempt < 10; attempt++) {
                s.send(new java.net.DatagramPacket(out, out.length, to));
                try {
                    s.receive(in);
                    assertArrayEquals(out, java.util.Arrays.copyOf(in.getData(), in.getLength()));
                    assertEquals(to, in.getSocketAddress(), "the reply comes from the endpoint's address");
                    return;
                } catch (SocketTimeoutException e) {
                    // retry: the socket may be between close and bind (fallback)
                }
            }
            fail("no echo from " + to);
        }
    }

    @Test
    void withoutReusePortTheOldSocketClosesFirstAndTheNewOneTakesThePort() throws Exception {
        register("swap-a", false);
        RenamedTransport.Provider b = register("swap-b", false);
        Transports.setPreference("swap-a");
        ManagedDatagramEndpoint endpoint = echoEndpoint();
        InetSocketAddress address = endpoint.start().sync().getNow();
        assertEquals("swap-a", endpoint.transportName());
        echoOnce(address);
        Transports.setPreference("swap-b");
        await(() -> "swap-b".equals(endpoint.transportName()), "the endpoint to move to swap-b");
        assertEquals(address, endpoint.localAddress(), "same port");
        echoOnce(address);
        // close-then-bind retries a bind that finds the old socket not closed yet (SwapEngine.bindAfterClose); each
        // failed attempt's group is shut down: exactly one group of swap-b runs, the socket's
        List<EventLoopGroup> running = b.transport.groups().stream().filter(g -> !g.isShuttingDown()).toList();
        assertEquals(1, running.size(), "one running group on swap-b of " + b.transport.groups().size() + " made");
        for (EventLoopGroup g : b.transport.groups()) {
            if (g != running.get(0)) {
                assertTrue(g.terminationFuture().await(10, TimeUnit.SECONDS), "a failed attempt's group terminates");
            }
        }
    }

    /**
     * While nothing can be selected, more selection changes (a framework stopping bundle after bundle) leave the
     * closed endpoint quiet: one warning when its socket closed, none "from '(none)' to '(none)'"; it binds again on
     * the next selected transport.
     */
    @Test
    void withNothingSelectedAgainAndAgainTheEndpointWarnsOnceAndFollowsTheNextSelection() throws Exception {
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(ManagedDatagramEndpoint.class.getName());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        String strictBefore = System.setProperty("conduit.transport.strict", "true");
        try {
            RenamedTransport.Provider a = register("swap-a", true);
            Transports.setPreference("swap-a");
            ManagedDatagramEndpoint endpoint = echoEndpoint();
            InetSocketAddress address = endpoint.start().sync().getNow();
            assertTrue(Transports.unregister(a), "swap-a unregistered: strict, so nothing is selected");
            await(() -> endpoint.transportName() == null, "the socket to close");
            Transports.setPreference("swap-b");
            Transports.setPreference("swap-c");
            Thread.sleep(200); // let the swap thread see each of them
            register("swap-c", true);
            await(() -> "swap-c".equals(endpoint.transportName()), "the endpoint to bind on swap-c");
            echoOnce(address);
            assertEquals(1, warnings.stream().filter(w -> w.contains("closed until one is")).count(),
                    "one warning when the socket closed: " + warnings);
            assertFalse(warnings.stream().anyMatch(w -> w.contains("from '(none)' to '(none)'")), warnings.toString());
        } finally {
            log.removeHandler(capture);
            if (strictBefore == null) {
                System.clearProperty("conduit.transport.strict");
            } else {
                System.setProperty("conduit.transport.strict", strictBefore);
            }
        }
    }

    @Test
    void aSecondEndpointOnATakenAddressFailsWithAlreadyInUse() throws Exception {
        register("swap-a", true);
        Transports.setPreference("swap-a");
        ManagedDatagramEndpoint first = echoEndpoint();
        InetSocketAddress address = first.start().sync().getNow();
        ManagedDatagramEndpoint second = new ManagedDatagramEndpoint(address).handler(new SwapTransports.DatagramEcho());
        endpoints.add(second);
        Future<InetSocketAddress> f = second.start();
        assertTrue(f.await(10, TimeUnit.SECONDS));
        assertTrue(f.cause() instanceof BindException && f.cause().getMessage().contains("already in use"),
                "already in use: " + f.cause());
        echoOnce(address); // the first endpoint still gets every datagram
    }

    @Test
    void adoptedChannelsStayOnASelectionChangeAndAreDrainedWhenTheirTransportGoesAway() throws Exception {
        RenamedTransport.Provider a = register("swap-a", true);
        register("swap-b", true);
        Transports.setPreference("swap-a");
        ManagedDatagramEndpoint endpoint = echoEndpoint();
        endpoint.start().sync();
        EventLoopGroup oldGroup = a.transport.groups().get(0);
        Channel adopted = new Bootstrap().transport(Transports.get("swap-a")).group(endpoint.channel().eventLoop())
                .channelType(ChannelType.UDP).handler(new ChannelHandler() { })
                .bind(new InetSocketAddress(LOOPBACK, 0)).sync().getNow();
        Future<Void> drainStarted = endpoint.adopt(adopted);
        assertEquals(1, endpoint.adoptedChannels());

        Transports.setPreference("swap-b"); // swap-a still there: a selection change
        await(() -> "swap-b".equals(endpoint.transportName()), "the endpoint to move to swap-b");
        Thread.sleep(200);
        assertTrue(adopted.isOpen(), "kept on a selection change");
        assertFalse(drainStarted.isDone());
        assertFalse(oldGroup.isShuttingDown(), "swap-a's group runs while an adopted channel lives on it");

        assertTrue(Transports.unregister(a)); // swap-a goes away
        assertTrue(drainStarted.await(10, TimeUnit.SECONDS), "the drain starts");
        assertTrue(adopted.isOpen(), "still open during the grace period (late replies)");
        assertTrue(adopted.closeFuture().await(10, TimeUnit.SECONDS), "closed after the grace period");
        assertTrue(oldGroup.terminationFuture().await(10, TimeUnit.SECONDS), "then swap-a's group stops");
        assertEquals(0, endpoint.adoptedChannels());

        EventLoopGroup foreign = Transports.get("swap-b").newEventLoopGroup(1);
        try {
            Channel other = new Bootstrap().transport(Transports.get("swap-b")).group(foreign)
                    .channelType(ChannelType.UDP).handler(new ChannelHandler() { })
                    .bind(new InetSocketAddress(LOOPBACK, 0)).sync().getNow();
            Future<Void> refused = endpoint.adopt(other);
            assertTrue(refused.await(5, TimeUnit.SECONDS));
            assertTrue(refused.cause() instanceof IllegalArgumentException, "not on the endpoint's loops: "
                    + refused.cause());
            other.close().sync();
        } finally {
            foreign.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }
}
