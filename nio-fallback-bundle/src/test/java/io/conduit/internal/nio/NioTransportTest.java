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
    void channelsNeedALoopOfTheSameTransport() throws Exception {
        Transport nio = new NioTransportProvider().transport();
        try (EventLoopGroup group = nio.newEventLoopGroup(1)) {
            UnsupportedOperationException noUnixDatagram = assertThrows(UnsupportedOperationException.class,
                    () -> nio.newChannel(ChannelType.UNIX_DATAGRAM, group.next()));
            assertTrue(noUnixDatagram.getMessage().contains("UNIX_DATAGRAM"), noUnixDatagram.getMessage());
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
