package io.conduit.gateway.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
            BootstrapNetwork network = new BootstrapNetwork(epoll);
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
}
