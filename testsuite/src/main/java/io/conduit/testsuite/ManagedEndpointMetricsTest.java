package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.metrics.EndpointMetrics;
import io.conduit.transport.ManagedDatagramEndpoint;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The metrics of a {@link ManagedServer} and a {@link ManagedDatagramEndpoint} count over every transport it was
 * on: accepted connections keep growing across a swap, and swaps, drains and drained connections are counted; the
 * JMX view shows the same values and goes when the endpoint closes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ManagedEndpointMetricsTest {

    /**
     * @return the transport under test: the suite registers copies of it under other names ({@link SwapTransports})
     *         and swaps between them
     */
    protected abstract Transport transportUnderTest();

    private final SwapTransports.Registered registered = new SwapTransports.Registered(this::transportUnderTest);
    private ManagedServer server;

    @AfterEach
    void cleanUp() throws Exception {
        if (server != null) {
            server.close().await(15, TimeUnit.SECONDS);
        }
        registered.unregisterAll();
    }

    private static Optional<EndpointMetrics> metricsOf(String kind, InetSocketAddress address) {
        return Transports.metrics().endpoints().stream()
                .filter(e -> e.getKind().equals(kind) && e.getName().equals(address.toString()))
                .findFirst();
    }

    private static Optional<EndpointMetrics> metricsOf(InetSocketAddress address) {
        return metricsOf("ManagedServer", address);
    }

    private static EndpointMetrics require(String kind, InetSocketAddress address) {
        return metricsOf(kind, address).orElseThrow(() -> new AssertionError("no " + kind + " metrics for " + address
                + " in " + Transports.metrics().endpoints()));
    }

    private static EndpointMetrics require(InetSocketAddress address) {
        return require("ManagedServer", address);
    }

    @Test
    void totalsSurviveASwapThatDrainsTheOldConnections() throws Exception {
        registered.register("swap-a", true);
        registered.register("swap-b", true);
        Transports.setPreference("swap-a");
        server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new EchoHandler())
                .keepConnectionsOnSelectionChange(false);
        InetSocketAddress address = (InetSocketAddress) server.start().sync().getNow();
        SwapTransports.echoOnce(address, 100);
        SwapTransports.echoOnce(address, 100);
        SwapTransports.await(() -> require(address).getAcceptedConnections() == 2, "two accepted connections");
        EndpointMetrics before = require(address);
        assertEquals("swap-a", before.getTransport());
        assertEquals(0, before.getSwaps());

        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("io.conduit:type=ManagedServer,name=" + ObjectName.quote(address.toString()));
        assertTrue(mbs.isRegistered(name), name + " is registered");
        assertEquals(2L, mbs.getAttribute(name, "AcceptedConnections"));

        try (Socket idle = new Socket()) {
            idle.connect(address, 2000);
            idle.setSoTimeout(5000);
            SwapTransports.await(() -> server.openConnections() == 1, "the connection to be accepted");
            assertEquals(1, require(address).getOpenConnections());
            Transports.setPreference("swap-b");
            assertEquals(-1, idle.getInputStream().read(), "the old connection is drained (end of stream)");
        }
        SwapTransports.await(() -> require(address).getDrainedConnections() == 1, "one drained connection");
        SwapTransports.echoOnce(address, 100);
        SwapTransports.await(() -> require(address).getAcceptedConnections() == 4, "four accepted connections");
        EndpointMetrics after = require(address);
        assertEquals("swap-b", after.getTransport());
        assertEquals(1, after.getSwaps());
        assertEquals(0, after.getSwapsWithoutOverlap(), "both transports have SO_REUSEPORT: the swap overlapped");
        assertEquals(0, after.getSwapFailures());
        assertEquals(1, after.getDrains());
        assertEquals(0, after.getDrainTimeouts());
        assertEquals(1L, mbs.getAttribute(name, "Swaps"));
        assertEquals(4L, mbs.getAttribute(name, "AcceptedConnections"));

        server.close().await(15, TimeUnit.SECONDS);
        assertFalse(metricsOf(address).isPresent(), "a closed server is no longer listed");
        assertFalse(mbs.isRegistered(name), "a closed server's MBean is unregistered");
    }

    @Test
    void aSwapWithoutReusePortIsCountedAsWithoutOverlap() throws Exception {
        registered.register("swap-a", false);
        registered.register("swap-b", false);
        Transports.setPreference("swap-a");
        server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new EchoHandler());
        InetSocketAddress address = (InetSocketAddress) server.start().sync().getNow();
        Transports.setPreference("swap-b");
        SwapTransports.await(() -> "swap-b".equals(server.transportName()), "the server to move to swap-b");
        SwapTransports.await(() -> require(address).getSwaps() == 1, "one swap");
        EndpointMetrics m = require(address);
        assertEquals(1, m.getSwapsWithoutOverlap());
        assertEquals(0, m.getDrains(), "no connection, and swap-a is still provided: nothing drained");
        SwapTransports.echoOnce(address, 10);
        SwapTransports.await(() -> require(address).getAcceptedConnections() == 1, "one accepted connection");
    }

    @Test
    void aDatagramEndpointCountsItsSwapsAndLeavesJmxWhenClosed() throws Exception {
        registered.register("swap-a", false);
        registered.register("swap-b", false);
        Transports.setPreference("swap-a");
        ManagedDatagramEndpoint endpoint = new ManagedDatagramEndpoint(new InetSocketAddress("127.0.0.1", 0))
                .handler(new SwapTransports.DatagramEcho());
        try {
            InetSocketAddress address = endpoint.start().sync().getNow();
            String kind = "ManagedDatagramEndpoint";
            assertEquals("swap-a", require(kind, address).getTransport());
            ObjectName name = new ObjectName("io.conduit:type=" + kind + ",name=" + ObjectName.quote(address.toString()));
            MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
            assertTrue(mbs.isRegistered(name), name + " is registered");

            Transports.setPreference("swap-b");
            SwapTransports.await(() -> "swap-b".equals(endpoint.transportName()), "the endpoint to move to swap-b");
            SwapTransports.await(() -> require(kind, address).getSwaps() == 1, "one swap");
            EndpointMetrics m = require(kind, address);
            assertEquals("swap-b", m.getTransport());
            assertEquals(1, m.getSwapsWithoutOverlap(), "no SO_REUSEPORT: close, then bind");
            assertEquals(0, m.getSwapFailures());
            assertEquals(0, m.getAcceptedConnections());
            assertEquals(1L, mbs.getAttribute(name, "Swaps"));

            endpoint.close().await(15, TimeUnit.SECONDS);
            assertFalse(metricsOf(kind, address).isPresent(), "a closed endpoint is no longer listed");
            assertFalse(mbs.isRegistered(name), "a closed endpoint's MBean is unregistered");
        } finally {
            endpoint.close().await(15, TimeUnit.SECONDS);
        }
    }
}
