package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.concurrent.EventLoopGroup;
import io.conduit.gateway.internal.echo.EchoHandler;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import io.conduit.testsuite.KernelSockets;
import io.conduit.testsuite.RenamedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gateway's stream listeners follow the selected transport (they are {@code ManagedServer}s). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootstrapNetworkSwapTest {

    private static void echo(InetSocketAddress address) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(address, 2000);
            s.setSoTimeout(5000);
            byte[] out = "through the gateway's listener".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            s.getOutputStream().write(out);
            assertArrayEquals(out, s.getInputStream().readNBytes(out.length));
        }
    }

    /**
     * The listener moves from one transport to the other at the same port. Both transports are nio under other
     * names, so the test sees the old listener close: it echoes only after that. An attempt that reaches the old
     * listener's accept backlog in the instant it closes is reset when {@code net.ipv4.tcp_migrate_req} is 0
     * (docs/runtime-swap.md); a CI run once echoed into exactly that instant.
     *
     * <p>The close future is not that instant: a JDK {@code ServerSocketChannel} registered with a selector keeps its
     * socket open, still listening in the port's {@code SO_REUSEPORT} group, until the selector's next round
     * deregisters it. A connection the kernel hashed to it then was reset (a loaded machine, JDK 25). So the test
     * also waits until the kernel lists one listener on the port.
     */
    @Test
    void anEchoListenerRebindsOnTheNewTransportAtTheSamePort() throws Exception {
        Transport nio = Transports.get("nio");
        RenamedTransport first = new RenamedTransport(nio, "gw-swap-a");
        RenamedTransport second = new RenamedTransport(nio, "gw-swap-b");
        TransportProvider firstProvider = first.provider();
        TransportProvider secondProvider = second.provider();
        assertTrue(Transports.register(firstProvider));
        assertTrue(Transports.register(secondProvider));
        Network.Bound bound = null;
        try {
            Transports.setPreference(first.name());
            BootstrapNetwork network = new BootstrapNetwork();
            bound = network.listen(GatewayUri.parse("tcp://127.0.0.1:0"), Map.of(), new EchoHandler())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            InetSocketAddress address = (InetSocketAddress) bound.localAddress();
            echo(address);
            assertEquals(first.name(), network.transportName());
            assertEquals(first.name(), bound.transportName());
            assertEquals(1, first.listeners().size());

            Transports.setPreference(second.name());
            assertTrue(first.listeners().get(0).closeFuture().await(10, TimeUnit.SECONDS),
                    "the listener on " + first.name() + " closed after the swap");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int listening = KernelSockets.listenersOn(address.getPort());
            while (listening > 1 && System.nanoTime() - deadline < 0) {
                Thread.sleep(5);
                listening = KernelSockets.listenersOn(address.getPort());
            }
            assertTrue(listening <= 1, listening + " sockets still listen on port " + address.getPort());
            assertEquals(second.name(), network.transportName());
            assertEquals(second.name(), bound.transportName());
            assertEquals(1, second.listeners().size(), "one listener on " + second.name());
            assertTrue(second.listeners().get(0).isActive());
            echo(address);
            assertEquals(address, bound.localAddress(), "same port after the swap");
        } finally {
            if (bound != null) {
                bound.close();
            }
            Transports.setPreference(null);
            Transports.unregister(secondProvider);
            Transports.unregister(firstProvider);
        }
        for (RenamedTransport r : List.of(first, second)) {
            for (EventLoopGroup g : r.groups()) {
                assertTrue(g.terminationFuture().await(10, TimeUnit.SECONDS), "the listener's group stopped on close");
            }
        }
    }

    @Test
    void aSecondListenerOnAPortAnEchoAlreadyUsesFailsWithAlreadyInUse() throws Exception {
        Transport nio = Transports.get("nio");
        EventLoopGroup group = nio.newEventLoopGroup(1);
        Network.Bound echo = null;
        try {
            BootstrapNetwork network = new BootstrapNetwork();
            echo = network.listen(GatewayUri.parse("tcp://127.0.0.1:0"), Map.of(), new EchoHandler())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            InetSocketAddress address = (InetSocketAddress) echo.localAddress();
            // e.g. a relay configured on the echo's port: it must not share the port (SO_REUSEPORT) silently
            java.util.concurrent.CompletableFuture<Network.Bound> second = network.listen(
                    GatewayUri.parse("tcp://127.0.0.1:" + address.getPort()), Map.of(), new EchoHandler())
                    .toCompletableFuture();
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> second.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof java.net.BindException
                    && e.getCause().getMessage().contains("already in use"), "already in use: " + e.getCause());
            for (int i = 0; i < 5; i++) {
                echo(address); // every connection still reaches the echo
            }
        } finally {
            if (echo != null) {
                echo.close();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }
    @Test
    void anAddressThatIsNotOnThisHostIsReportedAsSuchNotAsInUse() throws Exception {
        BootstrapNetwork network = new BootstrapNetwork();
        for (String uri : new String[] {"tcp://10.255.255.1:16385", "udp://10.255.255.1:16385"}) {
            GatewayUri endpoint = GatewayUri.parse(uri);
            java.util.concurrent.CompletableFuture<Network.Bound> f = (endpoint.kind() == GatewayUri.Kind.TCP
                    ? network.listen(endpoint, Map.of(), new EchoHandler())
                    : network.bindDatagram(endpoint, Map.of(), udp -> new EchoHandler())).toCompletableFuture();
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            String m = e.getCause().getMessage();
            assertTrue(e.getCause() instanceof java.net.BindException && m.contains("10.255.255.1 is not an address "
                    + "of this host") && m.contains("127.0.0.1 for this host only, or 0.0.0.0 for every address")
                    && !m.contains("already in use") && !m.contains("stop the other"), uri + ": " + m);
        }
    }
}
