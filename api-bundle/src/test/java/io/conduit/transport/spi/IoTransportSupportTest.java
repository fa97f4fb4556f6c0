package io.conduit.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.ChannelType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What every transport shares through {@link IoTransportSupport}: the default backlog and the up-front property check. */
class IoTransportSupportTest {

    @Test
    void theDefaultBacklogIsSomaxconnOnLinuxAndTheFallbackElsewhere(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("somaxconn");
        Files.writeString(file, "1024\n", StandardCharsets.US_ASCII);
        assertEquals(1024, IoTransportSupport.defaultBacklog("Linux", file));
        assertEquals(IoTransportSupport.FALLBACK_BACKLOG, IoTransportSupport.defaultBacklog("Mac OS X", file));
        assertEquals(IoTransportSupport.FALLBACK_BACKLOG, IoTransportSupport.defaultBacklog("FreeBSD", file));
        assertEquals(IoTransportSupport.FALLBACK_BACKLOG,
                IoTransportSupport.defaultBacklog("Linux", dir.resolve("missing")), "no /proc (a container)");
        Files.writeString(file, "lots", StandardCharsets.US_ASCII);
        assertEquals(IoTransportSupport.FALLBACK_BACKLOG, IoTransportSupport.defaultBacklog("Linux", file));
        Files.writeString(file, "0", StandardCharsets.US_ASCII);
        assertEquals(IoTransportSupport.FALLBACK_BACKLOG, IoTransportSupport.defaultBacklog("Linux", file));

        Path proc = Path.of(IoTransportSupport.SOMAXCONN_FILE);
        if (System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux") && Files.isReadable(proc)) {
            assertEquals(somaxconn(), IoTransportSupport.defaultBacklog());
        }
    }

    /**
     * {@code /proc/sys} integer files give their whole value to the first read and nothing at a later offset:
     * {@code Files.readString} (a 1-byte read first, the file's size being 0) saw "4" of "4096".
     */
    @Test
    void aProcSysValueIsReadWhole() throws Exception {
        Path proc = Path.of(IoTransportSupport.SOMAXCONN_FILE);
        if (System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux") && Files.isReadable(proc)) {
            assertEquals(String.valueOf(somaxconn()), IoTransportSupport.readSysctl(proc));
        }
    }

    /** @return {@code net.core.somaxconn} as sysctl(8) prints it, or read in one large read */
    static int somaxconn() throws Exception {
        try {
            Process p = new ProcessBuilder("sysctl", "-n", "net.core.somaxconn").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return Integer.parseInt(out);
            }
        } catch (java.io.IOException noSysctl) {
            // procps is not installed: read the file in one read of 8 KiB, as cat(1) does
        }
        try (java.io.FileInputStream in = new java.io.FileInputStream(IoTransportSupport.SOMAXCONN_FILE)) {
            return Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
        }
    }

    @Test
    void anExplicitBacklogWinsThenSoBacklogThenTheDefault() {
        assertEquals(IoTransportSupport.defaultBacklog(), IoTransportSupport.listenBacklog(0, 0));
        assertEquals(256, IoTransportSupport.listenBacklog(0, 256));
        assertEquals(7, IoTransportSupport.listenBacklog(7, 256));
    }

    @Test
    void aNewGroupIsRefusedUpFrontWhileAPropertyChannelsDependOnIsMalformed() throws Exception {
        IoTransportSupport support = new IoTransportSupport("scripted", EnumSet.of(ChannelType.TCP));
        String name = "conduit.leakDetection";
        String old = System.getProperty(name);
        System.setProperty(name, "bogus");
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> support.newGroup(1, null,
                    IdleIoHandler::new, IoEventLoopGroup.Options.defaults()));
            assertEquals("system property conduit.leakDetection='bogus' is not valid; allowed values: disabled,"
                    + " simple, paranoid (case-insensitive); default: simple", e.getMessage());
        } finally {
            restore(name, old);
        }
        // The selection's own properties are left to the selection (a configuration may override them).
        String transport = "conduit.transport";
        String oldTransport = System.getProperty(transport);
        System.setProperty(transport, "nio,,epoll");
        try {
            IoEventLoopGroup g = support.newGroup(1, null, IdleIoHandler::new,
                    IoEventLoopGroup.Options.defaults());
            assertTrue(g.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
        } finally {
            restore(transport, oldTransport);
        }
    }

    private static void restore(String name, String old) {
        if (old == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, old);
        }
    }
}
