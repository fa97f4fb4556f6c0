package io.conduit.internal.channel.core;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.internal.channel.DefaultChannelConfig;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoTransportSupport;

import java.io.IOException;

/**
 * Options of a channel built on the shared channel core: {@link DefaultChannelConfig} (core options in fields,
 * defaults, validation, one warning per unsupported option and transport, auto-read on starts a read) plus the
 * socket options the transport's {@link IoSocket} supports, applied with {@code setsockopt(2)} at once and read back
 * from the kernel (so they are not stored here: an idle channel's config is one small object). A listener's
 * {@code SO_BACKLOG} is kept here and passed to its bind, the same on every transport.
 *
 * <p>Thread-safe: options may be set from any thread; a socket option is applied on the setting thread (the
 * {@link IoSocket} option methods are thread-safe).
 */
public final class IoChannelConfig extends DefaultChannelConfig {

    /** Told about option changes the core must act on. Called on the thread that set the option. */
    public interface Listener {
        /** Auto-read was turned off (turning it on calls {@link Channel#read()}). */
        void autoReadTurnedOff();

        void waterMarkChanged(WriteBufferWaterMark waterMark);
    }

    private final IoSocket socket;
    private final Listener listener;
    /** a listener's {@code SO_BACKLOG}, passed to its bind; 0 = the default */
    private volatile int backlog;

    public IoChannelConfig(Channel channel, IoSocket socket, Listener listener) {
        super(channel);
        this.socket = socket;
        this.listener = listener;
    }

    @Override
    protected boolean isSupported(ChannelOption<?> option) {
        if (CORE_OPTIONS.contains(option)) {
            return true;
        }
        if (option == ChannelOption.SO_BACKLOG) {
            return socket instanceof IoServerSocket;
        }
        try {
            return socket.supportsOption(option);
        } catch (IOException | RuntimeException e) {
            return false; // closed: nothing can be applied any more
        }
    }

    @Override
    protected <T> void apply(ChannelOption<T> option, T value) {
        if (option == ChannelOption.SO_BACKLOG) {
            int n = (Integer) value;
            if (n < 0) {
                throw new IllegalArgumentException("channel option SO_BACKLOG=" + n + " was rejected: a backlog is"
                        + " a number of connections >= 0 (0 = the default, " + IoTransportSupport.defaultBacklog() + ")");
            }
            backlog = n;
        } else if (!CORE_OPTIONS.contains(option)) {
            try {
                socket.setOption(option, value);
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("channel option " + option.name() + "=" + value + " was rejected: "
                        + e.getMessage(), e);
            }
        }
    }

    /** @return the {@code SO_BACKLOG} set on this listener, or 0 for the default (a bind passes it on) */
    int backlog() {
        return backlog;
    }

    /** Socket options are read back from the kernel ({@link #getOption}); {@code SO_BACKLOG} is kept by apply. */
    @Override
    protected void storeOther(ChannelOption<?> option, Object value) {
    }

    @Override
    protected void autoReadTurnedOff() {
        listener.autoReadTurnedOff();
    }

    @Override
    protected void waterMarkChanged(WriteBufferWaterMark waterMark) {
        listener.waterMarkChanged(waterMark);
    }

    /** Socket options are read back from the kernel (it may round or double them, e.g. {@code SO_RCVBUF}). */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (CORE_OPTIONS.contains(option)) {
            return super.getOption(option);
        }
        if (option == ChannelOption.SO_BACKLOG && socket instanceof IoServerSocket) {
            return (T) Integer.valueOf(IoTransportSupport.listenBacklog(0, backlog));
        }
        try {
            return socket.getOption(option);
        } catch (IOException e) {
            throw new IllegalStateException("reading channel option " + option.name() + " failed: " + e.getMessage(), e);
        }
    }
}
