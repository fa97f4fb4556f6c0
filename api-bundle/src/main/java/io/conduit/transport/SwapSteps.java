package io.conduit.transport;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The steps {@link ManagedServer} and {@link ManagedDatagramEndpoint} take alike when they follow the selected
 * transport: their swap thread, the check whether an old transport is still there, and binding. Stateless.
 */
final class SwapSteps {

    /** Longest wait for a bind, in milliseconds. */
    static final long BIND_TIMEOUT_MILLIS = 10_000;
    /** Most time a bind after closing the old socket keeps retrying while it still holds the port, in ms. */
    static final long REBIND_AFTER_CLOSE_MILLIS = 3_000;

    private SwapSteps() {
    }

    /** A bind on a transport; may be retried. */
    @FunctionalInterface
    interface Bind<G> {
        G bind() throws Exception;
    }

    /** @return the single daemon thread that runs one server's or endpoint's swaps, named {@code name} */
    static ExecutorService newSwapThread(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * @return whether {@code t} is still the registered, available transport of its name; a new revision of its
     *         bundle provides another instance, which counts as going away
     */
    static boolean stillProvided(Transport t) {
        try {
            return Transports.get(t.name()) == t;
        } catch (RuntimeException e) {
            return false; // unregistered or unavailable
        }
    }

    /**
     * Runs {@code bind}, retrying for at most {@link #REBIND_AFTER_CLOSE_MILLIS} while it fails: closing a socket is
     * asynchronous on some transports (with {@code java.nio} the descriptor is released when its selector next
     * runs), so a bind right after the close can still see the port in use.
     */
    static <G> G bindAfterClose(Bind<G> bind) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REBIND_AFTER_CLOSE_MILLIS);
        for (;;) {
            try {
                return bind.bind();
            } catch (Exception e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                Thread.sleep(25);
            }
        }
    }

    /**
     * Waits at most {@link #BIND_TIMEOUT_MILLIS} for {@code bound}; on failure shuts {@code group} down and throws.
     *
     * @return the bound channel
     * @throws Exception the bind's failure, or an {@link IOException} naming the address and transport
     */
    static Channel awaitBound(Future<Channel> bound, SocketAddress address, Transport t, EventLoopGroup group)
            throws Exception {
        Throwable failure;
        if (!bound.await(BIND_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            failure = new IOException("binding " + address + " on '" + t.name() + "' did not finish within "
                    + BIND_TIMEOUT_MILLIS + " ms");
        } else {
            failure = bound.cause();
        }
        if (failure == null) {
            return bound.getNow();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        if (failure instanceof Exception ex) {
            throw ex;
        }
        throw new IOException("binding " + address + " on '" + t.name() + "' failed: " + failure, failure);
    }
}
