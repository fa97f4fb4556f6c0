package io.conduit.gateway.internal.network;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import io.conduit.channel.AddressBindException;

/**
 * The file of a path-bound Unix socket: a socket file left behind by a gateway that did not stop cleanly makes
 * {@code bind} fail with "Address already in use" although nobody listens, so before binding a stale file is
 * removed; a live one (a connect succeeds) is reported as in use. Stateless.
 */
final class UnixSocketFiles {

    private UnixSocketFiles() {
    }

    /**
     * Makes {@code path} bindable: creates its parent directories and removes a stale socket file.
     *
     * @throws AddressBindException {@code IN_USE} when a socket listens on the path (another process, or another
     *         endpoint of this gateway), {@code OTHER} when the path is a regular file or directory
     * @throws IOException   when the parent directory cannot be created or the stale file cannot be removed
     */
    static void prepareBind(Path path) throws IOException {
        Path parent = path.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new AddressBindException("unix:" + path + " exists and is not a socket; remove it or choose another"
                    + " path", AddressBindException.Reason.OTHER, UnixDomainSocketAddress.of(path), null);
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            throw new AddressBindException("unix:" + path + " is in use: a socket listens on it (another process, or"
                    + " another endpoint of this gateway); stop it or choose another path",
                    AddressBindException.Reason.IN_USE, UnixDomainSocketAddress.of(path), null);
        } catch (AddressBindException e) {
            throw e;
        } catch (IOException refused) {
            Files.deleteIfExists(path); // stale: nobody accepts on it
        }
    }

    /** Removes the socket file after its listener closed; never throws. */
    static void remove(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // best effort: the next start removes a stale file anyway
        }
    }
}
