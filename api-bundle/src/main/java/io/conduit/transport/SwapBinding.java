package io.conduit.transport;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.LinkOption;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.concurrent.TimeUnit;

/**
 * How a managed endpoint makes and binds a generation on a transport: the plug-in a {@link ManagedServer} or
 * {@link ManagedDatagramEndpoint} supplies (whether a transport can serve it, the probe, the bind, the hand-over, the
 * socket file), the group made per transport, and the binds of a swap (next to the old socket with
 * {@code SO_REUSEPORT}, or after it closed, retried while the port is still held). {@link SwapEngine} decides when.
 *
 * <p>Threading: the binds run on the endpoint's swap thread; {@link #live} is guarded by {@link #lock}.
 *
 * @param <G> the endpoint's generation: one transport's event-loop group, socket and tied channels
 */
abstract class SwapBinding<G extends SwapGeneration> {

    /** Most time a bind after closing the old socket keeps retrying while it still holds the port, in ms. */
    static final long REBIND_AFTER_CLOSE_MILLIS = 3_000;

    /** {@code "ManagedServer"} or {@code "ManagedDatagramEndpoint"}, for messages and metrics. */
    final String kind;
    /** Whether the endpoint listens for streams (else: a datagram socket). */
    final boolean stream;
    final SocketAddress requestedAddress;
    final Object lock = new Object();
    /** Event loops of the group made for each transport; written before start only. */
    int threads = 1;
    /**
     * Guarded by lock: every generation from the creation of its group until the group terminated, so
     * {@link SwapEngine#generationOf} finds the generation of a loop in any state of a swap (while the new socket
     * binds, before it becomes current, and while the old one is being retired).
     */
    final List<G> live = new ArrayList<>();
    volatile SocketAddress boundAddress;        // written by the swap thread; the address re-binds use

    SwapBinding(String kind, boolean stream, SocketAddress requestedAddress) {
        this.kind = kind;
        this.stream = stream;
        this.requestedAddress = requestedAddress;
    }

    // ---- the plug-in ----

    /**
     * @return {@code null} when {@code t} can serve this endpoint, otherwise why not, one line starting with
     *         {@code "transport '<name>' cannot"}; may throw a {@link LinkageError} for a transport whose bundle is gone
     */
    abstract String cannotServe(Transport t);

    /** @return whether a socket of this endpoint on {@code t} is bound with {@code SO_REUSEPORT} */
    abstract boolean reusesPort(Transport t);

    /**
     * Binds a plain JDK socket (no {@code SO_REUSEPORT}) to {@code address} and closes it: the probe of
     * {@link AddressClaims#claimAndProbe}, which must fail when another socket holds the address.
     */
    abstract void probeBind(InetSocketAddress address) throws IOException;

    /** @return a generation of {@code t} on {@code group}, without a socket yet */
    abstract G newGeneration(Transport t, EventLoopGroup group);

    /** @return the bind of {@code g}'s socket on its transport, with {@code SO_REUSEPORT} when {@code reusePort} */
    abstract Future<Channel> bind(G g, boolean reusePort, SocketAddress address) throws Exception;

    /**
     * After an overlap bind, before {@code old}'s socket is closed: hands over what it still holds.
     *
     * @param keep whether {@code old}'s tied channels stay open (otherwise they are drained)
     * @return what happened, for the swap's log line, or {@code null} when there is nothing to hand over
     */
    String handOver(G old, boolean keep) {
        return null;
    }

    /** After {@link #handOver} and the close of {@code old}'s socket: undoes what the hand-over set up. */
    void handedOver(G old) {
    }

    /** After the socket was closed without a successor bound (fall back, close): removes its socket file, if any. */
    void socketClosed() {
    }

    /** @return the address a bind uses: the bound one once there is one (a port picked for port 0 stays) */
    SocketAddress address() {
        SocketAddress b = boundAddress;
        return b != null ? b : requestedAddress;
    }

    // ---- binding ----

    /**
     * On the swap thread: a group and a bound socket on {@code t}.
     *
     * @param probe whether to check first that no other socket holds the address; {@code false} only for the
     *        overlap, whose bind joins this endpoint's own old socket (the probe would fail against it)
     */
    G bindOn(Transport t, boolean probe) throws Exception {
        if (reusesPort(t) && probe) {
            AddressClaims.claimAndProbe(stream, address(), this, kind, t, this::probeBind); // before any loop starts
        }
        G g = newGenerationOn(t);
        try {
            bindGeneration(g);
        } catch (Exception | LinkageError e) {
            g.group.shutdownGracefully(0, 1, TimeUnit.SECONDS); // done already when the bind itself failed
            throw e;
        }
        return g;
    }

    /** On the swap thread: a new group on {@code t} and its generation, listed in {@link #live}, not bound yet. */
    G newGenerationOn(Transport t) {
        EventLoopGroup group = t.newEventLoopGroup(threads);
        G g = newGeneration(t, group);
        synchronized (lock) {
            live.add(g); // generationOf finds its loops until the group terminated
        }
        group.terminationFuture().addListener(f -> {
            synchronized (lock) {
                live.remove(g);
            }
        });
        return g;
    }

    /** On the swap thread: binds {@code g}'s socket at the endpoint's address; on failure {@code g} stays unbound. */
    void bindGeneration(G g) throws Exception {
        boolean reuse = reusesPort(g.transport);
        SocketAddress address = address();
        g.channel = g.awaitBound(bind(g, reuse, address), address);
        g.reusePort = reuse && Boolean.TRUE.equals(g.channel.config().getOption(ChannelOption.SO_REUSEPORT));
        if (boundAddress == null) {
            boundAddress = g.channel.localAddress();
        }
    }

    /**
     * @return the socket file of a Unix-domain listener, whose swap binds the new listener beside the old one and
     *         renames it over the old one's path; {@code null} (the default) for every other endpoint
     */
    Path renamesOver() {
        return null;
    }

    /**
     * On the swap thread, while the old listener still serves {@code path}: binds a new generation on {@code t} at
     * a new sibling path, gives that file the mode, owner and group of {@code path}'s, then {@code rename(2)}s it
     * over {@code path}. From the rename on, every connect to {@code path} reaches the new listener; the old one
     * keeps what is queued in it and no longer has a name. No connect is refused meanwhile. The sibling's name is as
     * long as {@code path}'s (so it fits {@code sun_path} when {@code path} does): a dot and random letters, chosen
     * among names no file has; no existing file is ever removed.
     *
     * @return the new generation, bound
     * @throws Exception when the bind, the copy of the file's attributes or the rename fails (the new generation
     *         is closed again and {@code path} still names the old listener)
     */
    G bindBesideAndRename(Transport t, Path path) throws Exception {
        Path temp = unusedSibling(path);
        G g = newGenerationOn(t);
        try {
            SocketAddress beside = UnixDomainSocketAddress.of(temp);
            g.channel = g.awaitBound(bind(g, false, beside), beside);
            PosixFileAttributes was = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            // followed: chmod(2)/chown(2) by name; the no-follow view opens the file, which a socket refuses (ENXIO)
            PosixFileAttributeView now = Files.getFileAttributeView(temp, PosixFileAttributeView.class);
            now.setPermissions(was.permissions());
            PosixFileAttributes made = now.readAttributes();
            if (!made.group().equals(was.group())) {
                now.setGroup(was.group());
            }
            if (!made.owner().equals(was.owner())) {
                now.setOwner(was.owner());
            }
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE);
            CoreCalls.localAddressRenamed(g.channel, beside, UnixDomainSocketAddress.of(path));
            return g;
        } catch (Exception | LinkageError e) {
            if (g.channel != null) {
                g.closeSocket(false);
                g.channel = null;
            }
            Files.deleteIfExists(temp); // ours: no file had the name before the bind
            g.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** @return a path beside {@code path}, as long as it, that names no file: a dot and random letters */
    private static Path unusedSibling(Path path) throws IOException {
        String name = path.getFileName().toString();
        if (name.length() < 4) {
            throw new IOException("the socket file name '" + name + "' is too short for a sibling of its length");
        }
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 16; attempt++) {
            StringBuilder b = new StringBuilder(".");
            while (b.length() < name.length()) {
                b.append((char) ('a' + random.nextInt(26)));
            }
            Path candidate = path.resolveSibling(b.toString());
            if (!Files.exists(candidate, LinkOption.NOFOLLOW_LINKS)) {
                return candidate;
            }
        }
        throw new IOException("no unused sibling name for " + path + " in 16 attempts");
    }

    /** On the swap thread, after the old socket was closed: {@link #bindAfterClose(SwapGeneration)} on a new group. */
    G bindAfterClose(Transport t) throws Exception {
        return bindAfterClose(newGenerationOn(t));
    }

    /**
     * On the swap thread, after the old socket was closed: binds {@code g}, whose group was made before the close,
     * retrying every 25 ms for at most {@link #REBIND_AFTER_CLOSE_MILLIS} while it fails and its transport is still
     * {@linkplain #stillProvided provided}: closing a socket is asynchronous on some transports (with
     * {@code java.nio} the descriptor is released when its selector next runs), so a bind right after the close can
     * still see the port in use. A transport that went away is not retried: its classes may be gone (a refreshed
     * bundle), so every attempt would fail. When it gives up, {@code g}'s group is shut down.
     *
     * @return {@code g}, bound
     * @throws Exception the last failure; a {@link LinkageError} of a withdrawn bundle is thrown as it is
     */
    G bindAfterClose(G g) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REBIND_AFTER_CLOSE_MILLIS);
        try {
            for (;;) {
                try {
                    if (reusesPort(g.transport)) {
                        AddressClaims.claimAndProbe(stream, address(), this, kind, g.transport, this::probeBind);
                    }
                    bindGeneration(g);
                    return g;
                } catch (Exception | LinkageError e) {
                    if (System.nanoTime() - deadline >= 0 || !stillProvided(g.transport)) {
                        throw e;
                    }
                    Thread.sleep(25);
                }
            }
        } catch (Exception | LinkageError e) {
            g.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    // ---- transports ----

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
}
