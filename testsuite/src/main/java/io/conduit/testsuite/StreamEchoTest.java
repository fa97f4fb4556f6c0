package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoTransportSupport;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Echo over TCP and Unix-domain stream sockets: every byte comes back exactly, for sizes from 1 byte to 16 MiB
 * (the largest sizes only with the pooled allocator; the one-byte-reads allocator echoes up to 64 KiB), and with
 * many connections at once; the listen backlog (set, and the platform default every transport shares); a failing
 * allocator closing the connection.
 */
public abstract class StreamEchoTest extends AbstractTransportTest {

    /** @return the payload sizes for {@code combo}, in bytes */
    protected static int[] sizes(Combo combo) {
        return switch (combo.allocator()) {
            case POOLED -> new int[] {1, 1024, 65_536, 1 << 20, 16 << 20};
            case UNPOOLED -> new int[] {1, 1024, 65_536, 1 << 20};
            case ONE_BYTE_READS -> new int[] {1, 1024, 65_536};
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void echoesEveryByteOverTcp(Combo combo) {
        echo(combo, ChannelType.TCP);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void echoesEveryByteOverUnixDomainSockets(Combo combo) {
        echo(combo, ChannelType.UNIX_STREAM);
    }

    private void echo(Combo combo, ChannelType type) {
        if (!runnable(combo, type)) {
            return;
        }
        Channel server = bindServer(combo, type, serverAddress(type), new EchoHandler(), null);
        try {
            for (int size : sizes(combo)) {
                Recorder client = new Recorder();
                Channel ch = connect(combo, type, server.localAddress(), client, null);
                try {
                    byte[] data = randomBytes(size, size);
                    Buffer buf = ch.alloc().buffer(size);
                    buf.writeBytes(data);
                    await(ch.writeAndFlush(buf));
                    eventually(size + " bytes echoed (got " + client.byteCount() + ")", () -> client.byteCount() >= size);
                    assertArrayEquals(data, client.bytes(), "echo of " + size + " bytes");
                } finally {
                    closeAll(ch);
                }
            }
        } finally {
            closeAll(server);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void echoesOnManyConnectionsAtOnce(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        int connections = 64;
        int size = combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 512 : 32 * 1024;
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new EchoHandler(),
                b -> b.option(ChannelOption.SO_BACKLOG, 256));
        assertEquals(256, server.config().getOption(ChannelOption.SO_BACKLOG), "SO_BACKLOG is honoured, not ignored");
        List<Channel> channels = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                Recorder r = new Recorder();
                recorders.add(r);
                channels.add(connect(combo, ChannelType.TCP, server.localAddress(), r, null));
            }
            for (int i = 0; i < connections; i++) {
                Channel ch = channels.get(i);
                Buffer buf = ch.alloc().buffer(size);
                buf.writeBytes(randomBytes(size, i));
                ch.writeAndFlush(buf);
            }
            for (int i = 0; i < connections; i++) {
                Recorder r = recorders.get(i);
                eventually("echo on connection " + r.channel(), () -> r.byteCount() >= size);
                assertArrayEquals(randomBytes(size, i), r.bytes(), "connection " + i);
                assertEquals(1, r.count("active"));
                assertTrue(r.count(e -> e.startsWith("exception")) == 0, r.events().toString());
            }
        } finally {
            closeAll(channels.toArray(new Channel[0]));
            closeAll(server);
        }
    }

    /**
     * Without {@code SO_BACKLOG} every transport listens with the same platform backlog
     * ({@link IoTransportSupport#defaultBacklog()}: {@code net.core.somaxconn} on Linux), not the JDK's 50: a burst
     * of connections the listener does not accept yet all complete their handshake at once, where a backlog of 50
     * would drop the SYNs beyond the 51st (each client then waits for a retransmit, a second or more).
     */
    /**
     * @return Linux's {@code net.core.somaxconn}, read in one 8 KiB read as cat(1) does (a {@code /proc/sys} integer
     *         file gives nothing to a read at a later offset), or {@code null} elsewhere
     */
    private static Integer somaxconn() throws IOException {
        java.io.File f = new java.io.File("/proc/sys/net/core/somaxconn");
        if (!System.getProperty("os.name").startsWith("Linux") || !f.canRead()) {
            return null;
        }
        try (java.io.FileInputStream in = new java.io.FileInputStream(f)) {
            return Integer.valueOf(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void theDefaultBacklogIsThePlatformsOnEveryTransport(Combo combo) throws IOException {
        if (!runnable(combo)) {
            return;
        }
        int expected = IoTransportSupport.defaultBacklog();
        Integer somaxconn = somaxconn();
        if (somaxconn != null) {
            assertEquals(somaxconn.intValue(), expected, "the default backlog is net.core.somaxconn");
        }
        if (offers(combo, ChannelType.UNIX_STREAM)) {
            Channel unix = bindServer(combo, ChannelType.UNIX_STREAM, unixAddress(), new EchoHandler(), null);
            try {
                assertEquals(expected, unix.config().getOption(ChannelOption.SO_BACKLOG), "Unix listener");
            } finally {
                closeAll(unix);
            }
        }
        // auto-read off: the listener accepts nothing, so every connection waits in the kernel's accept queue
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new EchoHandler(),
                b -> b.option(ChannelOption.AUTO_READ, false));
        List<Socket> clients = new ArrayList<>();
        try {
            assertEquals(expected, server.config().getOption(ChannelOption.SO_BACKLOG), "TCP listener");
            // more than the 51 a backlog of 50 holds, within the platform's (as the kernel has it, not as read here)
            int burst = Math.min(200, somaxconn != null ? somaxconn : expected);
            for (int i = 0; i < burst; i++) {
                Socket s = new Socket();
                clients.add(s);
                try {
                    s.connect(server.localAddress(), 1_500);
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("connection " + (i + 1) + " of " + burst + " to a listener that accepts"
                            + " nothing yet timed out: its backlog is below " + (i + 1) + " (platform default "
                            + expected + ")", e);
                }
            }
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            closeAll(server);
        }
    }

    /**
     * A read whose allocator fails (as the shared allocators do with a malformed {@code conduit.leakDetection}) fires
     * that exception once and closes the connection: the peer sees end of stream at once instead of an open, silent
     * connection that warns on every event, and a write still pending on that connection fails, its cause naming the
     * allocator.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aReadWhoseAllocatorFailsFiresItOnceAndClosesTheConnection(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        RefusingAllocator refusing = new RefusingAllocator();
        Recorder child = new Recorder();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), child,
                b -> b.childOption(ChannelOption.ALLOCATOR, refusing));
        Recorder client = new Recorder();
        Channel ch = connect(combo, ChannelType.TCP, server.localAddress(), client, null);
        try {
            Channel accepted = await(child.active, "the accepted connection");
            // written, not flushed: pending in the outbound buffer when the read fails (the barrier orders it first)
            Future<Void> pending = accepted.write(BufferAllocator.unpooled().buffer(4).writeInt(42));
            await(accepted.eventLoop().submit(() -> { }));
            await(ch.writeAndFlush(ch.alloc().buffer(3).writeBytes(new byte[] {1, 2, 3})));
            assertEquals(refusing.refusal, await(child.firstException, "the allocator's exception on the server side"));
            Throwable writeFailure = awaitDone(pending);
            assertNotNull(writeFailure, "the pending write failed");
            assertTrue(writeFailure.getMessage().contains("allocator failed while reading"), writeFailure.toString());
            await(child.inactive, "the accepted connection to close");
            await(client.inactive, "the client to see the connection closed");
            assertEquals(1, child.count(e -> e.startsWith("exception")), child.events().toString());
            assertEquals(0, child.count("read"), child.events().toString());
        } finally {
            closeAll(ch, server);
        }
    }
}
