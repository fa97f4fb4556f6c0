package io.conduit.transport;

import io.conduit.channel.Channel;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.channel.access.DatagramHandOver;

import java.net.InetSocketAddress;

/**
 * The two operations the managed endpoints need from the channel core beyond the {@link Channel} API. They are the
 * only places the swap engine and its plug-ins reach into the core, so a change of the core's shape touches this
 * class alone.
 */
final class CoreCalls {

    private CoreCalls() {
    }

    /**
     * Closes {@code c}; writes still pending fail with a {@link io.conduit.channel.ChannelClosedException} caused by
     * {@code cause} (a channel outside the core is closed plainly). Call on {@code c}'s event loop.
     */
    static void closeWithCause(Channel c, TransportSwapException cause) {
        if (c instanceof CoreChannel io) {
            io.close(cause);
        } else {
            c.close();
        }
    }

    /**
     * {@code connect(2)}s the datagram channel {@code c} to {@code sink}, so Linux gives other senders' datagrams to
     * the other sockets of its port, keeping the datagrams already queued.
     *
     * @return {@code true} once connected, {@code false} when the transport cannot connect a socket away
     */
    static Future<Boolean> connectAway(Channel c, InetSocketAddress sink) {
        return DatagramHandOver.connectAway(c, sink);
    }
}
