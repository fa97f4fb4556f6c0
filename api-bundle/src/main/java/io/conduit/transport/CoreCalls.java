package io.conduit.transport;

import io.conduit.channel.Channel;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.channel.access.DatagramHandOver;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The four operations the managed endpoints need from the channel core beyond the {@link Channel} API. They are the
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

    /**
     * Closes {@code c}; a listener of the core first accepts the connections queued in it
     * ({@link CoreChannel#closeAcceptingQueued()}). A channel outside the core is closed plainly.
     */
    static Future<Void> closeAcceptingQueued(Channel c) {
        return c instanceof CoreChannel core ? core.closeAcceptingQueued() : c.close();
    }

    /**
     * Steers the {@code SO_REUSEPORT} group of the listener or UDP socket {@code c} to its socket at {@code index}, or
     * removes the steering ({@code steer} false), waiting at most {@link SwapEngine#STEP_TIMEOUT_MILLIS}.
     *
     * @return what failed, or {@code null} when done; {@code ""} when {@code c}'s transport cannot steer or there
     *         was nothing to remove
     */
    static String steerReuseportGroup(Channel c, boolean steer, int index) throws InterruptedException {
        if (!(c instanceof CoreChannel core)) {
            return "";
        }
        Future<Boolean> f = core.steerReuseportGroup(steer, index);
        if (!f.await(SwapEngine.STEP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            return "no answer within " + SwapEngine.STEP_TIMEOUT_MILLIS + " ms";
        }
        if (f.cause() != null) {
            return f.cause().toString();
        }
        return Boolean.TRUE.equals(f.getNow()) ? null : "";
    }

    /**
     * Steers the {@code SO_REUSEPORT} group of {@code next} and {@code old} to {@code next}, the socket that joined it
     * last (index 1, beside {@code old} at 0), through whichever of the two can (Linux: epoll, io_uring).
     *
     * @return {@code null} when steered; {@code ""} when neither transport can steer; otherwise what failed
     */
    static String steerToNewest(Channel next, Channel old) throws InterruptedException {
        String viaNew = steerReuseportGroup(next, true, 1);
        if (viaNew == null) {
            return null;
        }
        String viaOld = steerReuseportGroup(old, true, 1);
        return viaOld == null ? null : viaNew.isEmpty() ? viaOld : viaNew;
    }

    /**
     * Removes a steering of {@link #steerToNewest} once the old socket is closed: with one socket left it has no
     * effect, so a failure is only logged at DEBUG.
     */
    static void unsteer(Channel next, System.Logger log, String what) throws InterruptedException {
        String failure = steerReuseportGroup(next, false, 0);
        if (failure != null && !failure.isEmpty()) {
            log.log(System.Logger.Level.DEBUG, "removing the SO_REUSEPORT steering of " + what + " failed (" + failure
                    + "); with one socket left it has no effect");
        }
    }

    /** {@link CoreChannel#localAddressRenamed}: {@code c} is reached at {@code now} since its socket file's rename. */
    static void localAddressRenamed(Channel c, SocketAddress bound, SocketAddress now) {
        if (c instanceof CoreChannel core) {
            core.localAddressRenamed(bound, now);
        }
    }
}
