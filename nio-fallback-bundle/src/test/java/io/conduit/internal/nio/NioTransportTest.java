package io.conduit.internal.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** The nio provider's registration, capabilities and argument checks. */
class NioTransportTest {

    @Test
    void bothProvidersAreFoundByServiceLoader() {
        Set<String> names = ServiceLoader.load(TransportProvider.class).stream().map(p -> p.get().name())
                .collect(Collectors.toSet());
        assertTrue(names.containsAll(Set.of("nio", "nio-vthread")), names.toString());
    }

    @Test
    void supportsStandardOptionsAndSoReusePortButNoOtherNativeOnlyOption() {
        Transport nio = new NioTransportProvider().transport();
        assertEquals(Set.of(ChannelType.TCP, ChannelType.UDP, ChannelType.UNIX_STREAM), nio.channelTypes());
        for (ChannelOption<?> o : ChannelOption.values()) {
            if (!o.isNativeOnly()) {
                assertTrue(nio.supports(o), o.name());
            }
        }
        assertTrue(nio.supports(ChannelOption.SO_REUSEPORT));
        assertFalse(nio.supports(ChannelOption.TCP_CORK));
        assertFalse(nio.supports(ChannelOption.IP_TRANSPARENT));
    }

    @Test
    void unsupportedOptionsAreIgnoredAndSocketOptionsReadBackFromTheKernel() throws Exception {
        Transport nio = new NioTransportProvider().transport();
        try (EventLoopGroup group = nio.newEventLoopGroup(1)) {
            io.conduit.channel.Channel ch = nio.newChannel(ChannelType.TCP, group.next());
            assertFalse(ch.config().setOption(ChannelOption.TCP_CORK, true), "TCP_CORK is epoll-only");
            assertEquals(null, ch.config().getOption(ChannelOption.TCP_CORK));
            assertTrue(ch.config().setOption(ChannelOption.SO_RCVBUF, 10_000));
            assertTrue(ch.config().getOption(ChannelOption.SO_RCVBUF) >= 10_000, "the kernel's value (Linux doubles it)");
            assertTrue(ch.config().setOption(ChannelOption.TCP_NODELAY, true));
            assertEquals(Boolean.TRUE, ch.config().getOption(ChannelOption.TCP_NODELAY));
            assertEquals(16, ch.config().getOption(ChannelOption.WRITE_SPIN_COUNT));
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> ch.config().setOption(ChannelOption.WRITE_SPIN_COUNT, 0));
            assertTrue(bad.getMessage().contains("WRITE_SPIN_COUNT"), bad.getMessage());
            assertTrue(ch.config().getOptions().containsKey(ChannelOption.SO_RCVBUF));
            ch.close().sync();
        }
    }

    @Test
    void shuttingDownTheLoopClosesItsChannels() throws Exception {
        Transport nio = new NioTransportProvider().transport();
        EventLoopGroup group = nio.newEventLoopGroup(1);
        io.conduit.channel.Channel server = new io.conduit.bootstrap.ServerBootstrap().transport(nio).group(group)
                .childHandler(new io.conduit.channel.ChannelInitializer<io.conduit.channel.Channel>() {
                    @Override
                    protected void initChannel(io.conduit.channel.Channel c) {
                    }
                }).bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0)).sync().getNow();
        assertTrue(server.isActive());
        group.shutdownGracefully(0, 5, java.util.concurrent.TimeUnit.SECONDS)
                .await(10, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(server.closeFuture().isDone(), "the listener was closed by its loop's shutdown");
        assertFalse(server.isOpen());
    }

    @Test
    void ipMulticastIfIsAcceptedOnUdpAndReadsBackTheInterface() throws Exception {
        Transport nio = new NioTransportProvider().transport();
        java.net.NetworkInterface lo = java.net.NetworkInterface.getByInetAddress(
                java.net.InetAddress.getLoopbackAddress());
        try (EventLoopGroup group = nio.newEventLoopGroup(1)) {
            io.conduit.channel.Channel udp = new io.conduit.bootstrap.Bootstrap().transport(nio).group(group)
                    .channelType(ChannelType.UDP).handler(new io.conduit.channel.ChannelHandler() { })
                    .option(ChannelOption.IP_MULTICAST_IF, lo).bind(new java.net.InetSocketAddress(0)).sync().getNow();
            try {
                assertEquals(lo, udp.config().getOption(ChannelOption.IP_MULTICAST_IF),
                        "applied although the option reads null before it is set");
            } finally {
                udp.close().sync();
            }
        }
    }

    @Test
    void channelsNeedALoopOfTheSameTransport() throws Exception {
        Transport nio = new NioTransportProvider().transport();
        try (EventLoopGroup group = nio.newEventLoopGroup(1)) {
            assertThrows(UnsupportedOperationException.class, () -> nio.newServerChannel(ChannelType.UDP, group.next()));
            nio.newChannel(ChannelType.TCP, group.next()).close().sync();
        }
        Transport other = new NioTransport("other", Set.of(ChannelType.TCP), null);
        try (EventLoopGroup group = nio.newEventLoopGroup(1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> other.newChannel(ChannelType.TCP, group.next()));
            assertTrue(e.getMessage().contains("'other'"), e.getMessage());
        }
    }
}
