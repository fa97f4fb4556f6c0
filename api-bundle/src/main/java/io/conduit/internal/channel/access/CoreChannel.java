package io.conduit.internal.channel.access;

import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * A channel of the shared channel core ({@code io.conduit.internal.channel.core}) as the bootstraps, the managed
 * endpoints and {@code conduit:channels} see it: the operations they need beyond the {@code Channel} API. Every
 * channel a transport makes through {@code io.conduit.transport.spi.core.IoChannels} implements it; a channel that
 * does not (an embedded channel, a transport's own) is not built on the core.
 *
 * <p>It mentions no channel type, so the packages that use it ({@code channel}, {@code transport}) and the core
 * that implements it depend on this package without a cycle through it.
 *
 * <p>Threading: every method may be called from any thread.
 */
public interface CoreChannel {

    /**
     * Sets the event loop of a channel made without one (an accepted channel) before it is registered, so handlers
     * can be added with the loop known.
     *
     * @throws IllegalStateException when the channel is already registered with another loop
     */
    void eventLoop(EventLoop eventLoop);

    /**
     * Registers with the event loop given at construction or with {@link #eventLoop(EventLoop)}.
     *
     * @throws IllegalStateException when the channel has no event loop yet
     */
    Future<Void> register();

    /**
     * Registers with {@code eventLoop} (a loop of a group made by this channel's transport): the socket joins the
     * loop's poller, {@code channelRegistered} fires, and a connected channel (an accepted one) becomes active.
     *
     * @return succeeds once registered; fails e.g. when the loop belongs to another transport or shut down
     */
    Future<Void> register(EventLoop eventLoop);

    /**
     * Closes a channel that was never registered, on the calling thread, without an event loop and without events
     * (a bootstrap whose set-up of the channel failed).
     *
     * @throws IllegalStateException when the channel was registered
     */
    void closeUnregistered();

    /**
     * Closes the channel because of {@code cause}: every write still pending fails with a
     * {@code ChannelClosedException} whose cause is {@code cause}, so a writer can tell why its data was not sent.
     *
     * @return succeeds when the channel is closed (also when it was closed already)
     */
    Future<Void> close(Throwable cause);

    /** @return {@code true} for a Unix-domain channel (stream, listener or datagram), {@code false} for TCP/UDP */
    boolean unixDomain();

    /**
     * Steers a UDP channel out of its {@code SO_REUSEPORT} group without losing what is queued in it
     * ({@code IoDatagramSocket.connectAway}), on the channel's loop; see {@link DatagramHandOver}.
     *
     * @return {@code true} when the channel was steered away, {@code false} when it cannot be (nothing changed; the
     *         default, for every channel but a UDP channel of a transport that can)
     */
    default Future<Boolean> connectAway(InetSocketAddress sink) {
        return DatagramHandOver.notSteered();
    }

    /**
     * Closes the channel; a listener first accepts every connection waiting in its accept queue ({@code accept(2)}
     * until {@code EAGAIN}) and fires each into its pipeline as it would have, in the same event-loop task as the
     * close. Closing a listener resets the connections still queued in it (unless Linux's
     * {@code net.ipv4.tcp_migrate_req} moves them to another socket of its {@code SO_REUSEPORT} group); this leaves
     * only the connections that arrive within that one task. A swap whose old connections stay open uses it.
     * Channels other than listeners close as {@link #close(Throwable)} would with no cause.
     *
     * @return succeeds when the channel is closed (also when it was closed already)
     */
    Future<Void> closeAcceptingQueued();

    /**
     * For a TCP listener or a UDP socket in a {@code SO_REUSEPORT} group: gives every new connection or datagram of
     * the group to its socket at {@code index} ({@code IoSocket.steerReuseportGroup}), on the channel's loop.
     *
     * @param steer {@code true} to steer to {@code index}; {@code false} to remove the steering ({@code index}
     *        unused)
     * @return {@code true} when done; {@code false} when the channel's transport or socket kind cannot steer or
     *         there was nothing to remove (the default); fails with the system call's error, or when the channel is
     *         closed
     */
    default Future<Boolean> steerReuseportGroup(boolean steer, int index) {
        return DatagramHandOver.notSteered();
    }

    /**
     * For a Unix-domain listener whose socket file was renamed after the bind (a swap binds beside the path, then
     * renames over it): from now on the channel, and every connection it accepts, reports {@code now} where the
     * socket reports {@code bound}. Any thread. The default does nothing.
     *
     * @param bound the address the socket was bound to
     * @param now the address it is reached at since the rename
     */
    default void localAddressRenamed(SocketAddress bound, SocketAddress now) {
    }
}
