package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.transport.ManagedDatagramEndpoint;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ManagedDatagramEndpoint} when the transport a swap binds on goes away during the bind, as when a transport
 * bundle is updated and refreshed back to back: the swap is skipped with one line and no stack trace, nothing is
 * retried on the vanished transport, and the socket stays where it was. With {@code SO_REUSEPORT} the old socket never
 * closes, so a client exchanging datagrams throughout loses none; without it the old socket closes before the bind
 * (datagrams are lost meanwhile, as docs/runtime-swap.md says) and the endpoint binds again on the current selection
 * at the same port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ManagedDatagramEndpointTransportGoneTest {

    /**
     * @return the transport under test: the suite registers copies of it under other names ({@link SwapTransports})
     *         and swaps between them
     */
    protected abstract Transport transportUnderTest();

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final SwapTransports.Registered registered = new SwapTransports.Registered(this::transportUnderTest);
    private SwapTransports.LogRecords log;
    private ManagedDatagramEndpoint endpoint;

    @BeforeEach
    void captureLog() {
        log = new SwapTransports.LogRecords(ManagedDatagramEndpoint.class);
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (endpoint != null) {
            endpoint.close().await(15, TimeUnit.SECONDS);
        }
        registered.unregisterAll();
        log.close();
    }

    private InetSocketAddress started(String preference) throws Exception {
        Transports.setPreference(preference);
        endpoint = new ManagedDatagramEndpoint(new InetSocketAddress(LOOPBACK, 0)).handler(new SwapTransports.DatagramEcho())
                .gracePeriod(300, TimeUnit.MILLISECONDS);
        return endpoint.start().sync().getNow();
    }

    /** Exchanges numbered datagrams one at a time until told to stop; counts answered and unanswered ones. */
    private static final class Exchanges implements Runnable {
        final AtomicLong answered = new AtomicLong();
        final AtomicLong lost = new AtomicLong();
        final AtomicBoolean stop = new AtomicBoolean();
        private final InetSocketAddress to;

        Exchanges(InetSocketAddress to) {
            this.to = to;
        }

        @Override
        public void run() {
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
                s.setSoTimeout(500);
                java.net.DatagramPacket in = new java.net.DatagramPacket(new byte[8], 8);
                for (long n = 0; n < 1_000_000 && !stop.get(); n++) {
                    byte[] out = ByteBuffer.allocate(8).putLong(n).array();
                    s.send(new java.net.DatagramPacket(out, out.length, to));
                    try {
                        do {
                            s.receive(in); // a late echo of an earlier one is skipped
                        } while (ByteBuffer.wrap(in.getData(), 0, in.getLength()).getLong() != n);
                        answered.incrementAndGet();
                    } catch (SocketTimeoutException e) {
                        lost.incrementAndGet();
                    }
                }
            } catch (java.io.IOException e) {
                lost.incrementAndGet();
            }
        }
    }

    @Test
    void withReusePortATransportThatGoesAwayWhileTheSwapBindsIsSkippedAndNoDatagramIsLost() throws Exception {
        RenamedTransport.Provider a = registered.register("swap-a", true);
        RenamedTransport.Provider gone = registered.register("swap-gone", true);
        InetSocketAddress address = started("swap-a");
        Exchanges exchanges = new Exchanges(address);
        Thread client = SwapTransports.thread("datagram-client", exchanges);
        SwapTransports.await(() -> exchanges.answered.get() > 100, "exchanges before the swap");
        SwapTransports.goesAwayOnNextGroup(gone);
        log.records.clear();
        Transports.setPreference("swap-gone,swap-a");
        SwapTransports.await(() -> log.messages().stream().anyMatch(m -> m.contains("skipped 'swap-gone'")),
                "the swap's line naming the skipped transport");
        long atSkip = exchanges.answered.get();
        SwapTransports.await(() -> exchanges.answered.get() > atSkip + 100, "exchanges after the swap");
        exchanges.stop.set(true);
        client.join(10_000);

        assertEquals("swap-a", endpoint.transportName(), "still on swap-a");
        assertEquals(address, endpoint.localAddress());
        assertEquals(1, a.transport.groups().size(), "swap-a's socket was never closed and bound again");
        assertEquals(1, gone.transport.groupRequests(), "nothing retried on the transport that went away");
        assertEquals(List.of(), log.withThrowable(), "no stack trace");
        assertEquals(1, log.records.size(), "one line for the swap: " + log.messages());
        assertTrue(log.messages().get(0).contains("NoClassDefFoundError: io/conduit/test/EventArray"),
                log.messages().get(0));
        assertEquals(0, exchanges.lost.get(), "datagrams lost (answered " + exchanges.answered + ")");
    }

    @Test
    void withoutReusePortTheEndpointBindsAgainOnTheCurrentSelectionAtTheSamePort() throws Exception {
        RenamedTransport.Provider a = registered.register("swap-a", false); // close, then bind
        RenamedTransport.Provider gone = registered.register("swap-gone", false);
        InetSocketAddress address = started("swap-a");
        SwapTransports.goesAwayOnNextGroup(gone);
        log.records.clear();
        Transports.setPreference("swap-gone,swap-a");
        SwapTransports.await(() -> a.transport.groups().size() == 2 && "swap-a".equals(endpoint.transportName()),
                "the endpoint to be bound on swap-a again");
        SwapTransports.await(() -> log.messages().stream().anyMatch(m -> m.contains("skipped 'swap-gone'")),
                "the swap's line naming the skipped transport");

        assertEquals(address, endpoint.localAddress(), "the same port");
        assertEquals(1, gone.transport.groupRequests(), "nothing retried on the transport that went away");
        assertEquals(List.of(), log.withThrowable(), "no stack trace");
        Exchanges exchanges = new Exchanges(address);
        Thread client = SwapTransports.thread("datagram-client", exchanges);
        SwapTransports.await(() -> exchanges.answered.get() > 10, "exchanges after the swap");
        exchanges.stop.set(true);
        client.join(10_000);
        assertTrue(a.transport.groups().get(0).terminationFuture().await(10, TimeUnit.SECONDS),
                "the first socket's group terminated");
    }
}
