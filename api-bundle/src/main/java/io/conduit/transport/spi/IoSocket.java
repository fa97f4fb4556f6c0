package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * The small I/O object a transport plugs into the shared channel core (channels made by
 * {@link io.conduit.transport.spi.core.IoChannels}): one kernel socket with non-blocking, readiness-based
 * semantics. A transport implements the sub-interface for each kind it supports ({@link IoStreamSocket},
 * {@link IoServerSocket}, {@link IoDatagramSocket}); the core owns all policy (read sizing, outbound buffer, close
 * and half-closure state, timeouts).
 *
 * <p>Threading: after {@link #register(IoEvents)} every method is called on the channel's event-loop thread,
 * except {@link #close()} (also called off the loop for {@code SO_LINGER > 0}, after {@link #deregister()}),
 * {@link #setOption}/{@link #getOption} (any thread; must be thread-safe) and {@link #isOpen()} (any thread).
 *
 * <p>Errors: I/O failures throw {@link IOException} (or a {@code java.net} subclass) whose message names the
 * call and the reason. Expected non-events (would block, interrupted) are return values, never exceptions.
 */
@ConsumerType
public interface IoSocket {

    /** Interest bit: input ready, or (on a listener) a connection to accept. */
    int OP_READ = 1;
    /** Interest bit: output space available. */
    int OP_WRITE = 1 << 2;
    /** Interest bit: a pending connect finished. */
    int OP_CONNECT = 1 << 3;

    /**
     * Registers the socket with the poller of {@code loop} (the calling thread), with no interest yet.
     * Readiness is reported to {@code events} on that loop. Loop thread only.
     *
     * @throws IOException when the poller rejects it
     * @throws IllegalStateException when the calling thread is not a loop of this socket's transport
     */
    void register(EventLoop loop, IoEvents events) throws IOException;

    /**
     * Removes the socket from its poller; no more readiness is reported. Loop thread; idempotent.
     *
     * @param whenReleased {@code null}, or run on the loop once the poller holds no reference to the socket
     *        any more, so that a {@link #close()} afterwards (possibly on another thread) does no poller work
     *        on the loop (with {@code java.nio}, a registered channel's close is finished by its selector)
     */
    void deregister(Runnable whenReleased);

    /** Replaces the interest set with {@code ops} (a combination of the {@code OP_*} bits). Loop thread. */
    void interestOps(int ops);

    /** @return {@code true} until {@link #close()} */
    boolean isOpen();

    /**
     * Closes the socket. With {@code SO_LINGER > 0} this may block up to the linger time, which is why the
     * core calls it off the event loop in that case. Idempotent.
     */
    void close() throws IOException;

    /** Binds to {@code localAddress} (for a listener: see {@link IoServerSocket#bind(SocketAddress, int)}). */
    void bind(SocketAddress localAddress) throws IOException;

    /** @return the bound address, or {@code null} */
    SocketAddress localAddress();

    /** @return the connected peer, or {@code null} */
    SocketAddress remoteAddress();

    /**
     * Applies a socket option (not the core options such as {@code AUTO_READ}, which the core keeps).
     *
     * @return {@code false} when this socket does not support the option; the core then warns once per
     *         option and transport
     * @throws IOException when the kernel rejects the value
     */
    <T> boolean setOption(ChannelOption<T> option, T value) throws IOException;

    /**
     * @return the option's current value, or {@code null} when this socket does not support it
     * @throws IOException when the kernel query fails
     */
    <T> T getOption(ChannelOption<T> option) throws IOException;

    /**
     * Whether this socket honours {@code option}; the core asks before {@link #setOption} and warns when not.
     * The default asks {@link #getOption} for a non-{@code null} value; a socket overrides it for an option
     * whose value may be {@code null} while supported (e.g. {@code IP_MULTICAST_IF} before an interface is
     * chosen). Any thread.
     *
     * @throws IOException when the kernel query fails
     */
    default boolean supportsOption(ChannelOption<?> option) throws IOException {
        return getOption(option) != null;
    }

    /**
     * Steers the {@code SO_REUSEPORT} group this listener or UDP socket belongs to: every new connection or datagram
     * of the group goes to the socket at {@code index} in the group (the order they joined it; on Linux a
     * {@code SO_ATTACH_REUSEPORT_CBPF} program, socket(7)); an index past the end falls back to the kernel's hash.
     * The program belongs to the group, so it also steers away from sockets of other transports. Called on the
     * socket's event loop, while it is bound.
     *
     * @param index the place in the group, &gt;= 0
     * @return {@code true} when the group is steered; {@code false} when this transport cannot steer (the default)
     * @throws IOException the system call failed, e.g. the socket is not in a {@code SO_REUSEPORT} group
     * @since 0.11.0 (on {@link IoServerSocket} since 0.10.0)
     */
    default boolean steerReuseportGroup(int index) throws IOException {
        return false;
    }

    /**
     * Removes what {@link #steerReuseportGroup(int)} attached, so the kernel's hash picks the socket again
     * ({@code SO_DETACH_REUSEPORT_BPF}, Linux 5.3+). Called on the socket's event loop.
     *
     * @return {@code true} when a program was removed; {@code false} when none was attached or this transport
     *         cannot steer (the default)
     * @throws IOException the system call failed otherwise
     * @since 0.11.0 (on {@link IoServerSocket} since 0.10.0)
     */
    default boolean unsteerReuseportGroup() throws IOException {
        return false;
    }
}
