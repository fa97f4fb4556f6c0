package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.echo.EchoHandler;
import io.conduit.gateway.internal.relay.RelayFrontendHandler;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code unix:@name} endpoints on the epoll transport: an echo listener and a relay listening on abstract names (the
 * relay's upstream is the abstract echo), driven by a client of the epoll transport, since java.nio clients cannot
 * reach abstract names.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AbstractUnixEndpointTest {

    /** Collects what a client receives until {@code expected} bytes arrived. */
    private static final class Collect implements ChannelHandler {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int expected;
        final CompletableFuture<byte[]> done = new CompletableFuture<>();

        Collect(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try (Buffer b = (Buffer) msg) {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                bytes.write(a, 0, a.length);
            }
            if (bytes.size() >= expected) {
                done.complete(bytes.toByteArray());
            }
        }
    }

    private static byte[] roundTrip(Transport epoll, EventLoopGroup group, UnixAbstractAddress address, String text)
            throws Exception {
        byte[] out = text.getBytes(StandardCharsets.UTF_8);
        Collect collect = new Collect(out.length);
        Channel client = new Bootstrap().transport(epoll).group(group).channelType(io.conduit.transport.ChannelType.UNIX_STREAM)
                .handler(collect).connect(address).get(10, TimeUnit.SECONDS);
        try {
            assertEquals(address, client.remoteAddress());
            client.writeAndFlush(client.alloc().buffer(out.length).writeBytes(out)).get(10, TimeUnit.SECONDS);
            return collect.done.get(10, TimeUnit.SECONDS);
        } finally {
            client.close().await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void echoAndRelayListenOnAbstractNames() throws Exception {
        Transport epoll = Transports.get("epoll");
        String unique = ProcessHandle.current().pid() + "-" + System.nanoTime();
        GatewayUri echoUri = GatewayUri.parse("unix:@conduit-gw-echo-" + unique);
        GatewayUri relayUri = GatewayUri.parse("unix:@conduit-gw-relay-" + unique);
        EventLoopGroup group = epoll.newEventLoopGroup(1);
        Network.Bound echo = null;
        Network.Bound relay = null;
        try {
            Transports.setPreference("epoll");
            BootstrapNetwork network = new BootstrapNetwork();
            echo = network.listen(echoUri, Map.of(), new EchoHandler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            UnixAbstractAddress echoAddress = UnixAbstractAddress.of("conduit-gw-echo-" + unique);
            assertEquals(echoAddress, echo.localAddress());
            assertEquals(echoUri.toString(), echoUri.describeBound(echo.localAddress()));
            assertArrayEquals("echo over @".getBytes(StandardCharsets.UTF_8),
                    roundTrip(epoll, group, echoAddress, "echo over @"));

            RelayConfig config = RelayConfig.from(Map.of("listen", relayUri.toString(), "upstream", echoUri.toString()));
            relay = network.listen(relayUri, RelayFrontendHandler.connectionOptions(config),
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast("relay-frontend", new RelayFrontendHandler(config, network));
                        }
                    }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            UnixAbstractAddress relayAddress = UnixAbstractAddress.of("conduit-gw-relay-" + unique);
            assertEquals(relayAddress, relay.localAddress());
            String text = "relayed from one abstract name to another";
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), roundTrip(epoll, group, relayAddress, text));
        } finally {
            if (relay != null) {
                relay.close();
            }
            if (echo != null) {
                echo.close();
            }
            Transports.setPreference(null);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void anAbstractNameOnTheNioTransportIsAConfigurationErrorNamingEpoll() {
        GatewayUri uri = GatewayUri.parse("unix:@conduit-gw-nio");
        UnsupportedOperationException e = org.junit.jupiter.api.Assertions.assertThrows(
                UnsupportedOperationException.class, () -> uri.toSocketAddress("nio"));
        assertTrue(e.getMessage().contains("unix:@conduit-gw-nio") && e.getMessage().contains("'nio'")
                && e.getMessage().contains("Linux-only") && e.getMessage().contains("conduit:use epoll"),
                e.getMessage());
        assertEquals(UnixAbstractAddress.of("conduit-gw-nio"), uri.toSocketAddress("epoll"));
    }
    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(10);
        }
    }

    private static void tcpEcho(java.net.SocketAddress relay, String text) throws Exception {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(relay, 2000);
            s.setSoTimeout(5000);
            byte[] out = text.getBytes(StandardCharsets.UTF_8);
            s.getOutputStream().write(out);
            assertArrayEquals(out, s.getInputStream().readNBytes(out.length));
        }
    }

    @Test
    void aRelayToAnAbstractNameStaysOnEpollWhenNioIsSelectedAndKeepsRelaying() throws Exception {
        Transport epoll = Transports.get("epoll");
        String unique = ProcessHandle.current().pid() + "-" + System.nanoTime();
        GatewayUri upstream = GatewayUri.parse("unix:@conduit-gw-up-" + unique);
        Network.Bound echo = null;
        Network.Bound relay = null;
        Network.Bound plain = null;
        try {
            Transports.setPreference("epoll");
            BootstrapNetwork network = new BootstrapNetwork();
            echo = network.listen(upstream, Map.of(), new EchoHandler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            RelayConfig config = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0", "upstream", upstream.toString()));
            relay = network.listen(config.listen(), java.util.List.of(upstream),
                    RelayFrontendHandler.connectionOptions(config), new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast("relay-frontend", new RelayFrontendHandler(config, network));
                        }
                    }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            plain = network.listen(GatewayUri.parse("tcp://127.0.0.1:0"), Map.of(), new EchoHandler())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals("epoll", relay.transportName());
            tcpEcho(relay.localAddress(), "before the swap");

            Transports.setPreference("nio"); // conduit:use nio
            Network.Bound moved = plain;
            await("a listener without an upstream moves to nio", () -> "nio".equals(moved.transportName()));
            Thread.sleep(300); // the relay's own swap thread has seen the change as well
            assertEquals("epoll", relay.transportName(), "nio cannot reach " + upstream + ": the relay stays");
            assertEquals("epoll", echo.transportName(), "nio cannot bind " + upstream + ": the echo stays");
            tcpEcho(relay.localAddress(), "after conduit:use nio");

            // A relay configured while nio is selected waits: nio cannot reach its upstream.
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> network.listen(
                            GatewayUri.parse("tcp://127.0.0.1:0"), java.util.List.of(upstream), Map.of(),
                            new EchoHandler()).toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof Network.NotOnThisTransport
                    && e.getCause().getMessage().startsWith("the upstream \"" + upstream + "\": abstract Unix socket "
                            + "names are not supported by transport 'nio'")
                    && e.getCause().getMessage().endsWith("it listens as soon as a transport that can is selected"),
                    String.valueOf(e.getCause()));
        } finally {
            for (Network.Bound b : new Network.Bound[] {plain, relay, echo}) {
                if (b != null) {
                    b.close();
                }
            }
            Transports.setPreference(null);
        }
    }

    @Test
    void anAbstractEndpointThatCouldNotBindOnNioListensOnceEpollIsSelected() throws Exception {
        Transport epoll = Transports.get("epoll");
        String unique = ProcessHandle.current().pid() + "-" + System.nanoTime();
        GatewayUri name = GatewayUri.parse("unix:@conduit-gw-wait-" + unique);
        EventLoopGroup group = epoll.newEventLoopGroup(1);
        Listeners listeners = new Listeners("echo test");
        try {
            Transports.setPreference("nio"); // -Dconduit.transport=nio
            BootstrapNetwork network = new BootstrapNetwork();
            listeners.bindAll(java.util.List.of(name, GatewayUri.parse("tcp://127.0.0.1:0")), d -> d, network,
                    endpoint -> network.listen(endpoint, Map.of(), new EchoHandler())).get(10, TimeUnit.SECONDS);
            assertEquals(1, listeners.failures().size(), listeners.failures().toString());
            String failure = listeners.failures().get(0);
            assertTrue(failure.startsWith("cannot listen on " + name + ": \"" + name + "\": abstract Unix socket names "
                    + "are not supported by transport 'nio'") && failure.contains("(conduit:use epoll)")
                    && failure.endsWith("it listens as soon as a transport that can is selected"), failure);

            Transports.setPreference("epoll"); // the remedy the line names
            await("the abstract endpoint listens on epoll", () -> listeners.failures().isEmpty()
                    && listeners.bindings().contains(name + " [epoll]"));
            assertArrayEquals("bound after all".getBytes(StandardCharsets.UTF_8), roundTrip(epoll, group,
                    UnixAbstractAddress.of("conduit-gw-wait-" + unique), "bound after all"));
        } finally {
            listeners.close();
            Transports.setPreference(null);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRelayToAnAbstractNameWhoseEpollGoesAwayReportsWhyItHasNoListenerAndListensAgainOnEpoll() throws Exception {
        Transport epoll = Transports.get("epoll");
        String unique = ProcessHandle.current().pid() + "-" + System.nanoTime();
        GatewayUri upstream = GatewayUri.parse("unix:@conduit-gw-gone-" + unique);
        io.conduit.transport.spi.TransportProvider epollB = new io.conduit.testsuite.RenamedTransport(epoll, "epoll-b")
                .provider();
        Listeners listeners = new Listeners("relay test");
        Network.Bound echo = null;
        try {
            assertTrue(Transports.register(epollB));
            Transports.setPreference("epoll-b"); // a transport that goes away like a stopped bundle's
            BootstrapNetwork network = new BootstrapNetwork();
            echo = network.listen(upstream, Map.of(), new EchoHandler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            RelayConfig config = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0", "upstream", upstream.toString()));
            listeners.bindAll(java.util.List.of(config.listen()), d -> d, network,
                    endpoint -> network.listen(endpoint, java.util.List.of(upstream),
                            RelayFrontendHandler.connectionOptions(config), new ChannelInitializer<Channel>() {
                                @Override
                                protected void initChannel(Channel ch) {
                                    ch.pipeline().addLast("relay-frontend", new RelayFrontendHandler(config, network));
                                }
                            })).get(10, TimeUnit.SECONDS);
            assertEquals(1, listeners.bindings().size(), listeners.failures().toString());
            assertTrue(listeners.bindings().get(0).endsWith(" [epoll-b]"), listeners.bindings().toString());

            Transports.setPreference("nio");
            Transports.unregister(epollB); // epoll-b goes away while nio, which cannot reach the upstream, is selected
            await("the relay reports that it has no listener", () -> !listeners.failures().isEmpty());
            assertEquals(java.util.List.of(), listeners.bindings(), "not shown as listening");
            String failure = listeners.failures().get(0);
            assertTrue(failure.startsWith("cannot listen on " + config.listen() + ": the upstream \"" + upstream
                    + "\": abstract Unix socket names are not supported by transport 'nio'")
                    && failure.contains("(conduit:use epoll)")
                    && failure.endsWith("it listens again as soon as a transport that can is selected"), failure);

            Transports.setPreference("epoll");
            await("the relay listens on epoll again", () -> listeners.failures().isEmpty()
                    && listeners.bindings().size() == 1 && listeners.bindings().get(0).endsWith(" [epoll]"));
            Network.Bound upstreamEcho = echo;
            await("the upstream echo listens on epoll again", () -> "epoll".equals(upstreamEcho.transportName()));
            String bound = listeners.bindings().get(0);
            int port = Integer.parseInt(bound.substring(bound.lastIndexOf(':') + 1, bound.indexOf(' ')));
            tcpEcho(new java.net.InetSocketAddress("127.0.0.1", port), "relayed on epoll again");
        } finally {
            listeners.close();
            if (echo != null) {
                echo.close();
            }
            Transports.setPreference(null);
            Transports.unregister(epollB);
        }
    }
}
