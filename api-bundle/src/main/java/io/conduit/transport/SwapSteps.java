package io.conduit.transport;

import io.conduit.channel.AddressBindException;
import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
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
     * Runs {@code bind} on {@code t}, retrying every 25 ms for at most {@link #REBIND_AFTER_CLOSE_MILLIS} while it
     * fails and {@code t} is still {@linkplain #stillProvided provided}: closing a socket is asynchronous on some
     * transports (with {@code java.nio} the descriptor is released when its selector next runs), so a bind right
     * after the close can still see the port in use. A transport that went away is not retried: its classes may be
     * gone (a refreshed bundle), so every attempt would fail.
     *
     * @throws Exception the last failure; a {@link LinkageError} of a withdrawn bundle is thrown as it is
     */
    static <G> G bindAfterClose(Bind<G> bind, Transport t) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REBIND_AFTER_CLOSE_MILLIS);
        for (;;) {
            try {
                return bind.bind();
            } catch (Exception | LinkageError e) {
                if (System.nanoTime() - deadline >= 0 || !stillProvided(t)) {
                    throw e;
                }
                Thread.sleep(25);
            }
        }
    }

    /**
     * Lists {@code generation} in {@code live} (guarded by {@code lock}) now and removes it once {@code group}
     * terminated, so a loop of the group can be told to belong to it in every state of a swap.
     */
    static <G> void listUntilTerminated(java.util.List<G> live, Object lock, G generation, EventLoopGroup group) {
        synchronized (lock) {
            live.add(generation);
        }
        group.terminationFuture().addListener(f -> {
            synchronized (lock) {
                live.remove(generation);
            }
        });
    }

    /**
     * Runs {@code make} (a socket of {@code group} being bound); when it throws, shuts {@code group} down (done already
     * when the bind itself failed) and rethrows, also a {@link LinkageError} of a withdrawn bundle.
     */
    static <C> C orShutDown(EventLoopGroup group, Bind<C> make) throws Exception {
        try {
            return make.bind();
        } catch (Exception | LinkageError e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Most attempts of one swap: each attempt whose transport went away while it bound (e.g. a bundle update and
     * refresh back to back) starts again from the current selection.
     */
    static final int MAX_SWAP_ATTEMPTS = 8;

    /** @return e.g. {@code "'epoll' (NoClassDefFoundError: io/conduit/epoll/EpollEventArray)"}, for the swap's line */
    static String skipped(Transport t, Throwable failure) {
        Throwable root = failure;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return "'" + t.name() + "'" + (root == null ? "" : " (" + root.getClass().getSimpleName()
                + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")");
    }

    /**
     * @return {@code ""}, or e.g. {@code "; skipped 'epoll' (...), which went away while the swap bound on it"}
     */
    static String skippedText(java.util.List<String> skipped) {
        if (skipped.isEmpty()) {
            return "";
        }
        return "; skipped " + String.join(", ", skipped) + (skipped.size() == 1 ? ", which" : ", which each")
                + " went away while the swap bound on it";
    }

    /** An address a managed endpoint holds while it is open; see {@link #claim}. */
    private record Claim(boolean stream, InetSocketAddress address, Object owner) {
    }

    /** The claims of every {@code ManagedServer} and {@code ManagedDatagramEndpoint} of this class loader. */
    private static final java.util.List<Claim> CLAIMS = new java.util.ArrayList<>();

    /**
     * Claims {@code address} for {@code owner} until {@link #release}: the probe bind cannot see another endpoint of
     * this process that probed a moment before and has not bound yet, and both would then bind with
     * {@code SO_REUSEPORT} and share the port (two gateway configurations listing one port, activated at once). A
     * claim conflicts with another owner's claim of the same protocol and port at the same address, or where either
     * address is the wildcard. Claiming again for the same owner does nothing; a port-0 address is not claimed.
     *
     * @param stream {@code true} for TCP, {@code false} for UDP
     * @param who    e.g. {@code "ManagedServer cannot listen on"}
     * @param kind   e.g. {@code "ManagedServer"}, naming the other owner in the message
     * @throws AddressBindException ({@code IN_USE}) "address already in use: another {kind} of this process ..." when
     *         another owner holds it
     */
    static void claim(boolean stream, InetSocketAddress address, Object owner, String who, String kind, Transport t)
            throws AddressBindException {
        if (address.getPort() == 0) {
            return;
        }
        synchronized (CLAIMS) {
            boolean held = false;
            for (Claim c : CLAIMS) {
                if (c.owner() == owner) {
                    held |= c.stream() == stream && c.address().equals(address);
                    continue;
                }
                if (c.stream() != stream || c.address().getPort() != address.getPort()) {
                    continue;
                }
                InetAddress a = c.address().getAddress();
                InetAddress b = address.getAddress();
                if (a == null || b == null || a.isAnyLocalAddress() || b.isAnyLocalAddress() || a.equals(b)) {
                    throw new AddressBindException(who + " " + address + " (transport '" + t.name() + "'): address "
                            + "already in use: another " + kind + " of this process " + (stream ? "listens on "
                            : "is bound to ") + c.address() + "; close it or configure another port",
                            AddressBindException.Reason.IN_USE, address, null);
                }
            }
            if (!held) {
                CLAIMS.add(new Claim(stream, address, owner));
            }
        }
    }

    /** Gives up every claim of {@code owner} ({@link #claim}); nothing happens when it holds none. */
    static void release(Object owner) {
        synchronized (CLAIMS) {
            CLAIMS.removeIf(c -> c.owner() == owner);
        }
    }

    /**
     * The exception for a probe bind (the check before an {@code SO_REUSEPORT} bind that no other socket holds the
     * address) that failed: one line naming the address, the transport, the real cause and what to do. The probe is
     * a JDK socket, so the cause is {@link AddressBindException#reasonOf}'s reading of it and, for an address not on
     * this host, also the host's interfaces.
     *
     * @param who      e.g. {@code "ManagedServer cannot listen on"}
     * @param inUse    the sentence for an address in use, ending in the remedy
     * @param failure  the probe's failure
     * @return an {@link AddressBindException} with that message and reason, caused by {@code failure}
     */
    static AddressBindException probeFailed(String who, InetSocketAddress address, Transport t, String inUse,
            BindException failure) {
        String system = failure.getMessage() == null ? "bind failed" : failure.getMessage();
        AddressBindException.Reason reason = AddressBindException.reasonOf(failure);
        InetAddress ip = address.getAddress();
        String text;
        if (reason == AddressBindException.Reason.IN_USE) {
            text = inUse.replace("{system}", system);
        } else if (reason == AddressBindException.Reason.NOT_AVAILABLE || ip != null && !isLocal(ip)) {
            reason = AddressBindException.Reason.NOT_AVAILABLE;
            boolean v6 = ip instanceof Inet6Address;
            text = (ip == null ? address.getHostString() : ip.getHostAddress()) + " is not an address of this host ("
                    + system + "): configure one of this host's addresses, " + (v6 ? "::1" : "127.0.0.1")
                    + " for this host only, or " + (v6 ? "[::]" : "0.0.0.0") + " for every address";
        } else if (reason == AddressBindException.Reason.ACCESS_DENIED) {
            text = "port " + address.getPort() + " needs privileges (" + system + "): ports below 1024 need root or "
                    + "the capability CAP_NET_BIND_SERVICE; configure a port of 1024 or above";
        } else {
            text = system;
        }
        return new AddressBindException(who + " " + address + " (transport '" + t.name() + "'): " + text, reason,
                address, failure);
    }

    /** @return whether {@code ip} is the wildcard, a loopback address or an address of one of this host's interfaces */
    private static boolean isLocal(InetAddress ip) {
        if (ip.isAnyLocalAddress() || ip.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(ip) != null;
        } catch (SocketException e) {
            return true; // cannot tell: trust the system's message
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
            bound.cancel(false); // a listener bound after this closes itself (ServerBootstrap.bind, Bootstrap.bind)
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
