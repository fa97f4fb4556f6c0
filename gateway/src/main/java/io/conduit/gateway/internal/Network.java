package io.conduit.gateway.internal;

import java.net.SocketAddress;
import java.util.concurrent.CompletionStage;

import java.util.Map;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;

/**
 * Where the gateway's components get their channels: listeners for their endpoints and upstream connections. The
 * one seam between the gateway's handlers and the transport; {@link BootstrapNetwork} listens through
 * {@code ManagedServer}, so stream listeners re-bind on a transport swap without the handlers knowing.
 *
 * <p>Thread-safe. Futures complete on the channel's event loop.
 */
public interface Network {

    /** @return the name of the transport the channels are made with, for log lines and the banner */
    String transportName();

    /**
     * Listens on a stream endpoint (TCP or Unix).
     *
     * @param endpoint     where to listen
     * @param childOptions options of each accepted channel
     * @param childHandler added to each accepted channel; make it a {@link io.conduit.channel.ChannelInitializer} to
     *                     give each connection its own handlers
     * @return the listener once bound, or the failure (e.g. {@link java.net.BindException} "Address already in
     *         use"), with the endpoint named in its message by the caller; the listener may re-bind on another
     *         transport later (a transport swap) at the same address
     */
    CompletionStage<Bound> listen(GatewayUri endpoint, Map<ChannelOption<?>, Object> childOptions,
            ChannelHandler childHandler);

    /** Something bound: a listener (which may move between transports) or a datagram channel. Thread-safe. */
    interface Bound {
        /** @return the bound address (with the actual port) */
        SocketAddress localAddress();

        /** Closes it, waiting a bounded time; for a listener also drains its connections (see ManagedServer). */
        void close() throws InterruptedException;

        /**
         * @return the name of the transport it is bound on now (a listener moves on a transport swap), or
         *         {@code null} when closed or unknown
         */
        default String transportName() {
            return null;
        }

        /**
         * @return whether it moves to the newly selected transport on a swap: {@code true} for stream listeners
         *         ({@code ManagedServer}), {@code false} for datagram channels, which stay on the transport selected
         *         at start-up until the gateway restarts
         */
        default boolean followsSwaps() {
            return true;
        }

        /** @return {@code channel} as a {@link Bound} */
        static Bound of(Channel channel) {
            return new Bound() {
                @Override
                public SocketAddress localAddress() {
                    return channel.localAddress();
                }

                @Override
                public void close() throws InterruptedException {
                    channel.close().await(5, java.util.concurrent.TimeUnit.SECONDS);
                }

                @Override
                public String transportName() {
                    return channel.isOpen() ? channel.transportName() : null;
                }

                @Override
                public boolean followsSwaps() {
                    return false;
                }
            };
        }
    }

    /**
     * Binds a datagram endpoint (UDP) on the transport selected at start-up; unlike {@link #listen} it does not
     * move on a transport swap (see {@link Bound#followsSwaps()}).
     *
     * @param endpoint where to bind
     * @param handler  the channel's handler
     * @return the bound channel, or the failure
     */
    Future<Channel> bindDatagram(GatewayUri endpoint, ChannelHandler handler);

    /**
     * Connects to an upstream endpoint (TCP, Unix, or UDP as a connected datagram channel).
     *
     * @param endpoint where to connect
     * @param loop     the event loop of the new channel (the client side's, so both sides of a relay share it)
     * @param options  options of the new channel, e.g. {@link ChannelOption#CONNECT_TIMEOUT_MILLIS}
     * @param handler  the channel's handler, in place before the first read
     * @return the connected channel, or the failure ({@link io.conduit.channel.ConnectTimeoutException},
     *         {@link java.net.ConnectException})
     */
    Future<Channel> connect(GatewayUri endpoint, EventLoop loop, Map<ChannelOption<?>, Object> options,
            ChannelHandler handler);
}
