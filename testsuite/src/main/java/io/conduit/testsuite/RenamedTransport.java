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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real transport under another name, with a provider of ranking 1 to {@code Transports.register} and
 * {@code unregister}: lets a swap test make a transport go away (its provider unregistered) while its sockets are
 * the real ones. It records the groups and listeners it makes, in order, so a test can wait for an old listener to
 * close or a group to terminate. It can hide {@code SO_REUSEPORT} support (the close-then-bind fallback of a swap)
 * and run a hook before it answers {@code supports} or makes a group, e.g. to behave as a transport whose bundle is
 * refreshed away. Thread-safe (delegates; the records are copy-on-write lists, the hooks volatile).
 */
public final class RenamedTransport implements Transport {

    private final Transport delegate;
    private final String name;
    private final boolean reusePort;
    private final List<EventLoopGroup> groups = new CopyOnWriteArrayList<>();
    private final List<ServerChannel> listeners = new CopyOnWriteArrayList<>();
    /** Calls of {@code newEventLoopGroup}, also those {@link #beforeNewGroup} ended. */
    private final AtomicInteger groupRequests = new AtomicInteger();
    private volatile Runnable beforeNewGroup;
    private volatile Runnable beforeSupports;
    private volatile Runnable beforeNewServerChannel;

    /**
     * @param delegate the transport doing the work
     * @param name     the name to register it under
     */
    public RenamedTransport(Transport delegate, String name) {
        this(delegate, name, true);
    }

    /**
     * @param delegate  the transport doing the work
     * @param name      the name to register it under
     * @param reusePort {@code false} to deny {@code SO_REUSEPORT} support whatever the delegate says
     */
    public RenamedTransport(Transport delegate, String name, boolean reusePort) {
        this.delegate = delegate;
        this.name = name;
        this.reusePort = reusePort;
    }

    /** @return whether {@code SO_REUSEPORT} support is passed on from the delegate */
    public boolean reusePort() {
        return reusePort;
    }

    /** @return calls of {@code newEventLoopGroup} so far, also those {@link #beforeNewGroup} ended */
    public int groupRequests() {
        return groupRequests.get();
    }

    /** @param hook run first by {@code newEventLoopGroup} from now on (may throw); {@code null} for none */
    public void beforeNewGroup(Runnable hook) {
        beforeNewGroup = hook;
    }

    /**
     * @param hook run first by {@code newServerChannel} from now on, on the caller's thread (a swap's: after the old
     *             listener closed, before the new one binds); {@code null} for none
     */
    public void beforeNewServerChannel(Runnable hook) {
        beforeNewServerChannel = hook;
    }

    /** @param hook run first by {@code supports} from now on (may throw); {@code null} for none */
    public void beforeSupports(Runnable hook) {
        beforeSupports = hook;
    }

    /** @return the event loop groups made through this transport, oldest first (a live, read-only view) */
    public List<EventLoopGroup> groups() {
        return java.util.Collections.unmodifiableList(groups);
    }

    /** @return the server channels made through this transport, oldest first (a live, read-only view) */
    public List<ServerChannel> listeners() {
        return java.util.Collections.unmodifiableList(listeners);
    }

    /** @return a new always-available provider of this transport */
    public Provider provider() {
        return new Provider(this);
    }

    /** An always-available provider of ranking 1 of one {@link RenamedTransport}. */
    public static final class Provider implements TransportProvider {
        /** The transport this provider gives. */
        public final RenamedTransport transport;

        Provider(RenamedTransport transport) {
            this.transport = transport;
        }

        @Override
        public String name() {
            return transport.name;
        }

        @Override
        public boolean isNative() {
            return transport.isNative();
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
            return transport;
        }
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
        Runnable hook = beforeSupports;
        if (hook != null) {
            hook.run();
        }
        return (reusePort || option != ChannelOption.SO_REUSEPORT) && delegate.supports(option);
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
        groupRequests.incrementAndGet();
        Runnable hook = beforeNewGroup;
        if (hook != null) {
            hook.run();
        }
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
        Runnable hook = beforeNewServerChannel;
        if (hook != null) {
            hook.run();
        }
        ServerChannel listener = delegate.newServerChannel(type, loop);
        listeners.add(listener);
        return listener;
    }
}
