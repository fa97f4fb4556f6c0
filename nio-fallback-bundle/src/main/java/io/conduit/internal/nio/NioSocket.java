package io.conduit.internal.nio;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.util.Map;

/**
 * What the {@code nio} sockets share: a non-blocking {@link SelectableChannel} registered with the loop's
 * {@link NioIoHandler}, and the mapping of {@link ChannelOption}s to {@link StandardSocketOptions}.
 * Threading as {@link IoSocket} says: the key is touched on the loop only.
 */
abstract class NioSocket implements IoSocket {

    /** Conduit option → java.net option; an option missing here, or not supported by the channel, is unsupported. */
    private static final Map<ChannelOption<?>, SocketOption<?>> OPTIONS = Map.ofEntries(
            Map.entry(ChannelOption.SO_SNDBUF, StandardSocketOptions.SO_SNDBUF),
            Map.entry(ChannelOption.SO_RCVBUF, StandardSocketOptions.SO_RCVBUF),
            Map.entry(ChannelOption.SO_KEEPALIVE, StandardSocketOptions.SO_KEEPALIVE),
            Map.entry(ChannelOption.SO_REUSEADDR, StandardSocketOptions.SO_REUSEADDR),
            Map.entry(ChannelOption.SO_REUSEPORT, StandardSocketOptions.SO_REUSEPORT),
            Map.entry(ChannelOption.SO_LINGER, StandardSocketOptions.SO_LINGER),
            Map.entry(ChannelOption.SO_BROADCAST, StandardSocketOptions.SO_BROADCAST),
            Map.entry(ChannelOption.IP_TOS, StandardSocketOptions.IP_TOS),
            Map.entry(ChannelOption.IP_MULTICAST_IF, StandardSocketOptions.IP_MULTICAST_IF),
            Map.entry(ChannelOption.IP_MULTICAST_TTL, StandardSocketOptions.IP_MULTICAST_TTL),
            Map.entry(ChannelOption.IP_MULTICAST_LOOP, StandardSocketOptions.IP_MULTICAST_LOOP),
            Map.entry(ChannelOption.TCP_NODELAY, StandardSocketOptions.TCP_NODELAY));

    /** @return {@code true} when some nio socket kind can honour {@code option} */
    static boolean mapsOption(ChannelOption<?> option) {
        return OPTIONS.containsKey(option);
    }

    private final SelectableChannel channel;
    private SelectionKey key;       // loop-confined
    private NioIoHandler handler;   // loop-confined

    NioSocket(SelectableChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
    }

    @Override
    public void register(EventLoop loop, IoEvents events) throws IOException {
        handler = NioIoHandler.current();
        key = channel.register(handler.selector(), 0, events);
    }

    @Override
    public void deregister(Runnable whenReleased) {
        if (key != null) {
            key.cancel();
            key = null;
            if (whenReleased != null) {
                handler.afterDeregistration(whenReleased);
            }
        } else if (whenReleased != null) {
            whenReleased.run();
        }
    }

    @Override
    public void interestOps(int ops) {
        if (key == null || !key.isValid()) {
            return;
        }
        int nio = 0;
        if ((ops & OP_READ) != 0) {
            nio |= (key.channel().validOps() & SelectionKey.OP_ACCEPT) != 0 ? SelectionKey.OP_ACCEPT : SelectionKey.OP_READ;
        }
        if ((ops & OP_WRITE) != 0) {
            nio |= SelectionKey.OP_WRITE;
        }
        if ((ops & OP_CONNECT) != 0) {
            nio |= SelectionKey.OP_CONNECT;
        }
        key.interestOps(nio);
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public SocketAddress localAddress() {
        try {
            return ((NetworkChannel) channel).getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        return setOption((NetworkChannel) channel, option, value);
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        return getOption((NetworkChannel) channel, option);
    }

    /** Supported when java.nio has the option on this channel, even if its value is {@code null} (IP_MULTICAST_IF). */
    @Override
    public boolean supportsOption(ChannelOption<?> option) {
        SocketOption<?> so = OPTIONS.get(option);
        return so != null && ((NetworkChannel) channel).supportedOptions().contains(so);
    }

    /** Sets {@code option} on {@code nc}; {@code false} when the channel does not support it. */
    @SuppressWarnings("unchecked")
    static <T> boolean setOption(NetworkChannel nc, ChannelOption<T> option, T value) throws IOException {
        SocketOption<Object> so = (SocketOption<Object>) OPTIONS.get(option);
        if (so == null || !nc.supportedOptions().contains(so)) {
            return false;
        }
        nc.setOption(so, value);
        return true;
    }

    /** @return the value of {@code option} on {@code nc}, or {@code null} when unsupported */
    @SuppressWarnings("unchecked")
    static <T> T getOption(NetworkChannel nc, ChannelOption<T> option) throws IOException {
        SocketOption<Object> so = (SocketOption<Object>) OPTIONS.get(option);
        if (so == null || !nc.supportedOptions().contains(so)) {
            return null;
        }
        return (T) nc.getOption(so);
    }

    @Override
    public String toString() {
        return channel.toString();
    }
}
