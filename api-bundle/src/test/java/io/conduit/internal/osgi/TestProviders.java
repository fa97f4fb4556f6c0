package io.conduit.internal.osgi;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

/** Fake providers and a registry over them with no system properties. */
final class TestProviders {

    private TestProviders() {
    }

    static TransportRegistry registry(TransportProvider... providers) {
        TransportRegistry r = new TransportRegistry(problems -> List.of(), () -> ConduitProperties.of(Map.of()));
        for (TransportProvider p : providers) {
            r.register(p);
        }
        return r;
    }

    static TransportProvider provider(String name, boolean isNative, int ranking, Availability availability) {
        Transport transport = new Transport() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean isNative() {
                return isNative;
            }

            @Override
            public Set<ChannelType> channelTypes() {
                return Set.of();
            }

            @Override
            public boolean supports(ChannelOption<?> option) {
                return false;
            }

            @Override
            public EventLoopGroup newEventLoopGroup(int nThreads) {
                throw new UnsupportedOperationException();
            }

            @Override
            public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Channel newChannel(ChannelType type, EventLoop loop) {
                throw new UnsupportedOperationException();
            }

            @Override
            public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
                throw new UnsupportedOperationException();
            }
        };
        return new TransportProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean isNative() {
                return isNative;
            }

            @Override
            public int ranking() {
                return ranking;
            }

            @Override
            public Availability availability() {
                return availability;
            }

            @Override
            public Transport transport() {
                availability.ensureAvailability(name);
                return transport;
            }
        };
    }
}
