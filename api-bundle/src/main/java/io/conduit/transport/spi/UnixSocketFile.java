package io.conduit.transport.spi;

import io.conduit.channel.AddressBindException;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * SPI for transport implementers: the socket file a Unix-domain listener or datagram socket created at
 * {@code bind(2)}. {@code close(2)} of the socket leaves the file behind (see {@code unix(7)}), and a later bind to
 * the path then fails with {@code EADDRINUSE}; so the socket removes its file when it closes — only while the path
 * still holds the very file it bound (same {@link BasicFileAttributes#fileKey()}, i.e. device and inode), never a
 * file another process put there since. Every transport's Unix listeners and datagram sockets use it the same way: {@link #bind} around its {@code bind(2)} (or {@link #bound}
 * after a successful bind and {@link #bindFailed} on a failed one), {@link #deleteIfStillOurs} before
 * {@code close(2)}. A Linux abstract name ({@link io.conduit.channel.UnixAbstractAddress}) has no file: nothing
 * is recorded or removed for it. Immutable and thread-safe.
 */
public final class UnixSocketFile {

    private static final System.Logger LOG = System.getLogger(UnixSocketFile.class.getName());

    private final Path path;
    /** the file's identity at bind: fileKey (device + inode), or its creation time where no key exists */
    private final Object identity;

    private UnixSocketFile(Path path, Object identity) {
        this.path = path;
        this.identity = identity;
    }

    /** A socket's own {@code bind(2)}. */
    @FunctionalInterface
    public interface Bind {
        /**
         * @return the bound local address
         * @throws IOException when the bind fails
         */
        SocketAddress bind() throws IOException;
    }

    /**
     * Binds a socket with {@code bind} and records the socket file the bind created.
     *
     * @param requested the address asked for, named in the error
     * @return the record ({@code null} for a TCP listener, an abstract name or an unnamed socket)
     * @throws IOException the bind's failure, rewritten by {@link #bindFailed} when a file is in the way
     */
    public static UnixSocketFile bind(SocketAddress requested, Bind bind) throws IOException {
        SocketAddress local;
        try {
            local = bind.bind();
        } catch (IOException e) {
            throw bindFailed(requested, e);
        }
        return bound(local);
    }

    /**
     * Records the file a socket just bound.
     *
     * @param localAddress the socket's bound address
     * @return the record, or {@code null} when {@code localAddress} is no Unix path (TCP, unnamed) or the file
     *         cannot be read
     */
    public static UnixSocketFile bound(SocketAddress localAddress) {
        if (!(localAddress instanceof UnixDomainSocketAddress)) {
            return null;
        }
        Path p = ((UnixDomainSocketAddress) localAddress).getPath();
        if (p.toString().isEmpty()) {
            return null;
        }
        Object id = identity(p);
        return id == null ? null : new UnixSocketFile(p, id);
    }

    private static Object identity(Path p) {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.fileKey() != null ? a.fileKey() : a.creationTime();
        } catch (IOException e) {
            return null;
        }
    }

    /** Deletes the file when it is still the one bound; failures are logged (a close never fails for it). */
    public void deleteIfStillOurs() {
        if (!Objects.equals(identity, identity(path))) {
            return; // gone, or replaced by another file
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "could not remove Unix socket file " + path + ": " + e);
        }
    }

    /**
     * Rewrites a failed bind of a Unix-domain socket whose path exists: {@code EADDRINUSE} does not say that
     * a (possibly stale) socket file is in the way.
     *
     * @return an {@link AddressBindException} ({@link AddressBindException.Reason#IN_USE IN_USE}) naming the path and
     *         what to do, or {@code e} itself otherwise
     */
    public static IOException bindFailed(SocketAddress address, IOException e) {
        if (AddressBindException.reasonOf(e) != AddressBindException.Reason.IN_USE
                || !(address instanceof UnixDomainSocketAddress)) {
            return e;
        }
        Path p = ((UnixDomainSocketAddress) address).getPath();
        if (p.toString().isEmpty() || !Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return e;
        }
        return new AddressBindException("cannot bind a Unix-domain socket to " + p + ": a "
                + (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(p) ? "file" : "socket file")
                + " already exists at " + p + " (" + e.getMessage() + "); remove it if no process uses it"
                + " (a process that exited without removing it leaves a stale socket file), or bind another path",
                AddressBindException.Reason.IN_USE, address, e);
    }
}
