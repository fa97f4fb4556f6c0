package io.conduit.internal.transport;

import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

/** A test provider: native or not, available or not; counts probes and availability() calls. */
public class FakeProvider implements TransportProvider {

    final String name;
    final boolean isNative;
    final int ranking;
    private final Supplier<Availability> probe;
    final AtomicInteger probes = new AtomicInteger();
    final AtomicInteger availabilityCalls = new AtomicInteger();
    private volatile Availability availability; // memoised probe result, like a real provider
    final Transport transport;

    FakeProvider(String name, boolean isNative, int ranking, Supplier<Availability> probe) {
        this.name = name;
        this.isNative = isNative;
        this.ranking = ranking;
        this.probe = probe;
        this.transport = new FakeTransport(this);
    }

    public static FakeProvider available(String name, boolean isNative, int ranking) {
        return new FakeProvider(name, isNative, ranking, Availability::available);
    }

    /** Unavailable with a cause carrying one suppressed exception per load attempt. */
    public static FakeProvider unavailable(String name, boolean isNative, int ranking, String message, String... attempts) {
        return new FakeProvider(name, isNative, ranking, () -> {
            UnsatisfiedLinkError cause = new UnsatisfiedLinkError(message);
            for (String a : attempts) {
                cause.addSuppressed(new UnsatisfiedLinkError(a));
            }
            return Availability.unavailable(cause);
        });
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
        availabilityCalls.incrementAndGet();
        return probeOnce();
    }

    private synchronized Availability probeOnce() {
        if (availability == null) {
            probes.incrementAndGet();
            availability = probe.get();
        }
        return availability;
    }

    @Override
    public Transport transport() {
        probeOnce().ensureAvailability(name);
        return transport;
    }

    @Override
    public String toString() {
        return "FakeProvider[" + name + "]";
    }

    /** A transport that only knows its name. */
    static final class FakeTransport implements Transport {
        private final FakeProvider provider;

        FakeTransport(FakeProvider provider) {
            this.provider = provider;
        }

        @Override
        public String name() {
            return provider.name;
        }

        @Override
        public boolean isNative() {
            return provider.isNative;
        }

        @Override
        public Set<ChannelType> channelTypes() {
            return Set.of(ChannelType.TCP);
        }

        @Override
        public boolean supports(ChannelOption<?> option) {
            return !option.isNativeOnly() || provider.isNative;
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int nThreads) {
            throw new UnsupportedOperationException("fake transport " + provider.name);
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
            throw new UnsupportedOperationException("fake transport " + provider.name);
        }

        @Override
        public Channel newChannel(ChannelType type, EventLoop loop) {
            throw new UnsupportedOperationException("fake transport " + provider.name);
        }

        @Override
        public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
            throw new UnsupportedOperationException("fake transport " + provider.name);
        }

        @Override
        public String toString() {
            return provider.name;
        }
    }

    /** A provider with a no-argument constructor, for ServiceLoader discovery tests. */
    public static final class Discoverable extends FakeProvider {
        public Discoverable() {
            super("discovered", false, 7, Availability::available);
        }
    }
}
