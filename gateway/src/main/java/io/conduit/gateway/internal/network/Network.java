package io.conduit.gateway.internal.network;

import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

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
     * Listens on a stream endpoint (TCP or Unix) whose connections reach nothing else.
     *
     * @see #listen(GatewayUri, List, Map, ChannelHandler)
     */
    default CompletionStage<Bound> listen(GatewayUri endpoint, Map<ChannelOption<?>, Object> childOptions,
            ChannelHandler childHandler) {
        return listen(endpoint, List.of(), childOptions, childHandler);
    }

    /**
     * Listens on a stream endpoint (TCP or Unix).
     *
     * @param endpoint     where to listen
     * @param reaches      endpoints the accepted connections connect to (a relay's upstream): the listener runs only
     *                     on a transport that can reach them too, and stays where it is on a swap to one that cannot
     * @param childOptions options of each accepted channel
     * @param childHandler added to each accepted channel; make it a {@link io.conduit.channel.ChannelInitializer} to
     *                     give each connection its own handlers
     * @return the listener once bound, or the failure (e.g. {@link java.net.BindException} "Address already in
     *         use", or {@link NotOnThisTransport}), with the endpoint named in its message by the caller; the
     *         listener may re-bind on another transport later (a transport swap) at the same address
     */
    CompletionStage<Bound> listen(GatewayUri endpoint, List<GatewayUri> reaches,
            Map<ChannelOption<?>, Object> childOptions, ChannelHandler childHandler);

    /**
     * The failure of {@link #listen} or {@link #bindDatagram} when the selected transport cannot serve the endpoint:
     * it has no channels of its type, or cannot bind its kind of address or reach the kind of an endpoint its
     * connections reach (e.g. a Linux abstract Unix name on {@code nio}). Nothing else is wrong: the endpoint can be
     * bound once a transport that can serve it is selected ({@link #onTransportChange}).
     */
    final class NotOnThisTransport extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param message what the selected transport cannot do and what works, one line */
        public NotOnThisTransport(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code onChange} after every change of the selected transport, on the thread that made it (keep it short),
     * until the returned handle is closed.
     *
     * @return closes the subscription; idempotent
     */
    default AutoCloseable onTransportChange(Runnable onChange) {
        return () -> { };
    }

    /** Something bound: a listener or a datagram endpoint, either of which moves between transports. Thread-safe. */
    interface Bound {
        /** @return the bound address (with the actual port) */
        SocketAddress localAddress();

        /**
         * Closes it, waiting a bounded time; for a listener also drains its connections (see ManagedServer), for a
         * datagram endpoint also closes the channels it adopted.
         */
        void close() throws InterruptedException;

        /**
         * @return the name of the transport it is bound on now (it moves on a transport swap), or {@code null}
         *         when closed or unknown
         */
        default String transportName() {
            return null;
        }

        /**
         * @return why it has no listener or socket now although it was not closed, one line with what to do: no
         *         transport is selected (e.g. every transport bundle stopped), its transport went away and the selected
         *         one cannot serve it (e.g. a relay to a Linux abstract Unix name on {@code nio}), or binding on the
         *         selected one failed; {@code null} while it is bound ({@link #transportName()} is not {@code null})
         *         and after {@link #close()}
         */
        default String problem() {
            return null;
        }
    }

    /**
     * What a datagram endpoint's handler may ask of the endpoint it serves. The endpoint follows the selected
     * transport, so the channel taking its datagrams changes on a swap. Thread-safe.
     */
    interface DatagramEndpoint {
        /**
         * @return the channel taking the endpoint's datagrams now — write replies here, they leave from the
         *         endpoint's address — or {@code null} while nothing is bound (closed, or no transport selected)
         */
        Channel channel();

        /**
         * Ties {@code channel}, made on {@link #channel()}'s event loop (e.g. a relay's upstream socket), to the
         * endpoint's transport: it stays open on a selection change and is drained when its transport goes away.
         *
         * @return completes when its drain starts (it is closed a grace period later)
         */
        Future<Void> adopt(Channel channel);
    }

    /**
     * Binds a datagram endpoint (UDP) that follows the selected transport like {@link #listen}'s listeners: on a swap
     * a new socket is bound at the same address before the old one is handed over (see
     * {@code io.conduit.transport.ManagedDatagramEndpoint}).
     *
     * @param endpoint where to bind
     * @param options  options of the endpoint's socket on every transport, e.g. {@link ChannelOption#SO_RCVBUF}
     * @param handler  makes the handler of the endpoint's channels (one instance for every transport: sharable and
     *                 thread-safe) from the endpoint it serves
     * @return the endpoint once bound, or the failure
     */
    CompletionStage<Bound> bindDatagram(GatewayUri endpoint, Map<ChannelOption<?>, Object> options,
            java.util.function.Function<DatagramEndpoint, ChannelHandler> handler);

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
