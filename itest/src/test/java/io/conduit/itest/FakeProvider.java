package io.conduit.itest;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

/** A provider registered as an OSGi service by a test; its transport makes no channels. */
class FakeProvider implements TransportProvider {

    private final String name;
    private final boolean isNative;
    private final int ranking;
    private final Availability availability;
    private final Transport transport;

    FakeProvider(String name, boolean isNative, int ranking, Availability availability) {
        this.name = name;
        this.isNative = isNative;
        this.ranking = ranking;
        this.availability = availability;
        this.transport = new FakeTransport();
    }

    static FakeProvider available(String name, int ranking) {
        return new FakeProvider(name, false, ranking, Availability.available());
    }

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

    @Override
    public String toString() {
        return "FakeProvider[" + name + "]";
    }

    private final class FakeTransport implements Transport {
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
            return EnumSet.noneOf(ChannelType.class);
        }

        @Override
        public boolean supports(ChannelOption<?> option) {
            return false;
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int nThreads) {
            throw new UnsupportedOperationException("fake transport " + name + " makes no event loops");
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
            throw new UnsupportedOperationException("fake transport " + name + " makes no event loops");
        }

        @Override
        public Channel newChannel(ChannelType type, EventLoop loop) {
            throw new UnsupportedOperationException("fake transport " + name + " makes no channels");
        }

        @Override
        public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
            throw new UnsupportedOperationException("fake transport " + name + " makes no channels");
        }

        @Override
        public String toString() {
            return "FakeTransport[" + name + "]";
        }
    }
}
