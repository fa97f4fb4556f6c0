package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.BindException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link UnixSocketFiles#prepareBind} does with what is already at a Unix endpoint's path. */
class UnixSocketFilesTest {

    @TempDir
    Path dir;

    @Test
    void aLiveSocketIsInUseAndSaysWhatToDoAStaleOneIsRemovedAFileIsLeftAlone() throws Exception {
        Path live = dir.resolve("run/live.sock");
        Files.createDirectories(live.getParent());
        try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listener.bind(UnixDomainSocketAddress.of(live));
            BindException e = assertThrows(BindException.class, () -> UnixSocketFiles.prepareBind(live));
            assertTrue(e.getMessage().equals("unix:" + live + " is in use: a socket listens on it (another process, "
                    + "or another endpoint of this gateway); stop it or choose another path"), e.getMessage());
            assertTrue(Files.exists(live), "a live socket's file is left alone");
        }
        // closed: the java.nio listener left its file behind, nobody accepts on it any more
        assertTrue(Files.exists(live));
        UnixSocketFiles.prepareBind(live);
        assertFalse(Files.exists(live), "a stale socket file is removed");

        Path plain = Files.writeString(dir.resolve("notes.sock"), "not a socket");
        BindException e = assertThrows(BindException.class, () -> UnixSocketFiles.prepareBind(plain));
        assertTrue(e.getMessage().contains("exists and is not a socket; remove it or choose another path"),
                e.getMessage());
        assertTrue(Files.exists(plain));

        Path fresh = dir.resolve("a/b/c.sock");
        UnixSocketFiles.prepareBind(fresh);
        assertTrue(Files.isDirectory(fresh.getParent()), "parent directories are made");
    }
}
