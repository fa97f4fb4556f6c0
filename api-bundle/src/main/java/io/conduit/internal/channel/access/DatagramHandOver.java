package io.conduit.internal.channel.access;

import io.conduit.concurrent.Future;
import io.conduit.internal.concurrent.DefaultPromise;

import java.net.InetSocketAddress;

/**
 * Hands a UDP port over between two sockets of one process ({@code io.conduit.transport.ManagedDatagramEndpoint}):
 * steers the old channel out of its {@code SO_REUSEPORT} group without losing what is queued in it, so a successor
 * bound to the same address takes every new datagram. Datagrams the socket had to take out of its queue first are
 * fired into the channel's pipeline (as {@code DatagramPacket}s from their senders, one {@code channelReadComplete}
 * after them) before the future completes, exactly as if the channel had read them; the others stay queued and the
 * channel reads them as usual.
 *
 * <p>Thread-safe: the work runs on the channel's event loop.
 */
public final class DatagramHandOver {

    private DatagramHandOver() {
    }

    /**
     * @param channel a channel; only a UDP channel of the shared core whose transport can do it is steered away (the
     *        parameter is untyped so that this package depends on no channel type, see {@link CoreChannel})
     * @param sink the address to connect to, which nobody sends from
     * @return {@code true} when the channel was steered away, {@code false} when it cannot be (nothing changed);
     *         fails with the {@code connect(2)} error, or when the channel is closed or its loop stopped
     */
    public static Future<Boolean> connectAway(Object channel, InetSocketAddress sink) {
        return channel instanceof CoreChannel core ? core.connectAway(sink) : notSteered();
    }

    /** @return a future that answers {@code false}: the channel cannot be steered away */
    static Future<Boolean> notSteered() {
        DefaultPromise<Boolean> no = new DefaultPromise<>(null);
        no.trySuccess(Boolean.FALSE);
        return no;
    }
}
