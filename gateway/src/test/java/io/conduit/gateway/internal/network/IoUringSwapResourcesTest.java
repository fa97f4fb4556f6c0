package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelInitializer;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.echo.EchoHandler;
import io.conduit.gateway.internal.relay.RelayFrontendHandler;
import io.conduit.gateway.internal.relay.UdpRelayHandler;
import io.conduit.testsuite.UdpEchoLoad;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Swapping io_uring and epoll back and forth under load leaves no event loop behind: a TCP echo, a TCP relay to it, a
 * UDP echo and a UDP relay to it (the gateway's network, {@link BootstrapNetwork}) take reconnecting and streaming
 * TCP clients and UDP clients while the selection flips 10 times. Once the clients stopped, their UDP sessions ended
 * and two more swaps ran without load, the process has the {@code conduit-io-*} threads, io_uring rings and
 * descriptors it had at the start.
 *
 * <p>Why the two swaps without load: a fresh-user trial counted 10 rings and 69 descriptors after 8 to 10 swaps under
 * load against 9 and 66 at the start, and one thread more, {@code conduit-io-403-1}. That thread was the second event
 * loop of a listener's current group (2 loops on 2 cores, started lazily by the first connection given to it), with
 * its ring and eventfd: the same growth comes from load alone, without any swap. Only a retired generation's loop
 * that outlives its generation is a leak; the swaps without load retire the generations that had load, so what stays
 * is what the start had.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IoUringSwapResourcesTest {

    @AfterEach
    void cleanUp() {
        Transports.setPreference(null);
    }

    /** What the process holds of the transports' event loops at one moment. */
    private record Held(TreeSet<String> loopThreads, long rings, long descriptors) {
        static Held now() throws IOException {
            TreeSet<String> threads = new TreeSet<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("conduit-io-") && t.isAlive()) {
                    threads.add(t.getName());
                }
            }
            long rings = 0;
            long descriptors = 0;
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                for (Path fd : (Iterable<Path>) fds::iterator) {
                    descriptors++;
                    try {
                        if (Files.readSymbolicLink(fd).toString().contains("io_uring")) {
                            rings++;
                        }
                    } catch (IOException closedMeanwhile) {
                        // the listing's own descriptor, or one closed since
                    }
                }
            }
            return new Held(threads, rings, descriptors);
        }

        boolean sameCounts(Held other) {
            return loopThreads.size() == other.loopThreads.size() && rings == other.rings
                    && descriptors == other.descriptors;
        }
    }

    @Test
    void tenSwapsUnderLoadLeaveNoLoopRingOrDescriptorBehind() throws Exception {
        Transports.setPreference("io_uring");
        BootstrapNetwork network = new BootstrapNetwork();
        List<Network.Bound> bound = new ArrayList<>();
        try {
            Network.Bound tcpEcho = network.listen(GatewayUri.parse("tcp://127.0.0.1:0"), Map.of(), new EchoHandler())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            bound.add(tcpEcho);
            int tcpEchoPort = ((InetSocketAddress) tcpEcho.localAddress()).getPort();
            RelayConfig tcpRelayConfig = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0",
                    "upstream", "tcp://127.0.0.1:" + tcpEchoPort));
            Network.Bound tcpRelay = network.listen(tcpRelayConfig.listen(), List.of(tcpRelayConfig.upstream()),
                    RelayFrontendHandler.connectionOptions(tcpRelayConfig), new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new RelayFrontendHandler(tcpRelayConfig, network));
                        }
                    }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            bound.add(tcpRelay);
            Network.Bound udpEcho = network.bindDatagram(GatewayUri.parse("udp://127.0.0.1:0"), Map.of(),
                    udp -> new EchoHandler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            bound.add(udpEcho);
            RelayConfig udpRelayConfig = RelayConfig.from(Map.of("listen", "udp://127.0.0.1:0", "upstream",
                    "udp://127.0.0.1:" + ((InetSocketAddress) udpEcho.localAddress()).getPort(),
                    "udp.idle.timeout.ms", "300"));
            Network.Bound udpRelay = network.bindDatagram(udpRelayConfig.listen(), Map.of(),
                    udp -> new UdpRelayHandler(udpRelayConfig, network, udp)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            bound.add(udpRelay);
            Thread.sleep(300);
            Held start = Held.now();

            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong exchanges = new AtomicLong();
            List<Thread> clients = new ArrayList<>();
            InetSocketAddress relayAddress = (InetSocketAddress) tcpRelay.localAddress();
            InetSocketAddress echoAddress = (InetSocketAddress) tcpEcho.localAddress();
            for (InetSocketAddress to : List.of(relayAddress, relayAddress, echoAddress)) {
                clients.add(client(running, exchanges, to, 1_000, 1));  // a connection per exchange
            }
            clients.add(client(running, exchanges, relayAddress, 65_536, 200)); // streams over one connection
            clients.forEach(Thread::start);
            UdpEchoLoad.Result udp;
            try (UdpEchoLoad load = new UdpEchoLoad((InetSocketAddress) udpRelay.localAddress(), 8, 8, 1_000_000)
                    .start()) {
                for (int i = 0; i < 10; i++) {
                    Thread.sleep(300);
                    Transports.setPreference(i % 2 == 0 ? "epoll" : "io_uring");
                    load.mark("swap " + (i + 1));
                }
                Thread.sleep(500); // load on the last generations too
                running.set(false);
                udp = load.stop(UdpEchoLoad.WRITE_OFF_MILLIS);
            }
            for (Thread t : clients) {
                t.join(10_000);
            }
            assertTrue(exchanges.get() > 100, "TCP exchanges " + exchanges.get());
            assertTrue(udp.sent() > 100, udp.toString());
            assertEquals("io_uring", tcpRelay.transportName());

            Thread.sleep(1_000); // UDP sessions end after 1 to 1.5 idle timeouts (300 ms)
            Transports.setPreference("epoll");
            Thread.sleep(500);
            Transports.setPreference("io_uring");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            Held end = Held.now();
            while (!end.sameCounts(start) && System.nanoTime() - deadline < 0) {
                Thread.sleep(100);
                end = Held.now();
            }
            System.out.println("io_uring/epoll swaps under load: " + exchanges.get() + " TCP exchanges, UDP " + udp
                    + "; at the start " + start + ", at the end " + end);
            assertEquals(start.loopThreads().size(), end.loopThreads().size(), "event-loop threads: at the start "
                    + start.loopThreads() + ", at the end " + end.loopThreads());
            assertEquals(start.rings(), end.rings(), "io_uring rings");
            assertEquals(start.descriptors(), end.descriptors(), "descriptors");
        } finally {
            for (Network.Bound b : bound) {
                b.close();
            }
        }
    }

    /**
     * @param size     bytes per exchange, echoed back
     * @param perConnection exchanges per connection before the client connects again
     * @return a thread exchanging with {@code to} while {@code running}; an exchange cut by a swap is retried
     */
    private static Thread client(AtomicBoolean running, AtomicLong exchanges, InetSocketAddress to, int size,
            int perConnection) {
        return new Thread(() -> {
            byte[] out = new byte[size];
            byte[] in = new byte[size];
            while (running.get()) {
                try (Socket s = new Socket()) {
                    s.connect(to, 2_000);
                    s.setSoTimeout(5_000);
                    OutputStream o = s.getOutputStream();
                    InputStream i = s.getInputStream();
                    for (int n = 0; n < perConnection && running.get(); n++) {
                        o.write(out);
                        int got = 0;
                        while (got < size) {
                            int r = i.read(in, got, size - got);
                            if (r < 0) {
                                throw new IOException("end of stream after " + got + " bytes");
                            }
                            got += r;
                        }
                        exchanges.incrementAndGet();
                    }
                } catch (IOException cutBySwap) {
                    // a connection drained or reset during a swap: connect again
                }
            }
        }, "swap-load-client");
    }
}
