package io.conduit.testsuite;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;

/**
 * A real transport under another name, with a provider of ranking 1 to {@code Transports.register} and
 * {@code unregister}: lets a swap test make a transport go away (its provider unregistered) while its sockets are
 * the real ones. It records the groups and listeners it makes, in order, so a test can wait for an old listener to
 * close or a group to terminate. Thread-safe (delegates; the records are copy-on-write lists).
 */
public final class RenamedTransport implements Transport {

    private final Transport delegate;
    private final String name;
    private final List<EventLoopGroup> groups = new CopyOnWriteArrayList<>();
    private final List<ServerChannel> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param delegate the transport doing the work
     * @param name     the name to register it under
     */
    public RenamedTransport(Transport delegate, String name) {
        this.delegate = delegate;
        this.name = name;
    }

    /** @return the event loop groups made through this transport, oldest first (a live, read-only view) */
    public List<EventLoopGroup> groups() {
        return java.util.Collections.unmodifiableList(groups);
    }

    /** @return the server channels made through this transport, oldest first (a live, read-only view) */
    public List<ServerChannel> listeners() {
        return java.util.Collections.unmodifiableList(listeners);
    }

    /** @return an always-available provider of this transport */
    public TransportProvider provider() {
        Transport t = this;
        return new TransportProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean isNative() {
                return delegate.isNative();
            }

            @Override
            public int ranking() {
                return 1;
            }

            @Override
            public Availability availability() {
                return Availability.available();
            }

            @Override
            public Transport transport() {
                return t;
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isNative() {
        return delegate.isNative();
    }

    @Override
    public Set<ChannelType> channelTypes() {
        return delegate.channelTypes();
    }

    @Override
    public boolean supports(ChannelOption<?> option) {
        return delegate.supports(option);
    }

    @Override
    public boolean supportsAddress(java.net.SocketAddress address) {
        return delegate.supportsAddress(address);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads) {
        return newEventLoopGroup(nThreads, null);
    }

    @Override
    public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
        EventLoopGroup g = threadFactory == null ? delegate.newEventLoopGroup(nThreads)
                : delegate.newEventLoopGroup(nThreads, threadFactory);
        groups.add(g);
        return g;
    }

    @Override
    public Channel newChannel(ChannelType type, EventLoop loop) {
        return delegate.newChannel(type, loop);
    }

    @Override
    public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
        ServerChannel listener = delegate.newServerChannel(type, loop);
        listeners.add(listener);
        return listener;
    }
}
