package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.conduit.gateway.internal.echo.EchoHandler;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * While no transport can be selected the gateway's TCP listener and UDP socket are closed ({@code ManagedServer},
 * {@code ManagedDatagramEndpoint}); each endpoint then says so through {@link Network.Bound#problem()}, with the
 * network's account of why no transport is selected, and is no longer listening. Once a transport is selected again
 * both listen again. (No transport is selected here because a strict preference names a transport nobody provides:
 * the providers of the test's class path cannot be unregistered.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootstrapNetworkNoTransportTest {

    @AfterEach
    void selectNioAgain() {
        System.clearProperty("conduit.transport.strict");
        Transports.setPreference(null);
    }

    @Test
    void everyEndpointWithoutATransportIsAProblemSayingWhyAndListensAgainOnceOneIsSelected() throws Exception {
        Transports.setPreference("nio");
        BootstrapNetwork network = new BootstrapNetwork(e -> "no transport here (" + e.getClass().getSimpleName() + "): start one");
        try (Listeners listeners = new Listeners("echo test")) {
            listeners.bindAll(List.of(GatewayUri.parse("tcp://127.0.0.1:0"), GatewayUri.parse("udp://127.0.0.1:0")),
                    d -> d, network, endpoint -> endpoint.kind().isStream()
                            ? network.listen(endpoint, Map.of(), new EchoHandler())
                            : network.bindDatagram(endpoint, Map.of(), udp -> new EchoHandler()))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(2, listeners.bindings().size(), listeners.failures().toString());
            assertEquals(List.of(), listeners.failures());

            System.setProperty("conduit.transport.strict", "true");
            Transports.setPreference("gw-no-such-transport"); // nothing can be selected: both close
            await("both endpoints closed", () -> listeners.bindings().isEmpty());
            List<String> failures = listeners.failures();
            assertEquals(2, failures.size(), failures.toString());
            for (String f : failures) {
                assertTrue(f.matches("cannot listen on (tcp|udp)://127\\.0\\.0\\.1:0: no transport here "
                        + "\\(UnavailableTransportException\\): start one; it listens again as soon as a transport is "
                        + "selected"), f);
            }

            System.clearProperty("conduit.transport.strict");
            Transports.setPreference("nio");
            await("both endpoints listening again", () -> listeners.bindings().size() == 2);
            assertEquals(List.of(), listeners.failures());
            assertTrue(listeners.bindings().stream().allMatch(b -> b.endsWith(" [nio]")), listeners.bindings().toString());
        }
    }

    @Test
    void theDefaultAccountOfNoTransportIsTheSelectionError() {
        assertEquals("no transport is selected (nothing registered)",
                BootstrapNetwork.noTransportSelected(new IllegalStateException("nothing registered")));
    }

    @Test
    void anEndpointClosedOnPurposeHasNoProblem() throws Exception {
        BootstrapNetwork network = new BootstrapNetwork();
        Network.Bound udp = network.bindDatagram(GatewayUri.parse("udp://127.0.0.1:0"), Map.of(),
                e -> new EchoHandler())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        udp.close();
        assertNull(udp.transportName());
        assertNull(udp.problem(), "closed on purpose: not a problem");
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within 10 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
