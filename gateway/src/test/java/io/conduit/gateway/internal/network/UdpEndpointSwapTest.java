package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.echo.EchoHandler;
import io.conduit.gateway.internal.relay.UdpRelayHandler;
import io.conduit.testsuite.EpollNioSwaps;
import io.conduit.testsuite.RenamedTransport;
import io.conduit.testsuite.UdpEchoLoad;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway's UDP echo and UDP relay follow the selected transport ({@link BootstrapNetwork#bindDatagram}): clients
 * count the replies of an echo behind a relay while the selection flips epoll ↔ nio and an epoll transport goes away
 * (its provider unregistered). Both endpoints swap at once; the relay's sessions are kept on selection changes and
 * drained when their transport goes away.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UdpEndpointSwapTest {

    private TransportProvider epollB;

    @AfterEach
    void cleanUp() {
        Transports.setPreference(null);
        if (epollB != null) {
            Transports.unregister(epollB);
        }
    }

    @Test
    void relayedEchoRepliesKeepComingWhileTheSelectionFlipsAndEpollGoesAway() throws Exception {
        Transports.setPreference("epoll");
        BootstrapNetwork network = new BootstrapNetwork();
        Network.Bound echo = network.bindDatagram(GatewayUri.parse("udp://127.0.0.1:0"), udp -> new EchoHandler())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        int echoPort = ((InetSocketAddress) echo.localAddress()).getPort();
        RelayConfig config = RelayConfig.from(Map.of("listen", "udp://127.0.0.1:0",
                "upstream", "udp://127.0.0.1:" + echoPort, "udp.idle.timeout.ms", "60000"));
        UdpRelayHandler[] handler = new UdpRelayHandler[1];
        Network.Bound relay = network.bindDatagram(config.listen(), udp -> handler[0] = new UdpRelayHandler(config,
                network, udp)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            assertEquals("epoll", relay.transportName());
            epollB = new RenamedTransport(Transports.get("epoll"), "epoll-b").provider();
            assertTrue(Transports.register(epollB));
            UdpEchoLoad.Result result;
            try (UdpEchoLoad load = new UdpEchoLoad((InetSocketAddress) relay.localAddress(), 4, 16, 500_000)
                    .start()) {
                EpollNioSwaps.run(epollB, 400, load::mark);
                result = load.stop(UdpEchoLoad.WRITE_OFF_MILLIS * 2);
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!"epoll".equals(relay.transportName()) || !"epoll".equals(echo.transportName())) {
                if (System.nanoTime() > end) {
                    fail("relay on " + relay.transportName() + ", echo on " + echo.transportName());
                }
                Thread.sleep(10);
            }
            System.out.println("gateway UDP relay -> UDP echo swap load: " + result + "; sessions at the end: "
                    + handler[0].sessionCount());
            for (UdpEchoLoad.Phase phase : result.phases()) {
                // Between epoll transports the hand-over is exact. With nio on either side a nio socket handed over
                // may lose what arrives between its last read and its connect. Before the relay flushed the channel
                // it wrote to (UdpRelayHandlerTest.aReplyWrittenJustBeforeASwap...), a reply written just before a
                // swap also stayed queued on the old channel: 3-7 lost in about one run of six, epoll -> nio too;
                // since then 0 in 10 runs. The bound keeps a margin for the nio window on a loaded 2-core machine.
                long allowed = phase.label().contains("nio") ? 16 : 0;
                assertTrue(phase.lost() <= allowed, phase.label() + ": " + result);
            }
            assertTrue(result.sent() > 2_000, result.toString());
            assertEquals(4, handler[0].sessionCount(), "one session per client, none lost track of");
        } finally {
            relay.close();
            echo.close();
        }
    }
}
