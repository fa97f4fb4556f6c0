package io.conduit.internal.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelInitializer;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.Transport;
import io.conduit.transport.UnavailableTransportException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Availability of nio-vthread per JVM, and that idle connections do not pin carrier threads. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VirtualThreadTransportTest {

    /** Does nothing: the connections stay idle. */
    @io.conduit.channel.ChannelHandler.Sharable
    static final class Idle implements io.conduit.channel.ChannelHandler {
    }

    private static final boolean JVM_21_PLUS = Runtime.version().feature() >= 21;

    @Test
    void availableExactlyOnA21PlusJvmAndOtherwiseSaysWhy() {
        NioVirtualThreadTransportProvider p = new NioVirtualThreadTransportProvider();
        assertEquals(5, p.ranking());
        assertEquals(10, new NioTransportProvider().ranking());
        assertFalse(p.isNative());
        if (JVM_21_PLUS) {
            assertTrue(p.availability().isAvailable(), p.availability().toString());
            assertEquals("nio-vthread", p.transport().name());
        } else {
            assertFalse(p.availability().isAvailable());
            String message = p.availability().unavailabilityCause().getMessage();
            assertTrue(message.contains("needs a 21+ JVM") && message.contains(Runtime.version().toString()), message);
            UnavailableTransportException e = assertThrows(UnavailableTransportException.class, p::transport);
            assertTrue(e.getMessage().contains("nio-vthread"), e.getMessage());
        }
    }

    @Test
    void thousandIdleConnectionsDoNotPinCarrierThreads() throws Exception {
        NioVirtualThreadTransportProvider p = new NioVirtualThreadTransportProvider();
        if (!JVM_21_PLUS) {
            // the 17 pass: the transport must refuse with the reason instead of running
            assertTrue(p.availability().unavailabilityCause().getMessage().contains("21+ JVM"));
            return;
        }
        Transport vthread = p.transport();
        Transport nio = new NioTransportProvider().transport();
        int connections = 1000;
        AtomicInteger active = new AtomicInteger();
        try (EventLoopGroup serverGroup = vthread.newEventLoopGroup(1); EventLoopGroup clientGroup = nio.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(vthread).group(serverGroup)
                    .option(io.conduit.channel.ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            active.incrementAndGet();
                        }
                    }).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
            List<Future<Channel>> clients = new ArrayList<>();
            Bootstrap b = new Bootstrap().transport(nio).group(clientGroup).handler(new Idle());
            for (int i = 0; i < connections; i++) {
                clients.add(b.connect(server.localAddress()));
            }
            for (Future<Channel> f : clients) {
                assertTrue(f.await(30, TimeUnit.SECONDS) && f.isSuccess(), String.valueOf(f.cause()));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (active.get() < connections && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(connections, active.get(), "accepted connections");
            Thread.sleep(300); // every reader and writer virtual thread is now parked
            long carriers = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getClass().getName().equals("jdk.internal.misc.CarrierThread")).count();
            int cores = Runtime.getRuntime().availableProcessors();
            assertTrue(carriers <= cores, carriers + " carrier threads for " + connections + " idle connections on "
                    + cores + " cores: something pins them");
            for (Future<Channel> f : clients) {
                f.getNow().close();
            }
            server.close().sync();
        }
    }

    /**
     * A listener closed while clients connect leaves no accepted socket open. The acceptor's {@code accept(2)} could
     * return a child just after {@code close()} had looked for a staged one; the acceptor then staged it, and nobody
     * delivered or closed it (a CLOSE-WAIT socket per swap away from nio-vthread under connect load).
     */
    @Test
    void closingAListenerWhileClientsConnectLeavesNoSocketOpen() throws Exception {
        if (!JVM_21_PLUS) {
            return; // the transport refuses on 17 (the availability test checks how)
        }
        Transport vthread = new NioVirtualThreadTransportProvider().transport();
        try (EventLoopGroup group = vthread.newEventLoopGroup(1)) {
            connectWhileClosing(vthread, group, 0); // opens what the JDK opens once (selector, pipes) before counting
            long before = settledDescriptors();
            for (int round = 1; round <= 40; round++) {
                connectWhileClosing(vthread, group, round);
            }
            assertEquals(before, settledDescriptors(), "open descriptors after 40 listeners closed under connect load");
        }
    }

    private static void connectWhileClosing(Transport transport, EventLoopGroup group, int round) throws Exception {
        Channel server = new ServerBootstrap().transport(transport).group(group).childHandler(new Idle())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
        java.net.SocketAddress address = server.localAddress();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread client = new Thread(() -> {
            while (!stop.get()) {
                try (java.net.Socket s = new java.net.Socket()) {
                    s.connect(address, 1000);
                } catch (java.io.IOException refusedOnceClosed) {
                    // the listener is gone: keep going until told to stop
                }
            }
        }, "connect-loop-" + round);
        client.start();
        Thread.sleep(5 + round % 10);
        server.close().sync();
        stop.set(true);
        client.join(10_000);
    }

    /** The entries of /proc/self/fd once they held still for 200 ms (at most 5 s). */
    private static long settledDescriptors() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of("/proc/self/fd");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long count = countEntries(dir);
        while (System.nanoTime() - deadline < 0) {
            Thread.sleep(200);
            long now = countEntries(dir);
            if (now == count) {
                return now;
            }
            count = now;
        }
        return count;
    }

    private static long countEntries(java.nio.file.Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> entries = java.nio.file.Files.list(dir)) {
            return entries.count();
        }
    }
}
